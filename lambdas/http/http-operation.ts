import middy from '@middy/core';
import type { Backend } from '../core/backend.ts';
import type { ApiResult, OperationEvent } from './api-event.ts';
import { authenticatedScope } from './middleware/authenticated-scope.ts';
import { httpErrors } from './middleware/http-errors.ts';
import { validatedRequest } from './middleware/validated-request.ts';
import type { Operation } from './operation.ts';

/**
 * The middleware chain every operation runs, Lambda and local server alike: errors mapped last, identity
 * from verified claims first, then validation. Handlers attach with `.handler(async ({ scope, input }) => …)`.
 */
export const httpOperation = <O extends Operation>(operation: O, backend: Pick<Backend, 'config' | 'metrics'>) =>
  middy<OperationEvent<O>, ApiResult>()
    .use(httpErrors(backend.metrics))
    .use(authenticatedScope(operation))
    .use(validatedRequest(operation, backend.config));
