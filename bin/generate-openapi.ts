/**
 * Writes the OpenAPI document generated from the zod schemas: `npm run openapi`. The committed file is
 * what the CDK app builds routes from, so regenerate it whenever an operation changes (a test says when).
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from '../lambdas/http/openapi.ts';

writeFileSync(OPENAPI_DOCUMENT_PATH, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${OPENAPI_DOCUMENT_PATH}`);
