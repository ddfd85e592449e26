import { DomainError } from '../errors/domain-error.ts';

/** The request carries no identity the service can trust: no token, a bad one, or one without the claims
 * a Scope is built from. */
export class UnauthenticatedError extends DomainError {
  readonly code = 'auth.unauthenticated';

  constructor(message = 'A valid bearer token is required', options?: ErrorOptions) {
    super(message, options);
  }
}

/** An authenticated caller asked for an action its role does not allow, on something it may know exists
 * (its own tenant's administration). Scoped data never answers with this: it answers NotFound. */
export class ForbiddenError extends DomainError {
  readonly code = 'auth.forbidden';

  constructor(message = 'This action is not allowed for the caller') {
    super(message);
  }
}

/**
 * The token is valid but its client was not granted the OAuth scope the operation requires (RFC 6750
 * `insufficient_scope`). Decided from the token and the route alone, before anything is read, so it says
 * nothing about what exists.
 */
export class InsufficientScopeError extends DomainError {
  readonly code = 'auth.insufficient_scope';
  readonly requiredScope: string;

  constructor(requiredScope: string) {
    super(`The token's client does not hold the scope this operation requires (${requiredScope})`);
    this.requiredScope = requiredScope;
  }
}
