import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterEach, describe, expect, it } from 'vitest';
import { localDynamoDbClient } from '../../lambdas/adapters/dynamodb/dynamodb-client.ts';
import { ensureMemoryTable, MemoryTableSchema } from '../../lambdas/adapters/dynamodb/memory-table.ts';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../lambdas/local/embedded-dynamodb.ts';
import { type EngineDispatch, EngineJournal } from '../../lambdas/local/engine-journal.ts';

/**
 * The embedded engine keeps its tables in memory and journals every applied change to disk; a start replays
 * the journal. What was answered must survive a restart exactly, and nothing refused may appear after one.
 */
const TABLE = 'journal-test';
const folders: string[] = [];
const engines: EmbeddedDynamoDb[] = [];

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const newFolder = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'memory-hub-engine-'));
  folders.push(folder);
  return folder;
};

const open = async (folder: string, transport: 'channel' | 'http' = 'channel') => {
  const engine = await startEmbeddedDynamoDb(folder);
  engines.push(engine);
  const client = localDynamoDbClient(transport === 'channel' ? engine : { endpoint: engine.endpoint });
  await ensureMemoryTable(client, TABLE);
  return { engine, client };
};

const closeEngine = async (engine: EmbeddedDynamoDb) => {
  engines.splice(engines.indexOf(engine), 1);
  await engine.close();
};

const put = (client: DynamoDBClient, sk: string, text: string, extra: Record<string, { S: string }> = {}) =>
  client.send(
    new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'p' }, sk: { S: sk }, text: { S: text }, ...extra } }),
  );

const read = async (client: DynamoDBClient, sk: string) =>
  (await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'p' }, sk: { S: sk } } }))).Item;

const journalLines = async (folder: string) =>
  (await readFile(join(folder, 'journal.jsonl'), 'utf8')).split('\n').filter((line) => line.length > 0);

describe('the embedded engine journal', () => {
  it('brings back after a restart every answered change, indexes included, over the channel and over HTTP', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    const overHttp = localDynamoDbClient({ endpoint: first.engine.endpoint });
    await put(first.client, 'a', 'Grüße 🚀\nline two');
    await put(overHttp, 'b', 'written over loopback HTTP');
    await first.client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: { S: 'p' }, sk: { S: 'a' } },
        UpdateExpression: 'SET #text = :text, #shard = :shard, #at = :at',
        ExpressionAttributeNames: {
          '#text': 'text',
          '#shard': MemoryTableSchema.outboxIndex.partitionKey,
          '#at': MemoryTableSchema.outboxIndex.sortKey,
        },
        ExpressionAttributeValues: { ':text': { S: 'revised' }, ':shard': { S: 'shard-1' }, ':at': { S: 't1' } },
      }),
    );
    overHttp.destroy();
    await closeEngine(first.engine);

    const second = await open(folder);
    expect((await read(second.client, 'a'))?.text?.S).toBe('revised');
    expect((await read(second.client, 'b'))?.text?.S).toBe('written over loopback HTTP');
    const outbox = await second.client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: MemoryTableSchema.outboxIndex.name,
        KeyConditionExpression: '#shard = :shard',
        ExpressionAttributeNames: { '#shard': MemoryTableSchema.outboxIndex.partitionKey },
        ExpressionAttributeValues: { ':shard': { S: 'shard-1' } },
      }),
    );
    expect(outbox.Items?.map((item) => item.sk?.S)).toEqual(['a']);
  });

  it('records no refused change: a failed condition leaves the journal and the restarted state as they were', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    await put(first.client, 'a', 'original');
    const before = await journalLines(folder);
    await expect(
      first.client.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: { pk: { S: 'p' }, sk: { S: 'a' }, text: { S: 'intruder' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await read(first.client, 'a');
    expect(await journalLines(folder)).toEqual(before);
    await closeEngine(first.engine);
    const second = await open(folder);
    expect((await read(second.client, 'a'))?.text?.S).toBe('original');
  });

  it('drops a last entry cut short by a crash and keeps everything before it', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    await put(first.client, 'a', 'kept');
    await closeEngine(first.engine);
    await appendFile(join(folder, 'journal.jsonl'), '{"t":"DynamoDB_20120810.PutItem","b":{"TableName":"jour');

    const second = await open(folder);
    expect((await read(second.client, 'a'))?.text?.S).toBe('kept');
    await put(second.client, 'b', 'after the repair');
    await closeEngine(second.engine);
    const third = await open(folder);
    expect((await read(third.client, 'b'))?.text?.S).toBe('after the repair');
    expect((await readFile(join(folder, 'journal.jsonl'), 'utf8')).endsWith('\n')).toBe(true);
  });

  it('refuses to start on a damaged entry before the last, naming the line, and leaves the journal untouched', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    await put(first.client, 'a', 'one');
    await put(first.client, 'b', 'two');
    await closeEngine(first.engine);
    const lines = await journalLines(folder);
    lines[lines.length - 2] = 'not json';
    const damaged = `${lines.join('\n')}\n`;
    await writeFile(join(folder, 'journal.jsonl'), damaged);

    await expect(startEmbeddedDynamoDb(folder)).rejects.toThrow(
      new RegExp(`line ${lines.length - 1}: the entry is not JSON`),
    );
    expect(await readFile(join(folder, 'journal.jsonl'), 'utf8')).toBe(damaged);
  });

  it('moves a LevelDB store of an earlier version into the journal and keeps its files aside', async () => {
    const folder = await newFolder();
    const legacy = dynalite({ path: folder, createTableMs: 0 });
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', () => resolve()));
    const legacyClient = localDynamoDbClient({
      endpoint: `http://127.0.0.1:${(legacy.address() as AddressInfo).port}`,
    });
    await ensureMemoryTable(legacyClient, TABLE);
    await put(legacyClient, 'a', 'from LevelDB', {
      [MemoryTableSchema.outboxIndex.partitionKey]: { S: 'shard-1' },
      [MemoryTableSchema.outboxIndex.sortKey]: { S: 't1' },
    });
    legacyClient.destroy();
    await closeDynalite(legacy);

    const { client } = await open(folder);
    expect((await read(client, 'a'))?.text?.S).toBe('from LevelDB');
    const outbox = await client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: MemoryTableSchema.outboxIndex.name,
        KeyConditionExpression: '#shard = :shard',
        ExpressionAttributeNames: { '#shard': MemoryTableSchema.outboxIndex.partitionKey },
        ExpressionAttributeValues: { ':shard': { S: 'shard-1' } },
      }),
    );
    expect(outbox.Items).toHaveLength(1);
    expect((await readdir(folder)).sort()).toEqual(['journal.jsonl', 'legacy-leveldb']);
    expect(await readdir(join(folder, 'legacy-leveldb'))).toContain('CURRENT');
  });
});

