/**
 * AWS Lambda entry points for the unauthenticated system operations. They touch no storage and no key, so
 * no kernel is built: the handlers run on the built-in defaults.
 */
import { StaticConfigProvider } from '../../adapters/config/static-config-provider.ts';
import { KERNEL_ERROR_STATUSES } from '../../http/error-responses.ts';
import { noMetrics } from '../../kernel/observability/metrics.port.ts';
import { systemHandlers } from './http/system.handlers.ts';

const handlers = systemHandlers({
  config: new StaticConfigProvider({}),
  metrics: noMetrics,
  statuses: KERNEL_ERROR_STATUSES,
});

export const getHealth = handlers.getHealth;
export const getOpenApiDocument = handlers.getOpenApiDocument;
