/**
 * The service's capabilities: one line per module, in the order the OpenAPI document lists their operations.
 * Everything central is built from this list — routes and the OpenAPI document, record kinds, error statuses,
 * the configuration document, consumers, workflows, and the deployment document CDK reads. A new capability
 * is a folder under `lambdas/capabilities/` with a module file, and one line here.
 */
import { auditModule } from '../capabilities/audit/audit.module.ts';
import { guardrailsModule } from '../capabilities/guardrails/guardrails.module.ts';
import { housekeepingModule } from '../capabilities/housekeeping/housekeeping.module.ts';
import { learningModule } from '../capabilities/learning/learning.module.ts';
import { notesModule } from '../capabilities/notes/notes.module.ts';
import { proceduresModule } from '../capabilities/procedures/procedures.module.ts';
import { retrievalModule } from '../capabilities/retrieval/retrieval.module.ts';
import { systemModule } from '../capabilities/system/system.module.ts';

export const CAPABILITIES = [
  systemModule,
  notesModule,
  learningModule,
  retrievalModule,
  proceduresModule,
  guardrailsModule,
  auditModule,
  housekeepingModule,
] as const;
