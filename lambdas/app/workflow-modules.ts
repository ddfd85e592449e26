/**
 * The capability modules that declare workflows, imported one by one rather than filtered out of
 * `CAPABILITIES`: the workflow step function's bundle then carries only the modules it runs (and those they
 * require), not every module and the OpenAPI document. A test checks this list against `CAPABILITIES`.
 */
import { housekeepingModule } from '../capabilities/housekeeping/housekeeping.module.ts';
import { learningModule } from '../capabilities/learning/learning.module.ts';
import { retrievalModule } from '../capabilities/retrieval/retrieval.module.ts';
import { SEARCHED_MODULES } from '../capabilities/retrieval/searched-modules.ts';

export const WORKFLOW_MODULES = [learningModule, housekeepingModule, retrievalModule] as const;

const indexedByWorkflowModules = new Set(
  WORKFLOW_MODULES.flatMap((module) => module.recordKinds ?? []).map((kind) => kind.name),
);

/**
 * What the step function builds: the workflow modules, and the search modules of the searchable kinds they do not
 * declare themselves — the search index rebuild indexes every searchable kind, so it needs each one's projection.
 */
export const STEP_FUNCTION_MODULES = [
  ...WORKFLOW_MODULES,
  ...SEARCHED_MODULES.filter((module) =>
    (module.recordKinds ?? []).some((kind) => !indexedByWorkflowModules.has(kind.name)),
  ),
];
