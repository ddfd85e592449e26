import type { MiddlewareObj } from '@middy/core';
import type { Log } from '../../kernel/observability/log.port.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { ApiEvent, ApiResult } from '../api-event.ts';
import { type ErrorStatuses, errorResponse, statusOf } from '../error-responses.ts';

/**
 * Turns any error into the API's error body. A server error is counted and logged with the request id, the
 * status and the error's class or code — never its message, which may quote input.
 */
export const httpErrors = ({
  metrics,
  log,
  statuses,
}: {
  readonly metrics: Metrics;
  readonly log: Log;
  readonly statuses: ErrorStatuses;
}): MiddlewareObj<ApiEvent, ApiResult> => ({
  name: 'http-errors',
  onError: (request) => {
    const requestId = request.event.requestContext?.requestId ?? 'unknown';
    const status = statusOf(request.error, statuses);
    if (status >= 500) {
      metrics.count('http.server_error');
      const error = request.error as { name?: string; code?: string } | null;
      log.error('request failed', { requestId, status, error: error?.code ?? error?.name ?? 'unknown' });
    }
    request.response = errorResponse(request.error, requestId, statuses);
  },
});
