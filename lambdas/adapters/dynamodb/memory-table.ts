import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';

/**
 * The one table's key design, shared by the adapters and the local engine's table creation. The CDK table
 * construct declares the same names; a test compares the two.
 *
 * - `pk` is the namespace key; `sk` is `R#{recordId}#{revision:010d}` for a revision (the append-only
 *   commit) or `H#{recordId}` for the head projection, `I#{key}` for an idempotency claim.
 * - The per-client throttle's counts sit beside the namespaces, under `pk` `client-quota#{client_id}` and `sk`
 *   `W#{window start}` (dynamodb-client-quota-ledger.ts); no namespace key starts that way.
 * - Outbox markers sit under `pk` `outbox#{shard}` and `sk` `{occurred_at}#{event_id}`, one per event not yet
 *   published, naming their revision (dynamodb-outbox.ts); no namespace key starts that way either.
 * - `ttl` (epoch seconds) lets DynamoDB delete expired items late; reads filter on `expiresAt` themselves.
 * - No secondary index: every read is by partition.
 */
export const MemoryTableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  outboxShards: 4,
} as const;

export const createMemoryTableInput = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: MemoryTableSchema.partitionKey, AttributeType: 'S' },
    { AttributeName: MemoryTableSchema.sortKey, AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: MemoryTableSchema.partitionKey, KeyType: 'HASH' },
    { AttributeName: MemoryTableSchema.sortKey, KeyType: 'RANGE' },
  ],
});

const TABLE_ACTIVE_TIMEOUT_MS = 10_000;

/**
 * Creates a table on the local engine if it is not there yet (the first local start), and returns once it is
 * ACTIVE: the engine answers "not found" to requests on a table it is still creating.
 */
export const ensureTable = async (client: DynamoDBClient, input: CreateTableCommandInput): Promise<void> => {
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const deadline = Date.now() + TABLE_ACTIVE_TIMEOUT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`The table ${input.TableName} did not become active`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** The memory table on the local engine, created on first use. */
export const ensureMemoryTable = (client: DynamoDBClient, tableName: string): Promise<void> =>
  ensureTable(client, createMemoryTableInput(tableName));

/** The `ttl` value for an instant: epoch seconds, rounded up so DynamoDB never deletes an item early. */
export const ttlEpochSeconds = (epochMilliseconds: number): number => Math.ceil(epochMilliseconds / 1000);
