/**
 * Writes the data documents generated from the capability list: `npm run generate`. The CDK app reads them
 * (lib/ never imports runtime code), so regenerate whenever a capability, an operation, a workflow or a
 * default changes; a test fails when a committed document drifts from its source.
 */
import { writeFileSync } from 'node:fs';
import { GENERATED_DOCUMENTS } from '../lambdas/app/documents.ts';

for (const [path, build] of GENERATED_DOCUMENTS) {
  writeFileSync(path, `${JSON.stringify(build(), null, 2)}\n`);
  console.log(`wrote ${path}`);
}
