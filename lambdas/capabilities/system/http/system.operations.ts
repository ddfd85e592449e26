import * as z from 'zod';
import { HealthResponse } from '../../../http/api-schemas.ts';
import { defineOperation, NoBody, NoParams, NoQuery } from '../../../http/operation.ts';

const ENTRY = 'lambdas/capabilities/system/system.lambda.ts';

export const getHealth = defineOperation({
  summary: 'Liveness: the service answers',
  tag: 'system',
  routes: [{ operationId: 'getHealth', method: 'GET', path: '/v1/health', project: false }],
  authenticated: false,
  lambda: { entry: ENTRY, handler: 'getHealth', access: 'none' },
  params: NoParams,
  query: NoQuery,
  body: NoBody,
  responses: { 200: { description: 'The service is up', schema: HealthResponse } },
});

export const getOpenApiDocument = defineOperation({
  summary: "This API's OpenAPI 3.1 document",
  tag: 'system',
  routes: [{ operationId: 'getOpenApiDocument', method: 'GET', path: '/v1/openapi.json', project: false }],
  authenticated: false,
  lambda: { entry: ENTRY, handler: 'getOpenApiDocument', access: 'none' },
  params: NoParams,
  query: NoQuery,
  body: NoBody,
  responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
});
