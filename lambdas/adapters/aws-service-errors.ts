import { ServiceUnavailableError } from '../kernel/errors/domain-error.ts';

const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Failures of an AWS service (DynamoDB, KMS, Step Functions, …) that the caller can retry become
 * ServiceUnavailable (503 + Retry-After; nothing was committed). Anything else is a bug or a
 * misconfiguration and stays what it is, for a generic 500. One table for every adapter.
 */
export const translateAwsError = (error: unknown): unknown => {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (RETRYABLE.has(error.name) || (typeof code === 'string' && NETWORK.has(code))) {
    return new ServiceUnavailableError('A dependency is unavailable; retry shortly', 1, { cause: error });
  }
  return error;
};
