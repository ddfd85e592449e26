import * as z from 'zod';

export const StepOutcome = z
  .object({
    name: z.string(),
    attempts: z.number().int().nonnegative(),
    status: z.enum(['running', 'succeeded', 'failed']),
    /** The last failure's error class; never its message. */
    errorCode: z.string().optional(),
  })
  .strict();
export type StepOutcome = z.infer<typeof StepOutcome>;

/** One execution of a workflow: which steps ran, how many attempts each took, and how it ended. */
export const WorkflowRun = z
  .object({
    id: z.string(),
    workflow: z.string(),
    /** The tenant an admin started it for; null for a scheduled run across all tenants. */
    tenant: z.string().nullable(),
    trigger: z.enum(['schedule', 'admin']),
    status: z.enum(['running', 'succeeded', 'failed']),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().optional(),
    steps: z.array(StepOutcome),
    /** Counts the run reports (e.g. records tombstoned); never identifiers or content. */
    result: z.record(z.string(), z.number()).optional(),
    failedStep: z.string().optional(),
  })
  .strict()
  .meta({ id: 'WorkflowRun' });
export type WorkflowRun = z.infer<typeof WorkflowRun>;

/** Where runs are recorded, by the local runner and by the step function alike. */
export interface WorkflowRunStore {
  save(run: WorkflowRun): Promise<void>;
  get(tenant: string | null, runId: string): Promise<WorkflowRun | undefined>;
}
