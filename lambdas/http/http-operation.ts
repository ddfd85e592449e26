import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ConfigProvider } from '../kernel/config/config-provider.port.ts';
import type { Log } from '../kernel/observability/log.port.ts';
import type { Metrics } from '../kernel/observability/metrics.port.ts';
import type { ApiEvent, ApiResult, OperationEvent } from './api-event.ts';
import type { ClientThrottle } from './client-throttle.ts';
import type { ErrorStatuses } from './error-responses.ts';
import { authenticatedScope } from './middleware/authenticated-scope.ts';
import { clientThrottle } from './middleware/client-throttle.ts';
import { configRefresh } from './middleware/config-refresh.ts';
import { httpErrors } from './middleware/http-errors.ts';
import { validatedRequest } from './middleware/validated-request.ts';
import type { Operation } from './operation.ts';

/** What API Gateway invokes and what the local server dispatches to. */
export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** What every operation's middleware needs: the configuration, metrics, the log and the status of every error code. */
export interface HttpContext {
  readonly config: ConfigProvider;
  readonly metrics: Metrics;
  readonly log: Log;
  readonly statuses: ErrorStatuses;
  /** Each app client's bound, spent from quota this environment leases; shared by every operation it serves. */
  readonly throttle: ClientThrottle;
}

/**
 * The middleware chain every operation runs, Lambda and local server alike: errors mapped last, the
 * configuration refreshed first (a no-op within its TTL), then identity from verified claims, then the app
 * client's bound, then validation.
 * Handlers attach with `.handler(async ({ scope, input }) => …)` and see the event as the chain leaves it;
 * callers invoke them with the raw API Gateway event.
 */
export const httpOperation = <O extends Operation>(operation: O, http: HttpContext) => {
  const chain = middy<OperationEvent<O>, ApiResult>()
    .use(httpErrors(http))
    .use(configRefresh(http.config))
    .use(authenticatedScope(operation))
    .use(clientThrottle(operation, http))
    .use(validatedRequest(operation, http.config));
  return {
    handler: (handle: (event: OperationEvent<O>) => Promise<ApiResult>): ApiHandler =>
      chain.handler(handle) as unknown as ApiHandler,
  };
};
