import { Scope } from '../../lambdas/kernel/identity/scope.ts';
import { readVerifiedClaims } from '../../lambdas/kernel/identity/verified-claims.ts';

export interface CallerSpec {
  tenant?: string;
  sub?: string;
  client?: string;
  groups?: string[];
}

/** A Scope as the authorizer would produce it for a token with these claims. */
export const scopeOf = ({
  tenant = 'acme',
  sub = 'alice',
  client = 'test-client',
  groups = [],
}: CallerSpec = {}): Scope =>
  Scope.fromVerifiedClaims(
    readVerifiedClaims({ sub, 'custom:tenant': tenant, client_id: client, 'cognito:groups': groups }),
  );
