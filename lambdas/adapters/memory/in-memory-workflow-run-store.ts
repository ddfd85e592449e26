import { WorkflowRun, type WorkflowRunStore } from '../../kernel/workflows/workflow-run.schema.ts';

/** Test double of the workflow run store. */
export class InMemoryWorkflowRunStore implements WorkflowRunStore {
  readonly #runs = new Map<string, WorkflowRun>();

  async save(run: WorkflowRun): Promise<void> {
    this.#runs.set(`${run.tenant ?? '*'}#${run.id}`, WorkflowRun.parse(structuredClone(run)));
  }

  async get(tenant: string | null, runId: string): Promise<WorkflowRun | undefined> {
    const run = this.#runs.get(`${tenant ?? '*'}#${runId}`);
    return run && structuredClone(run);
  }
}
