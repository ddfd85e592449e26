/**
 * Multi-step jobs (retention sweep, synthesis, deletion, reassessment) are defined once, here in the core,
 * as a list of steps with their retry and catch policy. CDK builds a Step Functions state machine from the
 * generated `workflows.json` (one task per step, Retry/Catch from the same policy); the local runner
 * executes the same list with the same policy. A test holds the two to one definition.
 */

/** Retry a failed attempt when its error's `name` is listed, `retries` more times, waiting
 * `intervalSeconds × backoffRate^(n-1)` before the n-th retry (Step Functions' own semantics). */
export interface RetryPolicy {
  readonly errors: readonly string[];
  readonly retries: number;
  readonly intervalSeconds: number;
  readonly backoffRate: number;
}

/** Once retries are exhausted (or for errors not retried), errors listed here end the run in the workflow's
 * failure step instead of crashing it. `States.ALL` catches everything. */
export interface CatchPolicy {
  readonly errors: readonly string[];
}

export interface StepPolicy {
  readonly name: string;
  readonly retry: RetryPolicy;
  readonly catch: CatchPolicy;
}

export interface WorkflowPolicy {
  readonly name: string;
  readonly description: string;
  /** An EventBridge Scheduler expression, or null for on-demand only. */
  readonly schedule: string | null;
  readonly steps: readonly StepPolicy[];
  /** The step that records a caught failure; it runs with `{ error, cause, failedStep }`. */
  readonly onFailure: string;
}

/** Errors a step may throw to say "try again": storage or a dependency is briefly unavailable. */
export const TRANSIENT_ERRORS = ['ServiceUnavailableError', 'TransientStepError'] as const;

/** The retry policy most steps share: three more attempts, 2 s, 4 s, 8 s apart. */
export const STANDARD_RETRY: RetryPolicy = {
  errors: [...TRANSIENT_ERRORS],
  retries: 3,
  intervalSeconds: 2,
  backoffRate: 2,
};

export const CATCH_ALL: CatchPolicy = { errors: ['States.ALL'] };
