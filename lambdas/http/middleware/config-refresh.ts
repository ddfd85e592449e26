import type { MiddlewareObj } from '@middy/core';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import type { ApiEvent, ApiResult } from '../api-event.ts';

/**
 * Lets a changed configuration take effect: every request starts by asking the provider to refresh, which is
 * a no-op within its TTL and never fails the request (an invalid new value keeps the last good one). How long
 * a request waits is the provider's choice: the local file is read there and then; SSM makes only the first
 * request of an execution environment wait (bounded), and reads in the background afterwards.
 */
export const configRefresh = (config: ConfigProvider): MiddlewareObj<ApiEvent, ApiResult> => ({
  name: 'config-refresh',
  before: async () => {
    await config.refresh();
  },
});
