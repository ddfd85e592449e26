import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, ServiceUnavailableError, ValidationFailedError } from '../kernel/errors/domain-error.ts';
import { InsufficientScopeError } from '../kernel/identity/identity.errors.ts';
import { SensitiveContentRefusedError } from '../kernel/protection/protection.errors.ts';
import { ExpectedRevisionRequiredError, RevisionMismatchError } from '../kernel/records/record.errors.ts';
import { ClientThrottledError } from './client-throttle.ts';
import { etagOf } from './entity-tags.ts';
import { jsonResponse } from './responses.ts';

/** Domain error codes to HTTP statuses: the kernel's below, each capability module's added by the composition. */
export type ErrorStatuses = Readonly<Record<string, number>>;

/** The statuses of the kernel's and the HTTP layer's own error codes. */
export const KERNEL_ERROR_STATUSES: ErrorStatuses = {
  not_found: 404,
  'auth.unauthenticated': 401,
  'auth.forbidden': 403,
  'auth.insufficient_scope': 403,
  'validation.failed': 422,
  'validation.invalid_cursor': 422,
  // RFC 9110: malformed syntax is the client's error (400); well-formed JSON that fails validation is 422.
  'request.invalid_json': 400,
  'request.malformed_target': 400,
  'request.malformed': 400,
  // Answered by the local server for a connection, before any route is known (API Gateway has its own).
  'request.timeout': 408,
  'request.header_fields_too_large': 431,
  'request.if_match_wildcard': 428,
  'request.payload_too_large': 413,
  'request.unsupported_media_type': 415,
  'request.method_not_allowed': 405,
  'idempotency.key_reused': 409,
  'record.revision_conflict': 409,
  'record.precondition_failed': 412,
  'record.precondition_required': 428,
  'service.unavailable': 503,
  'request.throttled': 429,
  'workflow.unknown_step': 404,
  'workflow.transient_step_failure': 503,
  'protection.sensitive_content': 422,
  // A ciphertext refused for its context is, to the caller, a record that is not there.
  'crypto.context_mismatch': 404,
};

/** The one table an operation answers by: the kernel's statuses and those its modules declare (each code once). */
export const errorStatusTable = (...tables: readonly ErrorStatuses[]): ErrorStatuses => {
  const merged: Record<string, number> = {};
  for (const table of tables)
    for (const [code, status] of Object.entries(table)) {
      if (Object.hasOwn(merged, code) && merged[code] !== status)
        throw new TypeError(`The error code ${code} is given two statuses`);
      merged[code] = status;
    }
  return Object.freeze(merged);
};

export const statusOf = (error: unknown, statuses: ErrorStatuses): number =>
  error instanceof DomainError && Object.hasOwn(statuses, error.code) ? (statuses[error.code] ?? 500) : 500;

/**
 * The response for an error: domain errors with a status below 500 show their code and message; anything
 * else becomes a generic 500 (or 503) that reveals nothing but the request id to quote.
 */
export const errorResponse = (
  error: unknown,
  requestId: string,
  statuses: ErrorStatuses,
): APIGatewayProxyStructuredResultV2 => {
  const status = statusOf(error, statuses);
  const headers: Record<string, string> = {};
  if (error instanceof RevisionMismatchError && error.currentRevision !== undefined)
    headers.ETag = etagOf(error.recordId, error.currentRevision);
  if (error instanceof ServiceUnavailableError || error instanceof ClientThrottledError)
    headers['Retry-After'] = String(error.retryAfterSeconds);
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  // RFC 6750 §3.1: tell the client which scope its token lacks.
  if (error instanceof InsufficientScopeError)
    headers['WWW-Authenticate'] = `Bearer error="insufficient_scope", scope="${error.requiredScope}"`;
  if (status >= 500 && !(error instanceof ServiceUnavailableError)) {
    return jsonResponse(500, { error: { code: 'internal', message: 'Internal error', requestId } });
  }
  const domain = error as DomainError;
  const code = domain.code === 'crypto.context_mismatch' ? 'not_found' : domain.code;
  const message = code === 'not_found' ? 'Not found' : (httpMessageOf(error) ?? domain.message);
  const issues = error instanceof ValidationFailedError && error.issues.length > 0 ? { issues: error.issues } : {};
  const reasons = error instanceof SensitiveContentRefusedError ? { reasons: [...error.reasons] } : {};
  return jsonResponse(status, { error: { code, message, requestId, ...issues, ...reasons } }, headers);
};

/** The core says revisions; a caller of the API names them by ETag, so the few errors about them say so. */
const httpMessageOf = (error: unknown): string | undefined => {
  if (error instanceof RevisionMismatchError)
    return error.currentRevision === undefined
      ? 'The record does not exist, so no ETag matches; send the request without If-Match to create it'
      : 'If-Match names no current revision: the record has changed since, or the tag is not its ETag (tags compare strongly, so a weak W/ tag never matches); read it again and retry';
  if (error instanceof ExpectedRevisionRequiredError)
    return 'This request must carry an If-Match header with the ETag of the revision it changes';
  return undefined;
};
