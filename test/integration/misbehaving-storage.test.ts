import { type AttributeValue, type DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbIdempotencyStore } from '../../lambdas/adapters/dynamodb/dynamodb-idempotency-store.ts';
import { dynamoDbRecordStorage } from '../../lambdas/adapters/dynamodb/dynamodb-ports.ts';
import { MemoryTableClient } from '../../lambdas/adapters/dynamodb/memory-table-client.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { IDEMPOTENCY } from '../../lambdas/kernel/idempotency/idempotency-store.port.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

type AttributeMap = Record<string, AttributeValue>;

/**
 * What a misbehaving layer between the adapter and the table does to each read: to the key values it is asked
 * for (a query's values, a get's key) and to each item it returns.
 */
interface Misbehaviour {
  readonly request?: (values: AttributeMap) => AttributeMap;
  readonly item?: (item: AttributeMap) => AttributeMap;
}

/** The table's client with a storage layer in front that answers reads wrongly (a bug, a hostile proxy). */
const misbehaving = (client: DynamoDBClient, misbehaviour: Misbehaviour): DynamoDBClient => {
  const request = (values: AttributeMap) => misbehaviour.request?.(values) ?? values;
  const item = (returned: AttributeMap) => misbehaviour.item?.(returned) ?? returned;
  const send = async (command: unknown) => {
    if (command instanceof QueryCommand) {
      const values = command.input.ExpressionAttributeValues ?? {};
      const output = await client.send(
        new QueryCommand({ ...command.input, ExpressionAttributeValues: request(values) }),
      );
      return { ...output, Items: output.Items?.map(item) };
    }
    if (command instanceof GetItemCommand) {
      const output = await client.send(new GetItemCommand({ ...command.input, Key: request(command.input.Key ?? {}) }));
      return { ...output, Item: output.Item && item(output.Item) };
    }
    return client.send(command as never);
  };
  return new Proxy(client, {
    get: (target, property, receiver) => (property === 'send' ? send : Reflect.get(target, property, receiver)),
  });
};

/** Every string value with `from` replaced by `to`: a layer that maps one key onto another. */
const rewritten = (attributes: AttributeMap, from: string, to: string): AttributeMap =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      value.S === undefined ? value : { S: value.S.replaceAll(from, to) },
    ]),
  );

