import { CATCH_ALL, STANDARD_RETRY, type WorkflowPolicy } from './workflow-definition.ts';

/** Expired records get a tombstone; revisions and events past their horizon are purged; the run reports counts. */
export const RETENTION_SWEEP: WorkflowPolicy = {
  name: 'retention-sweep',
  description: 'Tombstones expired records and purges revisions and events past their retention horizon',
  schedule: 'rate(1 day)',
  steps: [
    { name: 'tombstone-expired-records', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'purge-past-horizon', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'report', retry: STANDARD_RETRY, catch: CATCH_ALL },
  ],
  onFailure: 'record-failure',
};

/**
 * Beliefs no event touches are evaluated again at the current instant, so that they decay and expire on time;
 * a belief whose evaluation changes gets one more revision, the others none.
 */
export const BELIEF_SYNTHESIS: WorkflowPolicy = {
  name: 'belief-synthesis',
  description:
    'Re-evaluates stored beliefs through the maturation gate so that unconfirmed ones decay to provisional and expire',
  schedule: 'rate(1 day)',
  steps: [
    { name: 'evaluate-beliefs', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'report', retry: STANDARD_RETRY, catch: CATCH_ALL },
  ],
  onFailure: 'record-failure',
};

/** Every workflow, in the order `workflows.json` lists them. */
export const WORKFLOWS: readonly WorkflowPolicy[] = [RETENTION_SWEEP, BELIEF_SYNTHESIS];

export const WORKFLOWS_DOCUMENT_PATH = 'lambdas/core/workflows/workflows.json';

/** The data CDK builds state machines from (lib/ reads it; it never imports runtime code). */
export const workflowsDocument = () => ({ version: 1, workflows: WORKFLOWS });
