import type { Operation, RouteVariant } from '../http/operation.ts';

export interface MatchedRoute {
  readonly operation: Operation;
  readonly route: RouteVariant;
  readonly pathParameters: Record<string, string>;
}

interface CompiledRoute {
  readonly operation: Operation;
  readonly route: RouteVariant;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

/** Matches a request path to an operation the way API Gateway matches route keys: literal segments and `{param}` segments. */
export class RouteTable {
  readonly #routes: CompiledRoute[];

  constructor(operations: readonly Operation[]) {
    this.#routes = operations.flatMap((operation) =>
      operation.routes.map((route) => {
        const names: string[] = [];
        const source = route.path
          .split('/')
          .map((segment) => {
            const param = /^\{(\w+)\}$/.exec(segment);
            if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            names.push(param[1]);
            return '([^/]+)';
          })
          .join('/');
        return { operation, route, pattern: new RegExp(`^${source}$`), names };
      }),
    );
  }

  /** The route for a method and path; `pathOnly` when the path exists under another method. */
  match(method: string, path: string): MatchedRoute | 'pathOnly' | undefined {
    let pathExists = false;
    for (const candidate of this.#routes) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      pathExists = true;
      if (candidate.route.method !== method) continue;
      const pathParameters: Record<string, string> = {};
      try {
        candidate.names.forEach((name, index) => {
          pathParameters[name] = decodeURIComponent(found[index + 1] ?? '');
        });
      } catch {
        // Malformed percent-encoding names nothing that exists.
        return undefined;
      }
      return { operation: candidate.operation, route: candidate.route, pathParameters };
    }
    return pathExists ? 'pathOnly' : undefined;
  }
}
