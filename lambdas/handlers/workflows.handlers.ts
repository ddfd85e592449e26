import { z } from 'zod';
import type { StepInput, WorkflowStepExecutor } from '../core/workflows/workflow-step-executor.ts';

/**
 * The state machine's task payload. A step's input is the previous step's output; after a Catch it also
 * carries `failure: { failedStep, errorCode, cause }` (the cause is Lambda's error JSON: never shown or
 * stored, the run keeps the error class only).
 */
const StepRequest = z
  .object({
    workflow: z.string().min(1),
    step: z.string().min(1),
    runId: z.string().min(1).max(80),
    input: z.object({
      tenant: z.string().nullable().optional(),
      counts: z.record(z.string(), z.number()).optional(),
      failure: z.object({ failedStep: z.string(), errorCode: z.string() }).optional(),
    }),
  })
  .strict();

/** Validates the payload and runs one attempt of the step through the same executor the local runner uses. */
export const runWorkflowStepHandler =
  (executor: WorkflowStepExecutor) =>
  async (payload: unknown): Promise<StepInput> => {
    const { workflow, step, runId, input } = StepRequest.parse(payload);
    return executor.runStep({ workflow, step, runId, input });
  };
