/**
 * The capability modules that declare workflows, imported one by one rather than filtered out of
 * `CAPABILITIES`: the workflow step function's bundle then carries only the modules it runs (and those they
 * require), not every module and the OpenAPI document. A test checks this list against `CAPABILITIES`.
 */
import { housekeepingModule } from '../capabilities/housekeeping/housekeeping.module.ts';
import { learningModule } from '../capabilities/learning/learning.module.ts';

export const WORKFLOW_MODULES = [learningModule, housekeepingModule] as const;
