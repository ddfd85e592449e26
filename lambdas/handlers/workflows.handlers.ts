import { z } from 'zod';
import type { StepInput, WorkflowStepExecutor } from '../core/workflows/workflow-step-executor.ts';

const StepRequest = z
  .object({
    workflow: z.string().min(1),
    step: z.string().min(1),
    runId: z.string().min(1).max(80),
    input: z
      .object({
        tenant: z.string().nullable().optional(),
        counts: z.record(z.string(), z.number()).optional(),
        failure: z.object({ failedStep: z.string(), errorCode: z.string() }).optional(),
        // What a Catch hands the failure step: Step Functions' `{ Error, Cause }`.
        error: z.object({ Error: z.string(), Cause: z.string().optional() }).optional(),
      })
      .passthrough(),
  })
  .strict();

/** Validates the state machine's payload, turns a caught error into the failure step's input, runs the step. */
export const runWorkflowStepHandler =
  (executor: WorkflowStepExecutor) =>
  async (payload: unknown): Promise<StepInput> => {
    const request = StepRequest.parse(payload);
    const { error, failedStep, ...rest } = request.input as typeof request.input & { failedStep?: string };
    const input: StepInput = {
      tenant: rest.tenant,
      counts: rest.counts,
      failure:
        rest.failure ?? (error ? { failedStep: String(failedStep ?? 'unknown'), errorCode: error.Error } : undefined),
    };
    return executor.runStep({ workflow: request.workflow, step: request.step, runId: request.runId, input });
  };
