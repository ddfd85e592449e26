import * as z from 'zod';
import type { MemoryHubScope } from '../kernel/identity/oauth-scopes.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How much of the table a Lambda function may touch: its IAM grants are derived from this. */
export type StorageAccess = 'none' | 'read' | 'write';

/** One path the operation answers on. A project variant adds `{projectId}` and works in the team's space. */
export interface RouteVariant {
  readonly operationId: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly project: boolean;
}

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: z.ZodType;
  readonly headers?: readonly ('ETag' | 'Location' | 'Retry-After' | 'Idempotent-Replayed')[];
}

/**
 * Who may call an operation: anyone (`authenticated: false`), or a verified token whose client holds
 * `requiredScope` — enforced by API Gateway's route `authorizationScopes` in AWS and by the middleware in
 * both modes, and listed as the operation's security requirement in the OpenAPI document.
 */
export type OperationAccess =
  | { readonly authenticated: true; readonly requiredScope: MemoryHubScope }
  | { readonly authenticated: false; readonly requiredScope?: undefined };

/**
 * One API operation: the single source for request validation (Lambda and local server alike), the OpenAPI
 * document, and the CDK routes and functions (which read the generated document).
 */
export type Operation<
  Params extends z.ZodObject = z.ZodObject,
  Query extends z.ZodObject = z.ZodObject,
  Body extends z.ZodType = z.ZodType,
> = OperationAccess & OperationDefinition<Params, Query, Body>;

interface OperationDefinition<Params extends z.ZodObject, Query extends z.ZodObject, Body extends z.ZodType> {
  readonly summary: string;
  readonly tag: string;
  readonly routes: readonly RouteVariant[];
  readonly lambda: {
    readonly entry: string;
    readonly handler: string;
    readonly access: StorageAccess;
    /** The function may start workflow executions (Step Functions in AWS). */
    readonly startsWorkflows?: boolean;
  };
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  /**
   * Updates and deletes must name the revision they change (documented as a required header). The core
   * refuses a change that names none, after whatever permission checks the capability makes first.
   */
  readonly requiresIfMatch?: boolean;
  /** Create-or-replace: If-Match is read when given (a replacement needs it; a creation has none to give). */
  readonly acceptsIfMatch?: boolean;
  /** Creations accept Idempotency-Key. */
  readonly idempotent?: boolean;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

export const NoParams = z.object({}).strict();
export const NoQuery = z.object({}).strict();
/** An operation without a body refuses one rather than ignoring it. */
export const NoBody = z.undefined({ error: 'this operation takes no request body' });

export const defineOperation = <Params extends z.ZodObject, Query extends z.ZodObject, Body extends z.ZodType>(
  operation: Operation<Params, Query, Body>,
): Operation<Params, Query, Body> => operation;

/** The route key API Gateway puts on every event, e.g. `GET /v1/notes/{id}`. */
export const routeKeyOf = (route: RouteVariant): string => `${route.method} ${route.path}`;
