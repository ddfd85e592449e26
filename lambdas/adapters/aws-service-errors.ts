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

/** Whether an AWS service's failure is one the caller can retry: throttled, overloaded or unreachable. */
export const isRetryableAwsError = (error: unknown): error is Error => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return RETRYABLE.has(error.name) || (typeof code === 'string' && NETWORK.has(code));
};

/** The ServiceUnavailable of a dependency that failed for want of its service, the cause kept. */
export const dependencyUnavailable = (cause: unknown): ServiceUnavailableError =>
  new ServiceUnavailableError('A dependency is unavailable; retry shortly', 1, { cause });

/**
 * Failures of an AWS service (DynamoDB, KMS, Step Functions, …) that the caller can retry become
 * ServiceUnavailable (503 + Retry-After; nothing was committed). Anything else is a bug or a
 * misconfiguration and stays what it is, for a generic 500. One table for every adapter.
 */
export const translateAwsError = (error: unknown): unknown =>
  isRetryableAwsError(error) ? dependencyUnavailable(error) : error;

/**
 * DynamoDB's refusal of a query's ExclusiveStartKey: malformed, or outside the range the key condition reads
 * ("The provided starting key is invalid…", "…is outside query boundaries…", "…does not match the range key
 * predicate"; dynalite words them the same). The start key is always a caller's cursor.
 */
export const isStartKeyRefusal = (error: unknown): error is Error =>
  error instanceof Error && error.name === 'ValidationException' && /\bstart(ing)? key\b/i.test(error.message);
