/**
 * Base of every error the core raises on purpose. The core knows nothing of HTTP: each error carries a
 * stable `code`, and one mapper in `lambdas/http` turns codes into statuses and response bodies.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Anything absent, expired, deleted or outside the caller's scope. One code and one message for all of
 * them, so that a caller cannot tell "not yours" from "not there". */
export class NotFoundError extends DomainError {
  readonly code = 'not_found';

  constructor(options?: ErrorOptions) {
    super('Not found', options);
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

/** Input that fails its schema or a rule; `issues` names the failing fields, never echoes their values. */
export class ValidationFailedError extends DomainError {
  readonly code = 'validation.failed';
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, issues: readonly ValidationIssue[] = []) {
    super(message);
    this.issues = issues;
  }
}

/** A dependency that must be durable (the store, the key service) could not take the write now; nothing
 * was committed, and the caller may retry. */
export class ServiceUnavailableError extends DomainError {
  readonly code = 'service.unavailable';
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds = 1, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
