import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as z from 'zod';
import type { Scope } from '../kernel/identity/scope.ts';
import type { IdempotencyRequest } from '../kernel/records/record-service.ts';
import type { Operation, RouteVariant } from './operation.ts';

/**
 * What API Gateway's HTTP API hands a function (payload format 2.0). Behind a JWT authorizer the
 * verified claims sit in `requestContext.authorizer.jwt.claims`; the local server builds the same shape.
 */
export type ApiEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & {
    authorizer?: { jwt?: { claims?: Record<string, unknown>; scopes?: string[] | null } };
  };
};

export type ApiResult = APIGatewayProxyStructuredResultV2;

export interface OperationInput<O extends Operation> {
  readonly route: RouteVariant;
  readonly params: z.infer<O['params']> & { projectId?: string };
  readonly query: z.infer<O['query']>;
  readonly body: z.infer<O['body']>;
  readonly ifMatch: string | undefined;
  readonly idempotency: IdempotencyRequest | undefined;
  /** A listing's identity, which the cursors it issues are bound to; absent for an operation that is no listing. */
  readonly listing?: string | undefined;
}

/** The event once the middleware chain has authenticated and validated it. */
export type OperationEvent<O extends Operation> = ApiEvent & {
  scope: Scope;
  input: OperationInput<O>;
};
