import * as z from 'zod';
import { responsesImpliedBy } from './common-responses.ts';
import { NoBody, type Operation, type RouteVariant } from './operation.ts';

type JsonSchema = Record<string, unknown>;

/**
 * Generates the OpenAPI 3.1 document from the operations' zod schemas: the committed `openapi.json` is
 * this function's output (a test fails when they drift), served at `/v1/openapi.json` and read by the CDK
 * app to create one route per path and one function per handler (`x-memory-hub`).
 */
export const buildOpenApiDocument = (operations: readonly Operation[]): Record<string, unknown> => {
  const components: Record<string, JsonSchema> = {};
  const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const { $schema: _ignored, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      components[name] = relinked(definition);
    }
    return relinked(rest);
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    for (const route of operation.routes) {
      paths[route.path] ??= {};
      (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = {
        operationId: route.operationId,
        summary: operation.summary,
        tags: [operation.tag],
        // The scope the route requires (OpenAPI 3.1 lets a bearer requirement list it; CDK reads x-memory-hub).
        security: operation.authenticated ? [{ bearer: [operation.requiredScope] }] : [],
        parameters: parametersOf(operation, route, schemaOf),
        ...(operation.body !== NoBody && {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaOf(operation.body, 'input') } },
          },
        }),
        responses: Object.fromEntries(
          Object.entries({ ...responsesImpliedBy(operation, route), ...operation.responses }).map(
            ([status, response]) => [
              status,
              {
                description: response.description,
                ...(response.headers && {
                  headers: Object.fromEntries(response.headers.map((name) => [name, { schema: { type: 'string' } }])),
                }),
                ...(response.schema && {
                  content: { 'application/json': { schema: schemaOf(response.schema, 'output') } },
                }),
              },
            ],
          ),
        ),
        'x-memory-hub': {
          authenticated: operation.authenticated,
          ...(operation.authenticated && { requiredScope: operation.requiredScope }),
          lambda: operation.lambda,
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Memory Hub',
      version: '1.0.0',
      description:
        'Governed memory for multi-agent LLM systems. Every authenticated path is scoped to the caller proven by the bearer token; anything outside that scope answers 404.',
    },
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A Cognito access token (locally: `npm run token`). Each operation lists the one OAuth scope its client must hold: memory-hub/memory.read, memory-hub/memory.write or memory-hub/memory.admin.',
        },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
};

const parametersOf = (
  operation: Operation,
  route: RouteVariant,
  schemaOf: (schema: z.ZodType, io: 'input' | 'output') => JsonSchema,
): unknown[] => {
  const pathShape = { ...(route.project && { projectId: z.string() }), ...operation.params.shape } as Record<
    string,
    z.ZodType
  >;
  const parameters: unknown[] = Object.entries(pathShape).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema: schemaOf(schema, 'input'),
  }));
  for (const [name, schema] of Object.entries(operation.query.shape as Record<string, z.ZodType>)) {
    if (route.project && name === 'agent') continue;
    parameters.push({
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      schema: schemaOf(schema, 'input'),
    });
  }
  if (operation.requiresIfMatch || operation.acceptsIfMatch)
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: operation.requiresIfMatch === true,
      description:
        'The ETag of the revision the change is computed from. Compared strongly (RFC 9110 §13.1.1): a weak `W/` tag or another letter case never matches (412); `*` is refused (428)',
      schema: { type: 'string' },
    });
  if (operation.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,128}$' },
    });
  }
  return parameters;
};

const relinked = (schema: JsonSchema): JsonSchema =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
