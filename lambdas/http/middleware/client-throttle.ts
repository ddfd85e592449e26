import type { MiddlewareObj } from '@middy/core';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import { kernelThrottle } from '../../kernel/config/kernel-config.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { ApiEvent, ApiResult } from '../api-event.ts';
import { type ClientThrottle, ClientThrottledError } from '../client-throttle.ts';
import type { Operation } from '../operation.ts';

/**
 * Holds each app client (the verified `client_id`) to its bound from the configuration's `throttle` section,
 * across every execution environment (`ClientThrottle`). Runs right after identity and before validation, so a
 * client over its bound is refused (429, Retry-After) before its request costs anything more, whatever the
 * request holds. Counted, never logged: the client id is an identifier. Unauthenticated operations have no
 * client and are bounded by the stage alone.
 */
export const clientThrottle = (
  operation: Operation,
  http: { readonly config: ConfigProvider; readonly metrics: Metrics; readonly throttle: ClientThrottle },
): MiddlewareObj<ApiEvent, ApiResult> => ({
  name: 'client-throttle',
  before: async (request) => {
    if (!operation.authenticated) return;
    const { client } = (request.event as ApiEvent & { scope: Scope }).scope;
    const settings = kernelThrottle.of(http.config.current());
    const named = Object.hasOwn(settings.clients, client) ? settings.clients[client] : undefined;
    const retryAfterSeconds = await http.throttle.take(client, {
      requestsPerSecond: named?.requestsPerSecond ?? settings.requestsPerSecond,
      leaseSize: settings.leaseSize,
    });
    if (retryAfterSeconds === 0) return;
    http.metrics.count('http.client_throttled');
    throw new ClientThrottledError(retryAfterSeconds);
  },
});
