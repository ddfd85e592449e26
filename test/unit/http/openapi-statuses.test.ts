import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../lambdas/app/capabilities.ts';
import { operationsOf } from '../../../lambdas/composition/module-tables.ts';
import { ADMIN_FAILURES } from '../../../lambdas/http/common-responses.ts';
import { KERNEL_ERROR_STATUSES } from '../../../lambdas/http/error-responses.ts';
import { buildOpenApiDocument } from '../../../lambdas/http/openapi.ts';
import { NoBody, type Operation, type RouteVariant } from '../../../lambdas/http/operation.ts';

type DocumentedOperation = { operationId: string; responses: Record<string, unknown> };

const OPERATIONS = operationsOf(CAPABILITIES);
const CONNECTION_LEVEL_STATUSES = new Set([405, 408, 431]);
const DOCUMENT = buildOpenApiDocument(OPERATIONS) as {
  paths: Record<string, Record<string, DocumentedOperation>>;
};

const documentedStatuses = (route: RouteVariant): number[] =>
  Object.keys(DOCUMENT.paths[route.path]?.[route.method.toLowerCase()]?.responses ?? {})
    .map(Number)
    .sort();

/**
 * What the shared machinery makes an operation able to answer, whatever its own outcomes: the request middleware
 * (validation, body, If-Match, Idempotency-Key, cursors), the authorizer and the error mapper.
 */
const statusesTheMachinerySends = (operation: Operation, route: RouteVariant): number[] => {
  const statuses = new Set([413, 422, 500]);
  // The token (401), its scope (403) and the app client's bound (429).
  if (operation.authenticated) for (const status of [401, 403, 429]) statuses.add(status);
  if (route.project || Object.keys(operation.params.shape).length > 0) statuses.add(404);
  if (operation.body !== NoBody) for (const status of [400, 415]) statuses.add(status);
  if (operation.requiresIfMatch || operation.acceptsIfMatch) for (const status of [412, 428]) statuses.add(status);
  if (operation.idempotent) statuses.add(409);
  if (operation.lambda.access !== 'none') statuses.add(503);
  return [...statuses].sort();
};

describe('Function: buildOpenApiDocument', () => {
  describe('Responses', () => {
    it('lists, for every operation, each status the shared request machinery can send for it', () => {
      for (const operation of OPERATIONS)
        for (const route of operation.routes) {
          expect(documentedStatuses(route), route.operationId).toEqual(
            expect.arrayContaining(statusesTheMachinerySends(operation, route)),
          );
        }
    });

    it('documents every status an error code maps to somewhere, so no mapped answer goes undocumented', () => {
      const documentedAnywhere = new Set(
        OPERATIONS.flatMap((operation) => operation.routes.flatMap(documentedStatuses)),
      );
      for (const [code, status] of Object.entries(KERNEL_ERROR_STATUSES)) {
        // These belong to a path or a connection, not an operation: the local server sends them before any
        // route is known (a method no route has, a request too slow or with too many header bytes to read).
        if (CONNECTION_LEVEL_STATUSES.has(status)) continue;
        expect(documentedAnywhere.has(status), `${code} → ${status}`).toBe(true);
      }
    });

    it("keeps an operation's own wording of a status over the shared one", () => {
      const listAudit = DOCUMENT.paths['/v1/audit']?.get?.responses['403'] as { description: string };

      expect(listAudit.description).toBe(ADMIN_FAILURES[403].description);
    });
  });
});
