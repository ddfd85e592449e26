import openApiDocument from '../../../generated/openapi.json' with { type: 'json' };
import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { ok } from '../../../http/responses.ts';
import * as system from './system.operations.ts';

/** The service's own handlers, by export name; they touch no storage and no key. */
export const systemHandlers = (http: HttpContext) => ({
  getHealth: httpOperation(system.getHealth, http).handler(async () => ok({ status: 'ok', service: 'memory-hub' })),
  /** Serves the committed document (kept equal to the generated one by a test) rather than generating it at cold start. */
  getOpenApiDocument: httpOperation(system.getOpenApiDocument, http).handler(async () => ok(openApiDocument)),
});