describe('EngineJournal', () => {
  let engine: Server | undefined;
  afterEach(async () => {
    if (engine) await closeDynalite(engine);
    engine = undefined;
  });

  /** A fresh in-memory engine on loopback HTTP, and a dispatch to it. */
  const freshEngine = async (): Promise<EngineDispatch> => {
    engine = dynalite({ createTableMs: 0 });
    await new Promise<void>((resolve) => engine?.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    return async (target, body) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': target,
          authorization:
            'AWS4-HMAC-SHA256 Credential=a/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
          'x-amz-date': '20260101T000000Z',
        },
        body,
      });
      return { statusCode: response.status, body: await response.text() };
    };
  };

  it('is rewritten at start once it holds many more changes than items, and the state is the same after', async () => {
    const folder = await newFolder();
    const file = join(folder, 'journal.jsonl');
    let dispatch = await freshEngine();
    const journal = await EngineJournal.open(file, dispatch, { compactionSlackEntries: 5 });
    const change = async (target: string, input: unknown) => {
      const body = JSON.stringify(input);
      const answer = await dispatch(`DynamoDB_20120810.${target}`, body);
      expect(answer.statusCode).toBe(200);
      journal.record(`DynamoDB_20120810.${target}`, body);
    };
    await change('CreateTable', {
      TableName: 'things',
      AttributeDefinitions: [{ AttributeName: 'k', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'k', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let version = 1; version <= 20; version++) {
      await change('PutItem', { TableName: 'things', Item: { k: { S: 'one' }, v: { N: String(version) } } });
    }
    await change('PutItem', { TableName: 'things', Item: { k: { S: 'two' }, v: { N: '1' } } });
    journal.close();
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1 + 1 + 21);
    await closeDynalite(engine as Server);

    dispatch = await freshEngine();
    (await EngineJournal.open(file, dispatch, { compactionSlackEntries: 5 })).close();
    // Header, the table, and one put per item.
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1 + 1 + 2);
    const got = await dispatch(
      'DynamoDB_20120810.GetItem',
      JSON.stringify({ TableName: 'things', Key: { k: { S: 'one' } } }),
    );
    expect(JSON.parse(got.body).Item.v.N).toBe('20');
    await closeDynalite(engine as Server);

    dispatch = await freshEngine();
    (await EngineJournal.open(file, dispatch, { compactionSlackEntries: 5 })).close();
    const scan = await dispatch('DynamoDB_20120810.Scan', JSON.stringify({ TableName: 'things' }));
    expect(
      JSON.parse(scan.body)
        .Items.map((item: { k: { S: string }; v: { N: string } }) => [item.k.S, item.v.N])
        .sort(),
    ).toEqual([
      ['one', '20'],
      ['two', '1'],
    ]);
  });
});

const closeDynalite = (server: Server) =>
  new Promise<void>((resolve, reject) => server.close((error?: Error) => (error ? reject(error) : resolve())));
