import { NotFoundError } from '../errors/domain-error.ts';
import { ForbiddenError } from '../identity/identity.errors.ts';
import type { Scope } from '../identity/scope.ts';
import type { Clock } from '../time/clock.ts';
import type { IdGenerator } from '../time/ids.ts';
import type { WorkflowRun, WorkflowRunStore } from './workflow-run.schema.ts';
import type { StepInput } from './workflow-step-executor.ts';

/** Starts an execution of a workflow: a Step Functions state machine in AWS, the local runner locally. */
export interface WorkflowStarter {
  start(workflow: string, runId: string, input: StepInput): Promise<void>;
}

/** Org admins start workflows for their own tenant and read their runs; nobody else can, and no other tenant's. */
export class WorkflowService {
  readonly #starter: WorkflowStarter;
  readonly #runs: WorkflowRunStore;
  readonly #ids: IdGenerator;
  readonly #clock: Clock;
  readonly #workflows: ReadonlySet<string>;

  constructor(deps: {
    starter: WorkflowStarter;
    runs: WorkflowRunStore;
    ids: IdGenerator;
    clock: Clock;
    workflows: readonly string[];
  }) {
    this.#starter = deps.starter;
    this.#runs = deps.runs;
    this.#ids = deps.ids;
    this.#clock = deps.clock;
    this.#workflows = new Set(deps.workflows);
  }

  async start(scope: Scope, workflow: string): Promise<WorkflowRun> {
    requireOrgAdmin(scope);
    if (!this.#workflows.has(workflow)) throw new NotFoundError();
    const run: WorkflowRun = {
      id: this.#ids.next(),
      workflow,
      tenant: scope.tenant,
      trigger: 'admin',
      status: 'running',
      startedAt: this.#clock.now().toISOString(),
      steps: [],
    };
    await this.#runs.save(run);
    await this.#starter.start(workflow, run.id, { tenant: scope.tenant });
    return run;
  }

  async getRun(scope: Scope, runId: string): Promise<WorkflowRun> {
    requireOrgAdmin(scope);
    const run = await this.#runs.get(scope.tenant, runId);
    if (!run) throw new NotFoundError();
    return run;
  }
}

const requireOrgAdmin = (scope: Scope): void => {
  if (!scope.orgAdmin) throw new ForbiddenError('Only an organisation admin may run or inspect workflows');
};
