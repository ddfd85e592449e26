/**
 * Reads the routes and Lambda functions out of the generated OpenAPI document.
 *
 * The document (`lambdas/generated/openapi.json`) is data produced from the zod operation definitions; the CDK
 * app must not import that runtime code, so it reads the JSON and validates the one part it depends on:
 * the `x-memory-hub` extension on every operation.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';

/** What a function may do with the table and key; its IAM grants are derived from this. */
export const StorageAccess = z.enum(['none', 'read', 'write']);
export type StorageAccess = z.infer<typeof StorageAccess>;

/** The HTTP methods an HTTP API route can have, as they appear (lower case) in an OpenAPI path item. */
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
export type OperationMethod = Uppercase<(typeof OPERATION_METHODS)[number]>;

const LambdaBinding = z.object({
  entry: z
    .string()
    .regex(/^[A-Za-z0-9_-][A-Za-z0-9_./-]*\.ts$/, 'must be a relative path to a .ts file')
    .refine((entry) => !entry.split('/').includes('..'), 'must not leave the project'),
  handler: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'must be the name of an exported function'),
  access: StorageAccess,
  /** The function starts workflow executions (it is told every state machine and may start each). */
  startsWorkflows: z.boolean().optional(),
});
export type LambdaBinding = z.infer<typeof LambdaBinding>;

/** An OAuth scope as API Gateway matches it against the token's `scope` claim: `resource-server/name`. */
const OAuthScopeName = z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, 'must be resource-server/scope');

const MemoryHubExtension = z.object({
  authenticated: z.boolean(),
  /** The one scope a token's client must hold: the route's `authorizationScopes`. */
  requiredScope: OAuthScopeName.optional(),
  lambda: LambdaBinding,
});

/** The part of an OpenAPI 3.1 document this app reads. */
export const OpenApiDocument = z.object({
  openapi: z.string().startsWith('3.'),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

/** One route of the document: method, HTTP-API path, and the function that serves it. */
export interface ApiOperation {
  readonly method: OperationMethod;
  readonly path: string;
  readonly operationId: string | undefined;
  readonly authenticated: boolean;
  /** Set on every authenticated operation, absent on a public one. */
  readonly requiredScope: string | undefined;
  readonly lambda: LambdaBinding;
}

/** One Lambda function: a distinct (entry, handler) pair and every operation it serves. */
export interface ApiFunctionSpec {
  /** `entry#handler`, unique per function. */
  readonly key: string;
  readonly entry: string;
  readonly handler: string;
  readonly access: StorageAccess;
  /** Whether any operation served by the function starts workflows. */
  readonly startsWorkflows: boolean;
  readonly operations: readonly ApiOperation[];
}

/** HTTP API path templates: literal segments, `{param}` and a final `{proxy+}`. */
const HTTP_API_PATH =
  /^\/(?:[A-Za-z0-9._~:@!$&'()*,;=-]+|\{[A-Za-z0-9_]+\+?\})?(?:\/(?:[A-Za-z0-9._~:@!$&'()*,;=-]+|\{[A-Za-z0-9_]+\+?\}))*$/;

/** Parses a document read from disk; throws with every problem found, each naming its operation. */
export function readApiOperations(document: unknown): ApiOperation[] {
  const parsedDocument = OpenApiDocument.safeParse(document);
  if (!parsedDocument.success) {
    throw new Error(`Not an OpenAPI 3 document with paths: ${z.prettifyError(parsedDocument.error)}`);
  }
  const operations: ApiOperation[] = [];
  const problems: string[] = [];
  for (const [path, pathItem] of Object.entries(parsedDocument.data.paths)) {
    if (!HTTP_API_PATH.test(path)) {
      problems.push(`${path}: not a path an HTTP API route can have`);
      continue;
    }
    for (const method of OPERATION_METHODS) {
      const operation = pathItem[method];
      if (operation === undefined) continue;
      const label = `${method.toUpperCase()} ${path}`;
      if (typeof operation !== 'object' || operation === null) {
        problems.push(`${label}: the operation is not an object`);
        continue;
      }
      const extension = MemoryHubExtension.safeParse((operation as Record<string, unknown>)['x-memory-hub']);
      if (!extension.success) {
        problems.push(`${label}: invalid x-memory-hub extension: ${z.prettifyError(extension.error)}`);
        continue;
      }
      // A route without a scope would let any client of the pool call it, read-only ones included.
      if (extension.data.authenticated !== (extension.data.requiredScope !== undefined)) {
        problems.push(
          `${label}: ${extension.data.authenticated ? 'an authenticated operation names no requiredScope' : 'a public operation names a requiredScope'}`,
        );
        continue;
      }
      const operationId = (operation as Record<string, unknown>).operationId;
      operations.push({
        method: method.toUpperCase() as OperationMethod,
        path,
        operationId: typeof operationId === 'string' ? operationId : undefined,
        authenticated: extension.data.authenticated,
        requiredScope: extension.data.requiredScope,
        lambda: extension.data.lambda,
      });
    }
  }
  if (problems.length > 0) throw new Error(`The OpenAPI document cannot be deployed:\n- ${problems.join('\n- ')}`);
  if (operations.length === 0) throw new Error('The OpenAPI document has no operations.');
  return operations;
}

/**
 * One function per distinct (entry, handler) pair, in document order. A function has one role, so every
 * operation naming it must ask for the same access.
 */
export function groupOperationsByFunction(operations: readonly ApiOperation[]): ApiFunctionSpec[] {
  const byKey = new Map<
    string,
    { entry: string; handler: string; access: StorageAccess; startsWorkflows: boolean; operations: ApiOperation[] }
  >();
  for (const operation of operations) {
    const { entry, handler, access } = operation.lambda;
    const startsWorkflows = operation.lambda.startsWorkflows === true;
    const key = `${entry}#${handler}`;
    const existing = byKey.get(key);
    if (existing === undefined) {
      byKey.set(key, { entry, handler, access, startsWorkflows, operations: [operation] });
      continue;
    }
    // One role per function: if one of its operations starts workflows, the function may.
    existing.startsWorkflows ||= startsWorkflows;
    if (existing.access !== access) {
      throw new Error(
        `${key} is named with access "${existing.access}" and with access "${access}" ` +
          `(${operation.method} ${operation.path}); one function has one set of grants.`,
      );
    }
    existing.operations.push(operation);
  }
  return [...byKey.entries()].map(([key, spec]) => ({ key, ...spec }));
}

/** Reads and parses the document; the parsed value is validated by `readApiOperations`. */
export function loadOpenApiDocument(path: string): OpenApiDocument {
  const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const parsed = OpenApiDocument.safeParse(document);
  if (!parsed.success) throw new Error(`${path} is not an OpenAPI 3 document: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
