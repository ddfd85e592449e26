import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../lambdas/app/capabilities.ts';
import { WORKFLOW_MODULES } from '../../../lambdas/app/workflow-modules.ts';

describe('Module: workflow-modules', () => {
  it('lists exactly the capabilities that declare a workflow, so the step function runs every workflow', () => {
    // Prepare
    const declaring = CAPABILITIES.filter((module) => (module.workflows ?? []).length > 0);

    // Assess
    expect(new Set(WORKFLOW_MODULES)).toEqual(new Set(declaring));
    expect(WORKFLOW_MODULES).toHaveLength(declaring.length);
  });
});
