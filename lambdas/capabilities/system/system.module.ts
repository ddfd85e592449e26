import { defineModule } from '../../composition/capability-module.ts';
import { systemHandlers } from './http/system.handlers.ts';
import { getHealth, getOpenApiDocument } from './http/system.operations.ts';

/** The service's own unauthenticated operations: liveness and its OpenAPI document. */
export const systemModule = defineModule({
  name: 'system',
  operations: [getHealth, getOpenApiDocument],
  build: ({ http }) => ({ services: {}, handlers: systemHandlers(http) }),
});
