import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_DOCUMENT_PATH, workflowsDocument } from '../../lambdas/core/workflows/workflow-catalogue.ts';
import { API_OPERATIONS } from '../../lambdas/http/api-operations.ts';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from '../../lambdas/http/openapi.ts';

describe('OpenAPI document', () => {
  it('is exactly what the zod schemas generate (run `npm run generate` after changing an operation)', () => {
    const committed = JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8'));
    expect(committed).toEqual(buildOpenApiDocument());
  });

  it('names a Lambda handler, an access level and a unique operation id for every route', () => {
    const document = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<string, { operationId: string; 'x-memory-hub': { lambda: { handler: string; access: string } } }>
      >;
    };
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    const ids = operations.map((operation) => operation.operationId);

    expect(new Set(ids).size).toBe(ids.length);
    expect(operations).toHaveLength(API_OPERATIONS.flatMap((operation) => operation.routes).length);
    for (const operation of operations) {
      expect(operation['x-memory-hub'].lambda.handler).toMatch(/^[a-z][A-Za-z]+$/);
      expect(['none', 'read', 'write']).toContain(operation['x-memory-hub'].lambda.access);
    }
  });
});

describe('Workflows document', () => {
  it("is exactly the core's step lists (run `npm run generate` after changing a workflow)", () => {
    const committed = JSON.parse(readFileSync(WORKFLOWS_DOCUMENT_PATH, 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(workflowsDocument())));
  });
});
