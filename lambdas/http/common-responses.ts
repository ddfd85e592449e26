import { ErrorResponse } from './api-schemas.ts';
import { NoBody, type Operation, type ResponseSpec, type RouteVariant } from './operation.ts';

/*
 * The error answers operations share, written once so that the OpenAPI document says the same thing the same
 * way everywhere. `responsesImpliedBy` lists them from an operation's traits; an operation spreads only the
 * ones it words its own way.
 */

/**
 * How an operation on scoped data words two of the statuses its traits imply (`responsesImpliedBy`): what is
 * absent (`notFound`), and validation.
 */
export const scopedFailures = (notFound: string) =>
  ({
    404: { description: notFound, schema: ErrorResponse },
    422: { description: 'The request failed validation; `issues` names the fields', schema: ErrorResponse },
  }) satisfies Record<number, ResponseSpec>;

export const BODY_TOO_LARGE = {
  413: { description: 'Request body too large', schema: ErrorResponse },
} satisfies Record<number, ResponseSpec>;

const IDEMPOTENCY_KEY_REUSED = {
  409: { description: 'Idempotency-Key reused with a different request', schema: ErrorResponse },
} satisfies Record<number, ResponseSpec>;

/** Updates and deletes name the revision they change. */
const IF_MATCH_FAILURES = {
  412: {
    description:
      'If-Match names no current revision (stale, or not a strong ETag of this record: tags compare strongly, so a weak `W/` tag never matches); the current ETag is in the ETag header',
    schema: ErrorResponse,
    headers: ['ETag'],
  },
  428: {
    description: 'If-Match is required: send the ETag of the revision read (`If-Match: *` is refused too)',
    schema: ErrorResponse,
  },
} satisfies Record<number, ResponseSpec>;

/** Every authenticated operation: the caller's app client is over its bound (the configuration's `throttle`). */
const CLIENT_THROTTLED = {
  429: {
    description:
      'Too many requests from this app client (code request.throttled); nothing was done: retry after Retry-After seconds',
    schema: ErrorResponse,
    headers: ['Retry-After'],
  },
} satisfies Record<number, ResponseSpec>;

/** How an organisation-admin operation words the refusals and failures its traits imply. */
export const ADMIN_FAILURES = {
  403: {
    description:
      "The caller is not an organisation admin, or the token's client does not hold memory-hub/memory.admin (code auth.insufficient_scope)",
    schema: ErrorResponse,
  },
  503: { description: 'Storage unavailable', schema: ErrorResponse, headers: ['Retry-After'] },
} satisfies Record<number, ResponseSpec>;

/**
 * What an operation can answer by what it is, whatever its own outcomes: the authorizer, the request middleware
 * (size, JSON, media type, validation, cursors, If-Match, Idempotency-Key) and the error mapper send these for
 * it, so the OpenAPI document lists them from the operation's traits rather than from each operation's memory.
 * An operation's own `responses` add to them and word a shared status its own way.
 */
export const responsesImpliedBy = (operation: Operation, route: RouteVariant): Record<number, ResponseSpec> => {
  const takesBody = operation.body !== NoBody;
  const hasPathParameters = route.project || Object.keys(operation.params.shape).length > 0;
  const implied: Record<number, ResponseSpec> = {
    // Both gateways refuse a body past their limit on any route; an operation without a body refuses one (422).
    ...BODY_TOO_LARGE,
    422: {
      description: 'The request failed validation (`issues` names the fields), or its cursor is not this listing’s',
      schema: ErrorResponse,
    },
    500: { description: 'Internal error; the body reveals nothing but the request id', schema: ErrorResponse },
  };
  if (takesBody) {
    implied[400] = { description: 'The request body is not valid JSON', schema: ErrorResponse };
    implied[415] = { description: 'The request body is not sent as application/json', schema: ErrorResponse };
  }
  if (operation.authenticated) {
    implied[401] = { description: 'No valid bearer token', schema: ErrorResponse };
    implied[403] = {
      description: `The token's client does not hold the scope ${operation.requiredScope} (code auth.insufficient_scope)`,
      schema: ErrorResponse,
    };
    Object.assign(implied, CLIENT_THROTTLED);
  }
  if (hasPathParameters) implied[404] = { description: 'Nothing at this path for the caller', schema: ErrorResponse };
  if (operation.idempotent) Object.assign(implied, IDEMPOTENCY_KEY_REUSED);
  if (operation.requiresIfMatch || operation.acceptsIfMatch) Object.assign(implied, IF_MATCH_FAILURES);
  if (operation.lambda.access !== 'none')
    implied[503] = {
      description: 'Storage unavailable; nothing was committed',
      schema: ErrorResponse,
      headers: ['Retry-After'],
    };
  return implied;
};
