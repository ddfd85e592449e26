import {
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoDbClient } from '../../lambdas/adapters/dynamodb/dynamodb-client.ts';
import { ensureMemoryTable } from '../../lambdas/adapters/dynamodb/memory-table.ts';
import { startEmbeddedDynamoDb } from '../../lambdas/local/embedded-dynamodb.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';

/**
 * The SDK client reaches the embedded engine two ways: over its in-process channel (what the local server
 * uses) and over loopback HTTP (what any other tool would use). Both must behave as the same DynamoDB.
 */
describe.each(['channel', 'http'] as const)('the embedded engine over %s', (transport) => {
  let table: EmbeddedTable;
  beforeAll(async () => {
    table = await startEmbeddedTable(transport);
  });
  afterAll(() => table.close());

  const put = (sk: string, body: string, condition?: string) =>
    table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { pk: { S: 'p' }, sk: { S: sk }, body: { S: body }, bytes: { B: new Uint8Array([0, 1, 255]) } },
        ...(condition && { ConditionExpression: condition }),
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );

  it('writes and reads back items byte for byte, multi-byte text and binaries included', async () => {
    const body = `Grüße 🚀 ${'x'.repeat(100_000)}`;
    const written = await put('a', body);
    expect(written.ConsumedCapacity?.CapacityUnits).toBeGreaterThan(0);
    const read = await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'p' }, sk: { S: 'a' } }, ConsistentRead: true }),
    );
    expect(read.Item?.body?.S).toBe(body);
    expect(read.Item?.bytes?.B).toEqual(new Uint8Array([0, 1, 255]));
  });

  it('answers a failed condition with the SDK exception a writer relies on', async () => {
    await put('b', 'first', 'attribute_not_exists(pk)');
    await expect(put('b', 'second', 'attribute_not_exists(pk)')).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
  });

  it('answers an invalid request with the engine validation error', async () => {
    await expect(
      table.client.send(new QueryCommand({ TableName: table.tableName, KeyConditionExpression: 'nope = :x' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('serves concurrent requests each with its own answer', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, index) => put(`c${String(index).padStart(2, '0')}`, `v${index}`)));
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :c)',
        ExpressionAttributeValues: { ':p': { S: 'p' }, ':c': { S: 'c' } },
      }),
    );
    expect(page.Items?.map((item) => item.body?.S)).toEqual(Array.from({ length: 40 }, (_, index) => `v${index}`));
  });
});

describe('Function: ensureMemoryTable', () => {
  it('returns only once the new table answers (the engine refuses requests while it is still creating one)', async () => {
    const engine = await startEmbeddedDynamoDb();
    const client = localDynamoDbClient(engine);
    try {
      for (let attempt = 0; attempt < 10; attempt++) {
        const tableName = `memory-fresh-${attempt}`;
        await ensureMemoryTable(client, tableName);
        await client.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'p' }, sk: { S: 's' } } }));
      }
    } finally {
      client.destroy();
      await engine.close();
    }
  });
});

describe('the in-process channel when the engine has stopped', () => {
  it('refuses requests with a clear error instead of leaving them waiting', async () => {
    const engine = await startEmbeddedDynamoDb();
    const client = localDynamoDbClient(engine);
    await engine.close();
    await expect(
      client.send(new GetItemCommand({ TableName: 'memory-test', Key: { pk: { S: 'p' }, sk: { S: 's' } } })),
    ).rejects.toThrow(/embedded DynamoDB engine has stopped|channel is closed/);
    client.destroy();
  });
});
