import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../kernel/time/clock.ts';
import { WorkflowRun, type WorkflowRunStore } from '../../kernel/workflows/workflow-run.schema.ts';
import { translateAwsError } from '../aws-service-errors.ts';
import { ttlAttribute } from './memory-table.ts';

const RETENTION_MS = 90 * 86_400_000;

/** Workflow runs as items of the memory table, one partition per tenant (`*` for scheduled runs); kept 90 days. */
export class DynamoDbWorkflowRunStore implements WorkflowRunStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #clock: Clock;

  constructor(options: { client: DynamoDBClient; tableName: string; clock: Clock }) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#clock = options.clock;
  }

  async save(run: WorkflowRun): Promise<void> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: {
            ...keyOf(run.tenant, run.id),
            run: { S: JSON.stringify(WorkflowRun.parse(run)) },
            ttl: ttlAttribute(this.#clock.now().getTime() + RETENTION_MS),
          },
        }),
      );
    } catch (error) {
      throw translateAwsError(error);
    }
  }

  async get(tenant: string | null, runId: string): Promise<WorkflowRun | undefined> {
    try {
      const output = await this.#client.send(
        new GetItemCommand({ TableName: this.#table, Key: keyOf(tenant, runId), ConsistentRead: true }),
      );
      return output.Item?.run?.S ? WorkflowRun.parse(JSON.parse(output.Item.run.S)) : undefined;
    } catch (error) {
      throw translateAwsError(error);
    }
  }
}

const keyOf = (tenant: string | null, runId: string) => ({
  pk: { S: `workflow-runs#${tenant ?? '*'}` },
  sk: { S: `R#${runId}` },
});
