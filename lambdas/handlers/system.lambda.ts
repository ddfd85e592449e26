/** AWS Lambda entry points for the unauthenticated system operations; they touch no storage and no key. */
import { DEFAULT_CONFIG } from '../core/config/memory-hub-config.ts';
import { noMetrics } from '../core/observability/metrics.port.ts';
import * as handlers from './system.handlers.ts';

const backend = { config: DEFAULT_CONFIG, metrics: noMetrics };

export const getHealth = handlers.getHealthHandler(backend);
export const getOpenApiDocument = handlers.getOpenApiDocumentHandler(backend);