describe('Class: RevisionItems (through the DynamoDB record ports)', () => {
  let table: EmbeddedTable;
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const alice = scopeOf({ sub: 'alice' });
  const aliceNotes = alice.namespace(KINDS.note);
  const bobNotes = scopeOf({ sub: 'bob' }).namespace(KINDS.note);
  const [asked, other] = [newRecordId(), newRecordId()];

  /** The record ports as a reader sees them through `misbehaviour`, with their own counters. */
  const readThrough = (misbehaviour: Misbehaviour) => {
    const metrics = new InMemoryMetrics();
    const storage = dynamoDbRecordStorage({
      client: misbehaving(table.client, misbehaviour),
      tableName: table.tableName,
      cipher: table.cipher,
      clock,
      metrics,
    });
    return { ...storage, metrics };
  };

  beforeEach(async () => {
    // Prepare: alice's record `asked` and her record `other`, and bob's record under the same id as `asked`.
    table = await startEmbeddedTable();
    const honest = dynamoDbRecordStorage({
      client: table.client,
      tableName: table.tableName,
      cipher: table.cipher,
      clock,
      metrics: table.metrics,
    });
    for (const revision of [
      revisionOf(aliceNotes, asked, 1, { content: { text: 'alice asked for this', tags: [] } }),
      revisionOf(aliceNotes, other, 1, { content: { text: "alice's other record", tags: [] } }),
      revisionOf(bobNotes, asked, 1, { content: { text: "bob's record", tags: [] } }),
    ])
      await honest.revisions.append(revision, eventOf(revision));
  });

  afterEach(async () => {
    await table.close();
  });

  /** Reads `asked` every way a reader can, through `storage`; what each read returned. */
  const readEveryWay = async (storage: ReturnType<typeof readThrough>) => ({
    head: await storage.revisions.getHead(aliceNotes, asked),
    revision: await storage.revisions.getRevision(aliceNotes, asked, 1),
    revisions: (await storage.revisions.listRevisions(aliceNotes, asked, { limit: 10 })).items,
  });

  describe('Method: decode', () => {
    it('refuses and counts an item from another partition, before any attempt to decrypt it', async () => {
      // Prepare: the layer sends alice's queries to bob's partition.
      const storage = readThrough({ request: (values) => rewritten(values, aliceNotes.key, bobNotes.key) });

      // Act
      const read = await readEveryWay(storage);
      const heads = await storage.heads.listHeads(aliceNotes, { limit: 10 });

      // Assess
      expect(read).toEqual({ head: undefined, revision: undefined, revisions: [] });
      expect(heads.items).toEqual([]);
      expect(storage.metrics.countOf('scope.violation_refused')).toBe(4);
      expect(storage.metrics.countOf('crypto.context_mismatch_refused')).toBe(0);
    });

    it("refuses and counts another record's item presented under the asked record's sort key", async () => {
      // Prepare: the layer maps `asked` onto `other` and rewrites the sort keys it returns to look like `asked`'s.
      const storage = readThrough({
        request: (values) => rewritten(values, `R#${asked}#`, `R#${other}#`),
        item: (item) => rewritten(item, `R#${other}#`, `R#${asked}#`),
      });

      // Act
      const read = await readEveryWay(storage);

      // Assess
      expect(read).toEqual({ head: undefined, revision: undefined, revisions: [] });
      expect(storage.metrics.countOf('scope.violation_refused')).toBe(3);
      expect(storage.metrics.countOf('crypto.context_mismatch_refused')).toBe(0);
    });

    it("refuses and counts another record's item relabelled with the asked record's id", async () => {
      // Prepare: the layer maps `asked` onto `other` and rewrites the record id it returns, not the sort key.
      const storage = readThrough({
        request: (values) => rewritten(values, `R#${asked}#`, `R#${other}#`),
        item: (item) => (item.recordId?.S === other ? { ...item, recordId: { S: asked } } : item),
      });

      // Act
      const read = await readEveryWay(storage);

      // Assess
      expect(read).toEqual({ head: undefined, revision: undefined, revisions: [] });
      expect(storage.metrics.countOf('scope.violation_refused')).toBe(3);
      expect(storage.metrics.countOf('crypto.context_mismatch_refused')).toBe(0);
    });

    it('returns the asked record through a layer that behaves, and counts nothing', async () => {
      const storage = readThrough({});

      const read = await readEveryWay(storage);

      expect(read.head?.content).toEqual({ text: 'alice asked for this', tags: [] });
      expect(read.revision?.content).toEqual({ text: 'alice asked for this', tags: [] });
      expect(read.revisions.map((revision) => revision.id)).toEqual([asked]);
      expect(storage.metrics.countOf('scope.violation_refused')).toBe(0);
    });
  });
});

describe('Class: DynamoDbIdempotencyStore (through a misbehaving layer)', () => {
  let table: EmbeddedTable;
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const aliceKeys = scopeOf({ sub: 'alice' }).namespace(IDEMPOTENCY);
  const bobKeys = scopeOf({ sub: 'bob' }).namespace(IDEMPOTENCY);
  const claimOf = (recordId: string) => ({ fingerprint: 'f', recordId, expiresAt: '2026-06-02T00:00:00.000Z' });

  beforeEach(async () => {
    table = await startEmbeddedTable();
  });

  afterEach(async () => {
    await table.close();
  });

  describe('Method: claim', () => {
    it("refuses and counts another caller's claim returned for the same key, rather than replaying its record", async () => {
      // Prepare: alice and bob each hold the key `k`; the layer reads bob's claims when alice's are asked for.
      const honest = new DynamoDbIdempotencyStore({ table: table.table, clock });
      await honest.claim(aliceKeys, 'k', claimOf(newRecordId()));
      await honest.claim(bobKeys, 'k', claimOf('bobs-record'));
      const metrics = new InMemoryMetrics();
      const client = misbehaving(table.client, {
        request: (values) => rewritten(values, aliceKeys.key, bobKeys.key),
      });
      const misrouted = new DynamoDbIdempotencyStore({
        table: new MemoryTableClient({ client, tableName: table.tableName, metrics }),
        clock,
        metrics,
      });

      // Act
      const replay = misrouted.claim(aliceKeys, 'k', claimOf(newRecordId()));

      // Assess
      await expect(replay).rejects.toThrow(/vanished or is malformed/);
      expect(metrics.countOf('scope.violation_refused')).toBe(1);
    });
  });
});
