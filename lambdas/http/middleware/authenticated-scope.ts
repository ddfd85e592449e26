import type { MiddlewareObj } from '@middy/core';
import { UnauthenticatedError } from '../../kernel/identity/identity.errors.ts';
import { Scope } from '../../kernel/identity/scope.ts';
import { readVerifiedClaims } from '../../kernel/identity/verified-claims.ts';
import type { ApiEvent, ApiResult } from '../api-event.ts';
import type { Operation } from '../operation.ts';

/**
 * Builds the caller's Scope from the claims the authorizer verified — the only identity there is. Nothing
 * in the path, query, headers or body is read for it.
 */
export const authenticatedScope = (operation: Operation): MiddlewareObj<ApiEvent, ApiResult> => ({
  name: 'authenticated-scope',
  before: (request) => {
    if (!operation.authenticated) return;
    const claims = request.event.requestContext?.authorizer?.jwt?.claims;
    if (!claims) throw new UnauthenticatedError();
    Object.assign(request.event, { scope: Scope.fromVerifiedClaims(readVerifiedClaims(claims)) });
  },
});
