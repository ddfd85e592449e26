/** AWS Lambda entry points for the unauthenticated system operations; they touch no storage and no key. */
import { StaticConfigProvider } from '../adapters/config/static-config-provider.ts';
import { noMetrics } from '../core/observability/metrics.port.ts';
import * as handlers from './system.handlers.ts';

const backend = { config: new StaticConfigProvider(), metrics: noMetrics };

export const getHealth = handlers.getHealthHandler(backend);
export const getOpenApiDocument = handlers.getOpenApiDocumentHandler(backend);
