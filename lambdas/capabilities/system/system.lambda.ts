/**
 * AWS Lambda entry points for the unauthenticated system operations. They touch no storage and no key, so
 * no kernel is built: the handlers run on the built-in defaults.
 */
import { StaticConfigProvider } from '../../adapters/config/static-config-provider.ts';
import { lambdaObservability } from '../../adapters/observability/powertools.ts';
import { ClientThrottle, NO_CLIENT_QUOTA_LEDGER } from '../../http/client-throttle.ts';
import { KERNEL_ERROR_STATUSES } from '../../http/error-responses.ts';
import { systemClock } from '../../kernel/time/clock.ts';
import { systemHandlers } from './http/system.handlers.ts';

const { log, metrics, instrument } = lambdaObservability(process.env.MEMORY_HUB_STAGE ?? 'unknown');
const handlers = systemHandlers({
  config: new StaticConfigProvider({}),
  metrics,
  log,
  statuses: KERNEL_ERROR_STATUSES,
  // Unauthenticated operations have no app client to bound; the chain needs one all the same.
  throttle: new ClientThrottle({ clock: systemClock, ledger: NO_CLIENT_QUOTA_LEDGER }),
});

export const getHealth = instrument(handlers.getHealth);
export const getOpenApiDocument = instrument(handlers.getOpenApiDocument);
