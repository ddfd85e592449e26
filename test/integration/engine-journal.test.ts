import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  CreateTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterEach, describe, expect, it } from 'vitest';
import { localDynamoDbClient } from '../../lambdas/adapters/dynamodb/dynamodb-client.ts';
import { createMemoryTableInput, ensureTable } from '../../lambdas/adapters/dynamodb/memory-table.ts';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../lambdas/local/embedded-dynamodb.ts';
import { type EngineDispatch, EngineJournal, type JournalOptions } from '../../lambdas/local/engine-journal.ts';

/**
 * The embedded engine keeps its tables in memory and journals every applied change to disk; a start replays
 * the journal. What was answered must survive a restart exactly, and nothing refused may appear after one.
 */
const TABLE = 'journal-test';
/** The memory table's keys with a sparse secondary index, so that the journal is seen to rebuild indexes too. */
const SHARD_INDEX = { name: 'by-shard', partitionKey: 'shard', sortKey: 'at' } as const;
const TABLE_INPUT = {
  ...createMemoryTableInput(TABLE),
  AttributeDefinitions: [
    ...(createMemoryTableInput(TABLE).AttributeDefinitions ?? []),
    { AttributeName: SHARD_INDEX.partitionKey, AttributeType: 'S' as const },
    { AttributeName: SHARD_INDEX.sortKey, AttributeType: 'S' as const },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: SHARD_INDEX.name,
      KeySchema: [
        { AttributeName: SHARD_INDEX.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: SHARD_INDEX.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' as const },
    },
  ],
};
const ensureJournalTable = (client: DynamoDBClient) => ensureTable(client, TABLE_INPUT);
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
  await ensureJournalTable(client);
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

/** The items of one shard of the index (it survives a restart like the table). */
const outboxShard = (client: DynamoDBClient, shard: string) =>
  client.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: SHARD_INDEX.name,
      KeyConditionExpression: '#shard = :shard',
      ExpressionAttributeNames: { '#shard': SHARD_INDEX.partitionKey },
      ExpressionAttributeValues: { ':shard': { S: shard } },
    }),
  );

/** dynalite persisting in LevelDB at `folder`, as an earlier version ran it, with a client on its port. */
const startLegacyLevelDb = async (folder: string, createTableMs = 0) => {
  const legacy = dynalite({ path: folder, createTableMs });
  await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', () => resolve()));
  const client = localDynamoDbClient({ endpoint: `http://127.0.0.1:${(legacy.address() as AddressInfo).port}` });
  return {
    client,
    close: async () => {
      client.destroy();
      await closeDynalite(legacy);
    },
  };
};

/** What the engine wants besides the target: the JSON content type and a SigV4-shaped header it does not check. */
const ENGINE_HEADERS = {
  'content-type': 'application/x-amz-json-1.0',
  authorization: 'AWS4-HMAC-SHA256 Credential=a/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  'x-amz-date': '20260101T000000Z',
};

const journalLines = async (folder: string) =>
  (await readFile(join(folder, 'journal.jsonl'), 'utf8')).split('\n').filter((line) => line.length > 0);

