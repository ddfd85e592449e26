import type { WorkflowPolicy } from './workflow-definition.ts';
import type { StepInput, WorkflowStepExecutor } from './workflow-step-executor.ts';

export type Sleep = (milliseconds: number) => Promise<void>;

/** Whether `errors` (a policy's list) covers an error, with Step Functions' `States.ALL` wildcard. */
export const policyCovers = (errors: readonly string[], error: unknown): boolean =>
  errors.includes('States.ALL') || (error instanceof Error && errors.includes(error.name));

/**
 * Executes a workflow's step list the way its Step Functions state machine does: steps in order, each
 * attempt through the executor, retried per the step's policy with the same intervals and backoff, and a
 * caught failure handed to the workflow's failure step. Used by the local runner.
 */
export const executeWorkflow = async (
  executor: WorkflowStepExecutor,
  policy: WorkflowPolicy,
  runId: string,
  input: StepInput,
  sleep: Sleep,
): Promise<'succeeded' | 'failed'> => {
  let current = input;
  for (const step of policy.steps) {
    for (let attempt = 0; ; attempt++) {
      try {
        current = await executor.runStep({ workflow: policy.name, step: step.name, runId, input: current });
        break;
      } catch (error) {
        if (attempt < step.retry.retries && policyCovers(step.retry.errors, error)) {
          await sleep(step.retry.intervalSeconds * 1000 * step.retry.backoffRate ** attempt);
          continue;
        }
        if (!policyCovers(step.catch.errors, error)) throw error;
        const failure = { failedStep: step.name, errorCode: error instanceof Error ? error.name : 'unknown' };
        await executor.runStep({
          workflow: policy.name,
          step: policy.onFailure,
          runId,
          input: { ...current, failure },
        });
        return 'failed';
      }
    }
  }
  return 'succeeded';
};
