import { DomainError } from '../errors/domain-error.ts';
import type { Clock } from '../time/clock.ts';
import type { WorkflowPolicy } from './workflow-definition.ts';
import type { StepOutcome, WorkflowRun, WorkflowRunStore } from './workflow-run.schema.ts';

/** What every step receives and returns: the run's tenant scope and the counts gathered so far. */
export interface StepInput {
  readonly tenant?: string | null | undefined;
  readonly counts?: Readonly<Record<string, number>> | undefined;
  /** Set for the failure step: which step failed and the error's class. */
  readonly failure?: { readonly failedStep: string; readonly errorCode: string } | undefined;
}

export type StepHandler = (input: StepInput) => Promise<StepInput>;

/** Thrown by a step to ask for a retry under its policy. */
export class TransientStepError extends DomainError {
  readonly code = 'workflow.transient_step_failure';
}

export class UnknownWorkflowStepError extends DomainError {
  readonly code = 'workflow.unknown_step';
}

export interface WorkflowImplementation {
  readonly policy: WorkflowPolicy;
  readonly steps: Readonly<Record<string, StepHandler>>;
}

/**
 * Runs one attempt of one step and records it on the run: the single place step code is called from, by
 * the local runner and by the Step Functions task alike (one invocation per attempt in both).
 */
export class WorkflowStepExecutor {
  readonly #workflows: ReadonlyMap<string, WorkflowImplementation>;
  readonly #runs: WorkflowRunStore;
  readonly #clock: Clock;

  constructor(deps: { workflows: readonly WorkflowImplementation[]; runs: WorkflowRunStore; clock: Clock }) {
    this.#workflows = new Map(deps.workflows.map((workflow) => [workflow.policy.name, workflow]));
    this.#runs = deps.runs;
    this.#clock = deps.clock;
  }

  policyOf(workflow: string): WorkflowPolicy {
    const implementation = this.#workflows.get(workflow);
    if (!implementation) throw new UnknownWorkflowStepError(`Unknown workflow ${workflow}`);
    return implementation.policy;
  }

  async runStep(request: { workflow: string; step: string; runId: string; input: StepInput }): Promise<StepInput> {
    const implementation = this.#workflows.get(request.workflow);
    const handler = implementation?.steps[request.step];
    if (!implementation || !handler)
      throw new UnknownWorkflowStepError(`Unknown step ${request.workflow}/${request.step}`);
    const tenant = request.input.tenant ?? null;
    const run = (await this.#runs.get(tenant, request.runId)) ?? this.#newRun(request, tenant);
    const isFailureStep = request.step === implementation.policy.onFailure;
    const outcome = this.#outcome(run, request.step);
    outcome.attempts += 1;
    outcome.status = 'running';
    try {
      const output = await handler(request.input);
      outcome.status = 'succeeded';
      delete outcome.errorCode;
      const last = implementation.policy.steps.at(-1)?.name === request.step;
      if (isFailureStep) this.#finish(run, 'failed', request.input.failure?.failedStep);
      else if (last) this.#finish(run, 'succeeded');
      if (output.counts) run.result = { ...output.counts };
      await this.#runs.save(run);
      return output;
    } catch (error) {
      outcome.status = 'failed';
      outcome.errorCode = error instanceof Error ? error.name : 'unknown';
      await this.#runs.save(run);
      throw error;
    }
  }

  #newRun(request: { workflow: string; runId: string }, tenant: string | null): WorkflowRun {
    return {
      id: request.runId,
      workflow: request.workflow,
      tenant,
      trigger: tenant === null ? 'schedule' : 'admin',
      status: 'running',
      startedAt: this.#clock.now().toISOString(),
      steps: [],
    };
  }

  #outcome(run: WorkflowRun, step: string): StepOutcome {
    let outcome = run.steps.find((candidate) => candidate.name === step);
    if (!outcome) {
      outcome = { name: step, attempts: 0, status: 'running' };
      run.steps.push(outcome);
    }
    return outcome;
  }

  #finish(run: WorkflowRun, status: 'succeeded' | 'failed', failedStep?: string): void {
    run.status = status;
    run.finishedAt = this.#clock.now().toISOString();
    if (failedStep) run.failedStep = failedStep;
  }
}
