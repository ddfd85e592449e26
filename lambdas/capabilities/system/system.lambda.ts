/**
 * AWS Lambda entry points for the unauthenticated system operations. They touch no storage and no key, so
 * no kernel is built: the handlers run on the built-in defaults.
 */
import { StaticConfigProvider } from '../../adapters/config/static-config-provider.ts';
import { lambdaObservability } from '../../adapters/observability/powertools.ts';
import { KERNEL_ERROR_STATUSES } from '../../http/error-responses.ts';
import { systemHandlers } from './http/system.handlers.ts';

const { log, metrics, instrument } = lambdaObservability(process.env.MEMORY_HUB_STAGE ?? 'unknown');
const handlers = systemHandlers({
  config: new StaticConfigProvider({}),
  metrics,
  log,
  statuses: KERNEL_ERROR_STATUSES,
});

export const getHealth = instrument(handlers.getHealth);
export const getOpenApiDocument = instrument(handlers.getOpenApiDocument);
