import { ErrorResponse } from './api-schemas.ts';
import type { ResponseSpec } from './operation.ts';

/*
 * The error answers operations share, written once so that the OpenAPI document says the same thing the same
 * way everywhere. Each operation spreads the ones it can give.
 */

/** What any authenticated operation on scoped data can answer; `notFound` says what is absent. */
export const scopedFailures = (notFound: string) =>
  ({
    401: { description: 'No valid bearer token', schema: ErrorResponse },
    404: { description: notFound, schema: ErrorResponse },
    422: { description: 'The request failed validation; `issues` names the fields', schema: ErrorResponse },
    503: {
      description: 'Storage unavailable; nothing was committed',
      schema: ErrorResponse,
      headers: ['Retry-After'],
    },
  }) satisfies Record<number, ResponseSpec>;

export const BODY_TOO_LARGE = {
  413: { description: 'Request body too large', schema: ErrorResponse },
} satisfies Record<number, ResponseSpec>;

export const IDEMPOTENCY_KEY_REUSED = {
  409: { description: 'Idempotency-Key reused with a different request', schema: ErrorResponse },
} satisfies Record<number, ResponseSpec>;

/** Updates and deletes name the revision they change. */
export const IF_MATCH_FAILURES = {
  412: {
    description: 'If-Match is stale; the current ETag is in the ETag header',
    schema: ErrorResponse,
    headers: ['ETag'],
  },
  428: { description: 'If-Match is required', schema: ErrorResponse },
} satisfies Record<number, ResponseSpec>;

/** What an organisation-admin operation can answer besides its own outcome. */
export const ADMIN_FAILURES = {
  401: { description: 'No valid bearer token', schema: ErrorResponse },
  403: { description: 'The caller is not an organisation admin', schema: ErrorResponse },
  503: { description: 'Storage unavailable', schema: ErrorResponse, headers: ['Retry-After'] },
} satisfies Record<number, ResponseSpec>;
