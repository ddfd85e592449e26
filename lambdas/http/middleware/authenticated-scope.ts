import type { MiddlewareObj } from '@middy/core';
import { UnauthenticatedError } from '../../kernel/identity/identity.errors.ts';
import { assertScopeGranted } from '../../kernel/identity/oauth-scopes.ts';
import { Scope } from '../../kernel/identity/scope.ts';
import { assertTokenInForce } from '../../kernel/identity/token-rules.ts';
import { readVerifiedClaims } from '../../kernel/identity/verified-claims.ts';
import { systemClock } from '../../kernel/time/clock.ts';
import type { ApiEvent, ApiResult } from '../api-event.ts';
import type { Operation } from '../operation.ts';

/**
 * Builds the caller's Scope from the claims the authorizer verified — the only identity there is. Nothing
 * in the path, query, headers or body is read for it.
 *
 * In the order API Gateway would refuse them: a token not in force (401: API Gateway checks the
 * signature, issuer, client, `exp` and `nbf`; this re-checks `exp` and `iat` and adds what it does not
 * check — a required `exp` and `iat`, and the lifetime bound), then a client without the operation's
 * scope (403, the route's `authorizationScopes`), then claims a Scope cannot be built from (401). The
 * clock is the wall clock, not the service's: token times are compared with real time, as API Gateway does.
 */
export const authenticatedScope = (operation: Operation): MiddlewareObj<ApiEvent, ApiResult> => ({
  name: 'authenticated-scope',
  before: (request) => {
    if (!operation.authenticated) return;
    const claims = request.event.requestContext?.authorizer?.jwt?.claims;
    if (!claims) throw new UnauthenticatedError();
    assertTokenInForce(claims, systemClock.now());
    assertScopeGranted(claims, operation.requiredScope);
    Object.assign(request.event, { scope: Scope.fromVerifiedClaims(readVerifiedClaims(claims)) });
  },
});
