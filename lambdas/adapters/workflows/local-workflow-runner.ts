import { executeWorkflow, type Sleep } from '../../kernel/workflows/workflow-runner.ts';
import type { WorkflowStarter } from '../../kernel/workflows/workflow-service.ts';
import type { StepInput, WorkflowStepExecutor } from '../../kernel/workflows/workflow-step-executor.ts';

const realSleep: Sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Local mode's stand-in for Step Functions: runs a workflow's steps in this process, in the background,
 * with the retry and catch policy the state machine is built from.
 */
export class LocalWorkflowRunner implements WorkflowStarter {
  readonly #executor: WorkflowStepExecutor;
  readonly #sleep: Sleep;
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: { executor: WorkflowStepExecutor; sleep?: Sleep }) {
    this.#executor = options.executor;
    this.#sleep = options.sleep ?? realSleep;
  }

  async start(workflow: string, runId: string, input: StepInput): Promise<void> {
    const policy = this.#executor.policyOf(workflow);
    const execution = executeWorkflow(this.#executor, policy, runId, input, this.#sleep)
      .catch(() => 'failed' as const)
      .finally(() => this.#running.delete(execution));
    this.#running.add(execution);
  }

  /** Resolves once every run started so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }
}
