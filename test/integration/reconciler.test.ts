import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dynamoDbRecordStorage } from '../../lambdas/adapters/dynamodb/dynamodb-ports.ts';
import type { EventPublisher } from '../../lambdas/kernel/events/event-publisher.port.ts';
import { OutboxRelay } from '../../lambdas/kernel/events/outbox-relay.ts';
import { Reconciler } from '../../lambdas/kernel/events/reconciler.ts';
import type { RecordEvent } from '../../lambdas/kernel/events/record-event.schema.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { KINDS, RECORD_KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

/** Reference 002 TEST-12 against the real adapter: the bus down and head projections lost; reconciliation restores both. */
describe('Class: Reconciler (DynamoDB adapter on the embedded engine)', () => {
  let table: EmbeddedTable;
  let storage: ReturnType<typeof dynamoDbRecordStorage>;
  let busUp = false;
  const delivered: RecordEvent[] = [];
  const bus: EventPublisher = {
    publish: async (events) => {
      if (!busUp) return { failed: events };
      delivered.push(...events);
      return { failed: [] };
    },
  };

  beforeEach(async () => {
    table = await startEmbeddedTable();
    storage = dynamoDbRecordStorage({ ...table, clock: new ManualClock('2026-06-01T00:00:00.000Z') });
    delivered.length = 0;
    busUp = false;
  });

  afterEach(async () => {
    await table.close();
  });

  it('repairs lagging heads, publishes the outbox, and reports what it fixed', async () => {
    // Prepare: three notes in two namespaces; every head write of revision 2 is lost
    const alice = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.note);
    const bob = scopeOf({ tenant: 'acme', sub: 'bob' }).namespace(KINDS.note, { agent: 'coder' });
    const send = table.client.send.bind(table.client);
    table.client.send = ((command: { input: { Item?: { sk?: { S?: string }; revision?: { N?: string } } } }) => {
      const item = command.input.Item;
      if (item?.sk?.S?.startsWith('H#') && item.revision?.N === '2') {
        return Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
      }
      return send(command as never);
    }) as typeof table.client.send;
    const ids = [newRecordId(), newRecordId(), newRecordId()];
    for (const [index, id] of ids.entries()) {
      const namespace = index === 2 ? bob : alice;
      for (const revision of [1, 2]) {
        const value = revisionOf(namespace, id, revision);
        await storage.revisions.append(value, eventOf(value));
      }
    }
    table.client.send = send;
    const relay = new OutboxRelay({
      outbox: storage.outbox,
      publisher: bus,
      clock: new ManualClock(),
      metrics: table.metrics,
    });
    expect((await storage.heads.listHeads(alice, { limit: 10 })).items.map((head) => head.revision)).toEqual([1, 1]);

    // Act
    busUp = true;
    const report = await new Reconciler({ ...storage, relay, kinds: RECORD_KINDS }).run();

    // Assess
    expect(report).toEqual({
      namespaces: 2,
      records: 3,
      headsRepaired: 3,
      eventsRepublished: 6,
      eventsStillPending: 0,
      projectionsRebuilt: 0,
    });
    expect((await storage.heads.listHeads(alice, { limit: 10 })).items.map((head) => head.revision)).toEqual([2, 2]);
    expect((await storage.heads.listHeads(bob, { limit: 10 })).items.map((head) => head.revision)).toEqual([2]);
    expect(delivered).toHaveLength(6);
    expect(await new Reconciler({ ...storage, relay, kinds: RECORD_KINDS }).run()).toMatchObject({
      headsRepaired: 0,
      eventsRepublished: 0,
    });
  });
});
