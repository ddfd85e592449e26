import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../lambdas/app/capabilities.ts';
import { STEP_FUNCTION_MODULES, WORKFLOW_MODULES } from '../../../lambdas/app/workflow-modules.ts';
import { composeService } from '../../../lambdas/composition/compose-service.ts';
import { workflowsOf } from '../../../lambdas/composition/module-tables.ts';
import { inMemoryPorts } from '../../support/in-memory-backend.ts';

const searchableKindsOf = (modules: readonly { recordKinds?: readonly { name: string; searchable: boolean }[] }[]) =>
  [
    ...new Set(
      modules
        .flatMap((module) => module.recordKinds ?? [])
        .filter((kind) => kind.searchable)
        .map((kind) => kind.name),
    ),
  ].sort();

describe('Module: workflow-modules', () => {
  it('lists exactly the capabilities that declare a workflow, so the step function runs every workflow', () => {
    // Prepare
    const declaring = CAPABILITIES.filter((module) => (module.workflows ?? []).length > 0);

    // Assess
    expect(new Set(WORKFLOW_MODULES)).toEqual(new Set(declaring));
    expect(WORKFLOW_MODULES).toHaveLength(declaring.length);
  });

  it('gives the step function a projection of every searchable kind, for the search index rebuild, and no other workflow', async () => {
    // Act
    const service = composeService(inMemoryPorts().ports, STEP_FUNCTION_MODULES);
    const rebuilt = await service.system.workflowSteps.runStep({
      workflow: 'search-index-rebuild',
      step: 'rebuild-namespaces',
      runId: 'run-1',
      input: { tenant: 'acme' },
    });

    // Assess
    expect(searchableKindsOf(STEP_FUNCTION_MODULES)).toEqual(searchableKindsOf(CAPABILITIES));
    expect(
      workflowsOf(STEP_FUNCTION_MODULES)
        .map((workflow) => workflow.name)
        .sort(),
    ).toEqual(
      workflowsOf(CAPABILITIES)
        .map((workflow) => workflow.name)
        .sort(),
    );
    expect(rebuilt.counts).toEqual({ namespaces: 0, records: 0, headsRepaired: 0, indexesRebuilt: 0 });
  });
});
