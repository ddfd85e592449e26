/**
 * Writes the data documents generated from the core's definitions: `npm run generate`. The CDK app reads
 * them (lib/ never imports runtime code), so regenerate whenever an operation, a workflow or a default
 * changes; a test fails when a committed document drifts from its source.
 */
import { writeFileSync } from 'node:fs';
import { DEFAULT_CONFIG_DOCUMENT_PATH, defaultConfigDocument } from '../lambdas/core/config/memory-hub-config.ts';
import { WORKFLOWS_DOCUMENT_PATH, workflowsDocument } from '../lambdas/core/workflows/workflow-catalogue.ts';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from '../lambdas/http/openapi.ts';

const documents: [string, unknown][] = [
  [OPENAPI_DOCUMENT_PATH, buildOpenApiDocument()],
  [WORKFLOWS_DOCUMENT_PATH, workflowsDocument()],
  [DEFAULT_CONFIG_DOCUMENT_PATH, defaultConfigDocument()],
];
for (const [path, document] of documents) {
  writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${path}`);
}
