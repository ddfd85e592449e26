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

/**
 * Matches a request path to an operation the way API Gateway matches route keys: literal segments and `{param}`
 * segments, against the path as `parseRequestTarget` gives it (decoded once, dot segments kept; see there).
 */
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

  /** The route for a method and a decoded path; `pathOnly` when the path exists under another method. */
  match(method: string, path: string): MatchedRoute | 'pathOnly' | undefined {
    let pathExists = false;
    for (const candidate of this.#routes) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      pathExists = true;
      if (candidate.route.method !== method) continue;
      // The path was decoded once already; decoding a parameter again would turn `%252F` into `/`.
      const pathParameters: Record<string, string> = {};
      candidate.names.forEach((name, index) => {
        pathParameters[name] = found[index + 1] ?? '';
      });
      return { operation: candidate.operation, route: candidate.route, pathParameters };
    }
    return pathExists ? 'pathOnly' : undefined;
  }

  /** The methods some route accepts at a decoded path, for a 405's `Allow`. */
  methodsAt(path: string): string[] {
    const methods = this.#routes.filter((candidate) => candidate.pattern.test(path)).map(({ route }) => route.method);
    return [...new Set(methods)].sort();
  }
}
