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
