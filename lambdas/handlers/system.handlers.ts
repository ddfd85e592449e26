import type { Backend } from '../core/backend.ts';
import { httpOperation } from '../http/http-operation.ts';
import openApiDocument from '../http/openapi.json' with { type: 'json' };
import { ok } from '../http/responses.ts';
import * as system from '../http/system.api.ts';

export const getHealthHandler = (backend: Pick<Backend, 'config' | 'metrics'>) =>
  httpOperation(system.getHealth, backend).handler(async () => ok({ status: 'ok', service: 'memory-hub' }));

/** Serves the committed document (kept equal to the generated one by a test) rather than generating it at cold start. */
export const getOpenApiDocumentHandler = (backend: Pick<Backend, 'config' | 'metrics'>) =>
  httpOperation(system.getOpenApiDocument, backend).handler(async () => ok(openApiDocument));
