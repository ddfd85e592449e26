import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, ServiceUnavailableError, ValidationFailedError } from '../core/errors/domain-error.ts';
import { SensitiveContentRefusedError } from '../core/protection/protection.errors.ts';
import { PreconditionFailedError } from '../core/records/record.errors.ts';
import { jsonResponse } from './responses.ts';

/** The one table from domain error codes to HTTP statuses. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  not_found: 404,
  'auth.unauthenticated': 401,
  'auth.forbidden': 403,
  'validation.failed': 422,
  'validation.invalid_cursor': 422,
  'request.invalid_json': 422,
  'request.payload_too_large': 413,
  'request.unsupported_media_type': 415,
  'request.method_not_allowed': 405,
  'idempotency.key_reused': 409,
  'record.revision_conflict': 409,
  'record.precondition_failed': 412,
  'record.precondition_required': 428,
  'service.unavailable': 503,
  'workflow.unknown_step': 404,
  'workflow.transient_step_failure': 503,
  'protection.sensitive_content': 422,
  'learning.rule_mismatch': 422,
  'guardrail.conflicts_with_organisation': 409,
  'guardrail.limit_reached': 409,
  // A ciphertext refused for its context is, to the caller, a record that is not there.
  'crypto.context_mismatch': 404,
};

export const statusOf = (error: unknown): number =>
  error instanceof DomainError ? (STATUS_BY_CODE[error.code] ?? 500) : 500;

/**
 * The response for an error: domain errors with a status below 500 show their code and message; anything
 * else becomes a generic 500 (or 503) that reveals nothing but the request id to quote.
 */
export const errorResponse = (error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 => {
  const status = statusOf(error);
  const headers: Record<string, string> = {};
  if (error instanceof PreconditionFailedError && error.currentEtag !== undefined) headers.ETag = error.currentEtag;
  if (error instanceof ServiceUnavailableError) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  if (status >= 500 && !(error instanceof ServiceUnavailableError)) {
    return jsonResponse(500, { error: { code: 'internal', message: 'Internal error', requestId } });
  }
  const domain = error as DomainError;
  const code = domain.code === 'crypto.context_mismatch' ? 'not_found' : domain.code;
  const message = code === 'not_found' ? 'Not found' : domain.message;
  const issues = error instanceof ValidationFailedError && error.issues.length > 0 ? { issues: error.issues } : {};
  const reasons = error instanceof SensitiveContentRefusedError ? { reasons: [...error.reasons] } : {};
  return jsonResponse(status, { error: { code, message, requestId, ...issues, ...reasons } }, headers);
};
