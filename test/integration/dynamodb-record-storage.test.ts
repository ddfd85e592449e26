import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbHeadProjection } from '../../lambdas/adapters/dynamodb/dynamodb-head-projection.ts';
import { dynamoDbRecordStorage } from '../../lambdas/adapters/dynamodb/dynamodb-ports.ts';
import { MemoryTableClient } from '../../lambdas/adapters/dynamodb/memory-table-client.ts';
import { RevisionItems } from '../../lambdas/adapters/dynamodb/revision-items.ts';
import type { ContentCipher } from '../../lambdas/kernel/crypto/content-cipher.port.ts';
import { RevisionConflictError } from '../../lambdas/kernel/records/record.errors.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { describeRecordPortContracts } from '../contract/record-port-contracts.ts';
import type { CreateRecordStorage } from '../contract/record-storage.fixture.ts';
import { startEmbeddedTable } from '../support/embedded-table.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

/** The DynamoDB adapters of the five ports, on a fresh table of the embedded engine with the real Encryption SDK. */
const storageOnTheEngine = async (clock: ManualClock) => {
  const table = await startEmbeddedTable();
  return {
    table,
    storage: dynamoDbRecordStorage({
      client: table.client,
      tableName: table.tableName,
      cipher: table.cipher,
      clock,
      metrics: table.metrics,
    }),
    close: () => table.close(),
  };
};

const onTheEngine: CreateRecordStorage = storageOnTheEngine;

describeRecordPortContracts('DynamoDB adapters on the embedded engine', onTheEngine);

describe('Module: DynamoDB record storage', () => {
  let engine: Awaited<ReturnType<typeof storageOnTheEngine>>;

  // Closed after each test, so a failing assertion does not leave its engine running.
  beforeEach(async () => {
    engine = await storageOnTheEngine(new ManualClock('2026-06-01T00:00:00.000Z'));
  });

  afterEach(async () => {
    await engine?.close();
  });

  describe('Method: append', () => {
    it('reports success once the revision is committed, even when the head projection cannot move yet', async () => {
      // Prepare
      const { table, storage } = engine;
      const { revisions, heads } = storage;
      const notes = scopeOf().namespace(KINDS.note);
      const id = newRecordId();
      const first = revisionOf(notes, id, 1);
      await revisions.append(first, eventOf(first));
      const send = table.client.send.bind(table.client);
      let putCalls = 0;
      // The second put of the next append (the projection) fails as a throttled request would.
      table.client.send = ((command: { input: { Item?: { sk?: { S?: string } } } }) => {
        if (command.input.Item?.sk?.S?.startsWith('H#') && ++putCalls === 1) {
          return Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
        }
        return send(command as never);
      }) as typeof table.client.send;

      // Act
      const second = revisionOf(notes, id, 2, { content: { text: 'committed', tags: [] } });
      await revisions.append(second, eventOf(second));

      // Assess
      expect((await revisions.getHead(notes, id))?.content).toEqual({ text: 'committed', tags: [] });
      expect(table.metrics.countOf('projection.deferred')).toBe(1);
      expect((await heads.listHeads(notes, { limit: 10 })).items[0]?.revision).toBe(1);
      expect(await heads.projectHead(second)).toBe(true);
      expect((await heads.listHeads(notes, { limit: 10 })).items[0]?.revision).toBe(2);
    });
  });

  describe('Method: projectCommitted', () => {
    it('moves a head the writer left behind by copying the stored revision, with no content key at hand', async () => {
      // Prepare: revision 2 committed while its head write failed, and a projection (as the relay holds it)
      // whose cipher refuses every use
      const { table, storage } = engine;
      const notes = scopeOf().namespace(KINDS.note);
      const id = newRecordId();
      const first = revisionOf(notes, id, 1);
      await storage.revisions.append(first, eventOf(first));
      const send = table.client.send.bind(table.client);
      table.client.send = ((command: { input: { Item?: { sk?: { S?: string } } } }) =>
        command.input.Item?.sk?.S?.startsWith('H#')
          ? Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }))
          : send(command as never)) as typeof table.client.send;
      const second = revisionOf(notes, id, 2, { content: { text: 'committed', tags: [] } });
      await storage.revisions.append(second, eventOf(second));
      table.client.send = send;
      const refusing: ContentCipher = {
        encrypt: () => Promise.reject(new Error('no content key')),
        decrypt: () => Promise.reject(new Error('no content key')),
      };
      const client = new MemoryTableClient({
        client: table.client,
        tableName: table.tableName,
        metrics: table.metrics,
      });
      const clock = new ManualClock('2026-06-01T00:00:00.000Z');
      const keyless = new DynamoDbHeadProjection({
        table: client,
        items: new RevisionItems({ table: client, cipher: refusing, metrics: table.metrics, clock }),
      });

      // Act
      const moved = [
        await keyless.projectCommitted(notes, id, 2),
        await keyless.projectCommitted(notes, id, 2),
        await keyless.projectCommitted(notes, id, 1),
        await keyless.projectCommitted(notes, id, 3),
      ];

      // Assess: moved once, forward only; the head reads back (under the real key) as revision 2
      expect(moved).toEqual([true, false, false, false]);
      const [head] = (await storage.heads.listHeads(notes, { limit: 10 })).items;
      expect(head).toMatchObject({ revision: 2, content: { text: 'committed', tags: [] } });
      const raw = await client.get({ pk: notes.key, sk: `H#${id}` });
      expect(raw && Object.keys(raw)).not.toContain('writeId');
    });
  });

  describe('Method: append, for a journal kind', () => {
    it('writes one item per session event: the revision, with no head item beside it', async () => {
      const { table, storage } = engine;
      const { revisions, heads } = storage;
      const events = scopeOf().namespace(KINDS['session-events'], { session: 's1' });
      const id = newRecordId();
      const first = revisionOf(events, id, 1);

      await revisions.append(first, eventOf(first));

      const items = await table.client.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: events.key } },
        }),
      );
      expect(items.Items?.map((item) => item.sk?.S)).toEqual([`R#${id}#0000000001`]);
      expect((await heads.listHeads(events, { limit: 10 })).items.map((head) => head.id)).toEqual([id]);
    });
  });

  describe('Method: append, when the SDK retries a put that had committed', () => {
    it('recognises its own write instead of reporting a conflict', async () => {
      const { table, storage } = engine;
      const { revisions } = storage;
      const notes = scopeOf().namespace(KINDS.note);
      const first = revisionOf(notes, newRecordId(), 1);
      const send = table.client.send.bind(table.client);
      let lostResponses = 0;
      // The first put of the revision commits, but its response is lost, and the SDK sends it again.
      table.client.send = (async (command: { input: { Item?: { sk?: { S?: string } } } }) => {
        const output = await send(command as never);
        if (command.input.Item?.sk?.S?.startsWith('R#') && lostResponses++ === 0) return send(command as never);
        return output;
      }) as typeof table.client.send;

      await revisions.append(first, eventOf(first));
      const rival = revisionOf(notes, first.id, 1, { content: { text: 'someone else', tags: [] } });

      expect((await revisions.getHead(notes, first.id))?.revision).toBe(1);
      await expect(revisions.append(rival, eventOf(rival))).rejects.toBeInstanceOf(RevisionConflictError);
    });
  });
});
