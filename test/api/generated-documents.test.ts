import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  openApiDocument as buildOpenApiDocument,
  DEPLOYMENT_DOCUMENT_PATH,
  deploymentDocument,
  OPENAPI_DOCUMENT_PATH,
  WORKFLOWS_DOCUMENT_PATH,
  workflowsDocument,
} from '../../lambdas/app/documents.ts';
import { API_OPERATIONS } from '../../lambdas/app/service-tables.ts';

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

describe('Deployment document', () => {
  it('is exactly what the capability list declares (run `npm run generate` after changing a module)', () => {
    const committed = JSON.parse(readFileSync(DEPLOYMENT_DOCUMENT_PATH, 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(deploymentDocument())));
  });
});
