import type { ApiEvent } from '../../lambdas/http/api-event.ts';

/** The verified claims API Gateway's JWT authorizer passes on. */
export interface AuthorizerClaims {
  readonly sub: string;
  readonly tenant: string;
}

/** The event API Gateway's HTTP API hands a function behind the JWT authorizer. */
export const apiEvent = (
  routeKey: string,
  parts: Partial<ApiEvent> = {},
  claims: AuthorizerClaims = { sub: 'alice', tenant: 'acme' },
): ApiEvent =>
  ({
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1],
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      routeKey,
      authorizer: {
        jwt: {
          claims: {
            sub: claims.sub,
            'custom:tenant': claims.tenant,
            client_id: 'app',
            'cognito:groups': '[]',
            // As API Gateway passes them: numbers as decimal text, the scope claim as Cognito wrote it.
            iat: String(Math.floor(Date.now() / 1000) - 60),
            exp: String(Math.floor(Date.now() / 1000) + 3540),
            scope: 'memory-hub/memory.read memory-hub/memory.write memory-hub/memory.admin',
          },
          scopes: ['memory-hub/memory.read', 'memory-hub/memory.write', 'memory-hub/memory.admin'],
        },
      },
    },
    ...parts,
  }) as unknown as ApiEvent;
