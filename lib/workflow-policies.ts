/**
 * Reads the workflow policies out of the generated `lambdas/generated/workflows.json`.
 *
 * The workflows are defined once, in the core, as step lists with retry and catch policies; the CDK app
 * must not import that runtime code, so it reads the generated JSON and validates everything it builds a
 * state machine from, refusing what Step Functions would refuse at deployment.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';

/** Step Functions' wildcard error name: it must stand alone in its list. */
export const ALL_ERRORS = 'States.ALL';

/** Names end up in state names and in state machine names (`memory-hub-{stage}-{workflow}`, ≤ 80 characters). */
const Name = z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, 'must be lower-case kebab-case, at most 48 characters');

const ErrorNames = z
  .array(z.string().min(1))
  .refine((errors) => !errors.includes(ALL_ERRORS) || errors.length === 1, `${ALL_ERRORS} must stand alone`);

/** Step Functions' bounds: `MaxAttempts` ≥ 0, `IntervalSeconds` ≥ 1, `BackoffRate` ≥ 1 (MaxAttempts counts retries). */
export const RetryPolicy = z
  .object({
    errors: ErrorNames,
    retries: z.number().int().min(0).max(99_999_999),
    intervalSeconds: z.number().int().min(1).max(99_999_999),
    backoffRate: z.number().min(1),
  })
  .strict();
export type RetryPolicy = z.infer<typeof RetryPolicy>;

export const CatchPolicy = z.object({ errors: ErrorNames }).strict();
export type CatchPolicy = z.infer<typeof CatchPolicy>;

export const StepPolicy = z.object({ name: Name, retry: RetryPolicy, catch: CatchPolicy }).strict();
export type StepPolicy = z.infer<typeof StepPolicy>;

export const WorkflowPolicy = z
  .object({
    name: Name,
    description: z.string().max(256),
    /** An EventBridge Scheduler expression, or null for on-demand only. */
    schedule: z
      .string()
      .regex(/^(rate|cron|at)\(.+\)$/, 'must be a Scheduler expression: rate(…), cron(…) or at(…)')
      .nullable(),
    steps: z.array(StepPolicy).min(1),
    /** The step that records a caught failure. */
    onFailure: Name,
  })
  .strict()
  .superRefine((workflow, context) => {
    const names = workflow.steps.map((step) => step.name);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) context.addIssue({ code: 'custom', message: `step "${duplicate}" appears twice` });
    if (names.includes(workflow.onFailure)) {
      context.addIssue({ code: 'custom', message: `onFailure "${workflow.onFailure}" must not also be a step` });
    }
  });
export type WorkflowPolicy = z.infer<typeof WorkflowPolicy>;

export const WorkflowsDocument = z
  .object({
    version: z.literal(1),
    workflows: z.array(WorkflowPolicy),
  })
  .superRefine((document, context) => {
    const names = document.workflows.map((workflow) => workflow.name);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) context.addIssue({ code: 'custom', message: `workflow "${duplicate}" appears twice` });
  });
export type WorkflowsDocument = z.infer<typeof WorkflowsDocument>;

/** Parses a workflows document; throws with every problem found. */
export function readWorkflowsDocument(document: unknown, source = 'The workflows document'): WorkflowsDocument {
  const parsed = WorkflowsDocument.safeParse(document);
  if (!parsed.success) throw new Error(`${source} cannot be deployed: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function loadWorkflowsDocument(path: string): WorkflowsDocument {
  return readWorkflowsDocument(JSON.parse(readFileSync(path, 'utf8')), path);
}