describe('the embedded engine journal', () => {
  it('brings back after a restart every answered change, indexes included, over the channel and over HTTP', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    const overHttp = localDynamoDbClient({ endpoint: first.engine.endpoint });
    await put(first.client, 'a', 'Grüße 🚀\nline two');
    await put(overHttp, 'b', 'written over loopback HTTP');
    // A tool may send its request pretty-printed: the journal still holds it on one line.
    const pretty = await rawRequest(
      first.engine,
      'POST',
      'PutItem',
      {
        TableName: TABLE,
        Item: { pk: { S: 'p' }, sk: { S: 'c' }, text: { S: 'pretty' } },
      },
      2,
    );
    expect(pretty.status).toBe(200);
    await first.client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: { S: 'p' }, sk: { S: 'a' } },
        UpdateExpression: 'SET #text = :text, #shard = :shard, #at = :at',
        ExpressionAttributeNames: {
          '#text': 'text',
          '#shard': SHARD_INDEX.partitionKey,
          '#at': SHARD_INDEX.sortKey,
        },
        ExpressionAttributeValues: { ':text': { S: 'revised' }, ':shard': { S: 'shard-1' }, ':at': { S: 't1' } },
      }),
    );
    overHttp.destroy();
    await closeEngine(first.engine);

    const second = await open(folder);
    expect((await read(second.client, 'a'))?.text?.S).toBe('revised');
    expect((await read(second.client, 'b'))?.text?.S).toBe('written over loopback HTTP');
    expect((await read(second.client, 'c'))?.text?.S).toBe('pretty');
    const outbox = await outboxShard(second.client, 'shard-1');
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
    const whole = await stat(join(folder, 'journal.jsonl'));
    // Cut inside a multi-byte character, as a crash may.
    await appendFile(
      join(folder, 'journal.jsonl'),
      Buffer.from('{"t":"DynamoDB_20120810.PutItem","b":{"TableName":"Grüße 🚀').subarray(0, 60),
    );

    const second = await open(folder);
    expect((await read(second.client, 'a'))?.text?.S).toBe('kept');
    expect((await stat(join(folder, 'journal.jsonl'))).size).toBe(whole.size);
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

  it('refuses to start on an empty or headerless journal and leaves it untouched; a header alone is an empty engine', async () => {
    const folder = await newFolder();
    const file = join(folder, 'journal.jsonl');
    for (const content of ['', '{"t":"DynamoDB_20120810.PutItem","b":{}}\n', 'garbage without a newline']) {
      await writeFile(file, content);
      await expect(startEmbeddedDynamoDb(folder)).rejects.toThrow(/line 1: it does not start with the journal header/);
      expect(await readFile(file, 'utf8')).toBe(content);
    }
    await writeFile(file, '{"journal":"memory-hub-embedded-dynamodb","version":1}\n');
    const { client } = await open(folder);
    expect(await read(client, 'a')).toBeUndefined();
  });

  it('replays concurrent single-item and batch writes to the values they left', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    const increment = (sk: string) =>
      first.client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: { S: 'p' }, sk: { S: sk } },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      );
    // A batch applies its items one by one and is answered after the last: while it waits for 'y', writes
    // of 'x' queued behind its own must not be answered (and journaled) ahead of it.
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 30; round++) {
      writes.push(increment('y'), increment('y'), increment('x'));
      if (round % 3 === 0)
        writes.push(
          first.client.send(
            new BatchWriteItemCommand({
              RequestItems: {
                [TABLE]: [
                  { PutRequest: { Item: { pk: { S: 'p' }, sk: { S: 'x' }, n: { N: String(1000 * round) } } } },
                  { PutRequest: { Item: { pk: { S: 'p' }, sk: { S: 'y' }, n: { N: String(1000 * round) } } } },
                ],
              },
            }),
          ),
        );
      writes.push(increment('x'));
    }
    await Promise.all(writes);
    const live = [(await read(first.client, 'x'))?.n?.N, (await read(first.client, 'y'))?.n?.N];
    await closeEngine(first.engine);
    const second = await open(folder);
    expect([(await read(second.client, 'x'))?.n?.N, (await read(second.client, 'y'))?.n?.N]).toEqual(live);
  });

  it('journals no GET or OPTIONS, whatever target header they carry', async () => {
    const folder = await newFolder();
    const { engine, client } = await open(folder);
    await put(client, 'a', 'stays');
    const before = await journalLines(folder);
    const deleteTable = { TableName: TABLE };
    expect((await rawRequest(engine, 'GET', 'DeleteTable', deleteTable)).status).toBe(200);
    await rawRequest(engine, 'OPTIONS', 'DeleteTable', deleteTable, 0, { origin: 'http://tool.local' });
    expect(await journalLines(folder)).toEqual(before);
    await closeEngine(engine);
    const second = await open(folder);
    expect((await read(second.client, 'a'))?.text?.S).toBe('stays');
  });

  it('closes with changes in flight and leaves a journal that replays, holding every change answered before', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    for (let index = 0; index < 20; index++) await put(first.client, `answered${index}`, `v${index}`);
    const inFlight = Array.from({ length: 40 }, (_, index) =>
      put(first.client, `in-flight${index}`, `v${index}`).then(
        () => 'answered',
        () => 'refused',
      ),
    );
    await closeEngine(first.engine);
    const outcomes = await Promise.all(inFlight);
    const second = await open(folder);
    for (let index = 0; index < 20; index++)
      expect((await read(second.client, `answered${index}`))?.text?.S).toBe(`v${index}`);
    // Unanswered writes may or may not have been applied; whichever, the item is whole.
    for (const [index, outcome] of outcomes.entries()) {
      const item = await read(second.client, `in-flight${index}`);
      if (outcome === 'answered' || item) expect(item?.text?.S).toBe(`v${index}`);
    }
  });

  it('moves a LevelDB store of an earlier version into the journal and keeps its files aside', async () => {
    const folder = await newFolder();
    const legacy = await startLegacyLevelDb(folder);
    await ensureJournalTable(legacy.client);
    await put(legacy.client, 'a', 'from LevelDB', {
      [SHARD_INDEX.partitionKey]: { S: 'shard-1' },
      [SHARD_INDEX.sortKey]: { S: 't1' },
    });
    await legacy.close();
    // Left from an earlier move (a downgrade and an upgrade): kept as it is, this store goes beside it.
    await mkdir(join(folder, 'legacy-leveldb'));
    await writeFile(join(folder, 'legacy-leveldb', 'CURRENT'), 'an earlier store');

    const { engine, client } = await open(folder);
    expect((await read(client, 'a'))?.text?.S).toBe('from LevelDB');
    const outbox = await outboxShard(client, 'shard-1');
    expect(outbox.Items).toHaveLength(1);
    expect((await readdir(folder)).sort()).toEqual(['journal.jsonl', 'legacy-leveldb', 'legacy-leveldb-2']);
    // The journal alone holds the data now: a second start does not read LevelDB again.
    await closeEngine(engine);
    const again = await open(folder);
    expect((await read(again.client, 'a'))?.text?.S).toBe('from LevelDB');
    expect(await readFile(join(folder, 'legacy-leveldb', 'CURRENT'), 'utf8')).toBe('an earlier store');
    expect(await readdir(join(folder, 'legacy-leveldb-2'))).toContain('CURRENT');
  });

  it('copies a LevelDB table saved mid-creation (its timer died with that process) and makes it usable', async () => {
    const folder = await newFolder();
    const legacy = await startLegacyLevelDb(folder, 60_000);
    await legacy.client.send(new CreateTableCommand(TABLE_INPUT));
    await legacy.close();

    const { client } = await open(folder);
    await put(client, 'a', 'in the copied table');
    expect((await read(client, 'a'))?.text?.S).toBe('in the copied table');
  });

  it('moves aside LevelDB files found next to a journal (a start stopped between copy and move); the journal wins', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    await put(first.client, 'a', 'from the journal');
    await closeEngine(first.engine);
    const legacy = await startLegacyLevelDb(folder);
    await ensureJournalTable(legacy.client);
    await put(legacy.client, 'b', 'only in LevelDB');
    await legacy.close();

    const { client } = await open(folder);
    expect((await read(client, 'a'))?.text?.S).toBe('from the journal');
    expect(await read(client, 'b')).toBeUndefined();
    expect((await readdir(folder)).sort()).toEqual(['journal.jsonl', 'legacy-leveldb']);
  });

  it('journals changes sent with the 2011 API version too, and answers an oversized body 413 without journaling it', async () => {
    const folder = await newFolder();
    const first = await open(folder);
    const before = await journalLines(folder);
    const old = await rawRequest(
      first.engine,
      'POST',
      'PutItem',
      { TableName: TABLE, Item: { pk: { S: 'p' }, sk: { S: 'old-api' }, text: { S: '2011' } } },
      0,
      {},
      'DynamoDB_20111205',
    );
    expect(old.status).toBe(200);
    expect(await journalLines(folder)).toHaveLength(before.length + 1);
    const oversized = await rawRequest(first.engine, 'POST', 'PutItem', {
      TableName: TABLE,
      Item: { pk: { S: 'p' }, sk: { S: 'huge' }, text: { S: 'x'.repeat(17 * 1024 * 1024) } },
    });
    expect(oversized.status).toBe(413);
    expect(await journalLines(folder)).toHaveLength(before.length + 1);
    await closeEngine(first.engine);
    const second = await open(folder);
    expect((await read(second.client, 'old-api'))?.text?.S).toBe('2011');
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
          ...ENGINE_HEADERS,
          'x-amz-target': target,
        },
        body,
      });
      return { statusCode: response.status, body: await response.text() };
    };
  };

  /** A journal at `file` over a fresh engine, and `change`: sends a change, checks it applied, journals it as the worker would. */
  const journalOnFreshEngine = async (file: string, options: JournalOptions = {}) => {
    const dispatch = await freshEngine();
    const journal = await EngineJournal.open(file, dispatch, options);
    const change = async (operation: string, input: unknown) => {
      const body = JSON.stringify(input);
      const answer = await dispatch(`DynamoDB_20120810.${operation}`, body);
      expect(answer.statusCode).toBe(200);
      journal.record(`DynamoDB_20120810.${operation}`, body);
    };
    return { dispatch, journal, change };
  };

  const scanned = async (dispatch: EngineDispatch, table: string) => {
    const answer = await dispatch('DynamoDB_20120810.Scan', JSON.stringify({ TableName: table }));
    return (JSON.parse(answer.body).Items as { k: { S: string }; v: { N: string } }[])
      .map((item) => [item.k.S, item.v.N])
      .sort();
  };

  it('is rewritten at start once it holds many more changes than items, and the state is the same after', async () => {
    const folder = await newFolder();
    const file = join(folder, 'journal.jsonl');
    const { journal, change } = await journalOnFreshEngine(file, { compactionSlackEntries: 5 });
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
    const before = await readFile(file, 'utf8');
    await closeDynalite(engine as Server);

    (await journalOnFreshEngine(file, { compactionSlackEntries: 5 })).journal.close();
    // Header, the table, and one put per item; the journal it replaced is kept beside it.
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1 + 1 + 2);
    expect(await readFile(`${file}.previous`, 'utf8')).toBe(before);
    await closeDynalite(engine as Server);

    const { dispatch, journal: reopened } = await journalOnFreshEngine(file, { compactionSlackEntries: 5 });
    reopened.close();
    expect(await scanned(dispatch, 'things')).toEqual([
      ['one', '20'],
      ['two', '1'],
    ]);
  });

  it('asks to be rewritten once it outgrows its size, and a rewrite keeps tables, indexes, throughput and tags', async () => {
    const folder = await newFolder();
    const file = join(folder, 'journal.jsonl');
    const written = await journalOnFreshEngine(file, { compactionMinBytes: 2_000 });
    const { journal, change } = written;
    let { dispatch } = written;
    await change('CreateTable', {
      TableName: 'provisioned',
      AttributeDefinitions: [
        { AttributeName: 'k', AttributeType: 'S' },
        { AttributeName: 'v', AttributeType: 'N' },
        { AttributeName: 'g', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'k', KeyType: 'HASH' },
        { AttributeName: 'v', KeyType: 'RANGE' },
      ],
      ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 3 },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by-g',
          KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['note'] },
          ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 2 },
        },
      ],
      LocalSecondaryIndexes: [
        {
          IndexName: 'by-g-local',
          KeySchema: [
            { AttributeName: 'k', KeyType: 'HASH' },
            { AttributeName: 'g', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const arn = JSON.parse(
      (await dispatch('DynamoDB_20120810.DescribeTable', JSON.stringify({ TableName: 'provisioned' }))).body,
    ).Table.TableArn;
    await change('TagResource', { ResourceArn: arn, Tags: [{ Key: 'team', Value: 'memory' }] });
    expect(journal.wantsCompaction).toBe(false);
    for (let round = 0; round < 20; round++) {
      await change('PutItem', {
        TableName: 'provisioned',
        Item: { k: { S: 'a' }, v: { N: '1' }, g: { S: 'group' }, note: { S: `round ${round}` } },
      });
    }
    expect(journal.wantsCompaction).toBe(true);
    const describeTable = async () =>
      JSON.parse((await dispatch('DynamoDB_20120810.DescribeTable', JSON.stringify({ TableName: 'provisioned' }))).body)
        .Table;
    const shapeOf = (table: Record<string, unknown> & { GlobalSecondaryIndexes: Record<string, unknown>[] }) => ({
      AttributeDefinitions: table.AttributeDefinitions,
      KeySchema: table.KeySchema,
      ProvisionedThroughput: {
        ReadCapacityUnits: (table.ProvisionedThroughput as Record<string, number>).ReadCapacityUnits,
        WriteCapacityUnits: (table.ProvisionedThroughput as Record<string, number>).WriteCapacityUnits,
      },
      GlobalSecondaryIndexes: table.GlobalSecondaryIndexes.map((index) => ({
        IndexName: index.IndexName,
        KeySchema: index.KeySchema,
        Projection: index.Projection,
        ReadCapacityUnits: (index.ProvisionedThroughput as Record<string, number>).ReadCapacityUnits,
      })),
      LocalSecondaryIndexes: (table.LocalSecondaryIndexes as Record<string, unknown>[]).map((index) => ({
        IndexName: index.IndexName,
        KeySchema: index.KeySchema,
        Projection: index.Projection,
      })),
    });
    const shape = shapeOf(await describeTable());
    await journal.compact();
    expect(journal.wantsCompaction).toBe(false);
    await change('PutItem', {
      TableName: 'provisioned',
      Item: { k: { S: 'b' }, v: { N: '2' }, g: { S: 'group' }, note: { S: 'after the rewrite' } },
    });
    journal.close();
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1 + 1 + 1 + 1 + 1);
    await closeDynalite(engine as Server);

    dispatch = await freshEngine();
    (await EngineJournal.open(file, dispatch)).close();
    expect(shapeOf(await describeTable())).toEqual(shape);
    const tags = await dispatch('DynamoDB_20120810.ListTagsOfResource', JSON.stringify({ ResourceArn: arn }));
    expect(JSON.parse(tags.body).Tags).toEqual([{ Key: 'team', Value: 'memory' }]);
    const byGroup = await dispatch(
      'DynamoDB_20120810.Query',
      JSON.stringify({
        TableName: 'provisioned',
        IndexName: 'by-g',
        KeyConditionExpression: 'g = :g',
        ExpressionAttributeValues: { ':g': { S: 'group' } },
      }),
    );
    expect(
      JSON.parse(byGroup.body)
        .Items.map((item: { note: { S: string } }) => item.note.S)
        .sort(),
    ).toEqual(['after the rewrite', 'round 19']);
  });
});

const closeDynalite = (server: Server) =>
  new Promise<void>((resolve, reject) => server.close((error?: Error) => (error ? reject(error) : resolve())));

/** A DynamoDB request over the engine's loopback port, as a tool other than the SDK might send it (any method may carry a body). */
const rawRequest = (
  engine: EmbeddedDynamoDb,
  method: string,
  operation: string,
  input: unknown,
  indent = 0,
  headers: Record<string, string> = {},
  api = 'DynamoDB_20120810',
) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const body = JSON.stringify(input, null, indent);
    const outgoing = httpRequest(
      engine.endpoint,
      {
        method,
        headers: {
          ...ENGINE_HEADERS,
          'content-length': Buffer.byteLength(body),
          'x-amz-target': `${api}.${operation}`,
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
