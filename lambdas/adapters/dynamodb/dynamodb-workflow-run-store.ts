import type { Clock } from '../../kernel/time/clock.ts';
import { WorkflowRun, type WorkflowRunStore } from '../../kernel/workflows/workflow-run.schema.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import { type MemoryTableClient, parseJsonAttribute } from './memory-table-client.ts';

const RETENTION_MS = 90 * 86_400_000;

/** Workflow runs as items of the memory table, one partition per tenant (`*` for scheduled runs); kept 90 days. */
export class DynamoDbWorkflowRunStore implements WorkflowRunStore {
  readonly #table: MemoryTableClient;
  readonly #clock: Clock;

  constructor(options: { table: MemoryTableClient; clock: Clock }) {
    this.#table = options.table;
    this.#clock = options.clock;
  }

  async save(run: WorkflowRun): Promise<void> {
    await this.#table.put({
      ...keyOf(run.tenant, run.id),
      run: JSON.stringify(WorkflowRun.parse(run)),
      ttl: ttlEpochSeconds(this.#clock.now().getTime() + RETENTION_MS),
    });
  }

  async get(tenant: string | null, runId: string): Promise<WorkflowRun | undefined> {
    const item = await this.#table.get(keyOf(tenant, runId));
    return typeof item?.run === 'string' ? parseJsonAttribute(item.run, WorkflowRun) : undefined;
  }
}

const keyOf = (tenant: string | null, runId: string) => ({ pk: `workflow-runs#${tenant ?? '*'}`, sk: `R#${runId}` });
