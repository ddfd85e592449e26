import { beforeEach, describe, expect, it } from 'vitest';
import { InMemoryAuditTrail } from '../../../lambdas/adapters/memory/in-memory-audit-trail.ts';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { AuditConsumer } from '../../../lambdas/capabilities/audit/audit.consumer.ts';
import {
  HeadProjectionConsumer,
  UnresolvedNamespaceError,
} from '../../../lambdas/kernel/events/head-projection.consumer.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { KINDS, RECORD_KINDS } from '../../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

/** Reference 002 TEST-05: duplicate and out-of-order delivery have exactly one effect. */
describe('Event consumers', () => {
  let store: InMemoryRecordStore;
  const notes = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.note);

  beforeEach(() => {
    store = new InMemoryRecordStore({ clock: new ManualClock('2026-06-01T00:00:00.000Z') });
  });

  /** Commits revisions from..to while the head projection does not move, as after a lost projection write. */
  const commitWithoutProjection = async (id: string, from: number, to: number) => {
    const project = store.projectHead.bind(store);
    store.projectHead = async () => false;
    const events = [];
    for (let revision = from; revision <= to; revision++) {
      const value = revisionOf(notes, id, revision);
      const event = eventOf(value);
      await store.append(value, event);
      events.push(event);
    }
    store.projectHead = project;
    return events;
  };

  const projectedRevision = async () => (await store.listHeads(notes, { limit: 1 })).items[0]?.revision;

  describe('Class: HeadProjectionConsumer', () => {
    it('applies an event once; its duplicate changes nothing', async () => {
      const consumer = new HeadProjectionConsumer({
        heads: store,
        directory: store,
        kinds: RECORD_KINDS,
      });
      const id = newRecordId();
      const first = revisionOf(notes, id, 1);
      await store.append(first, eventOf(first));
      const [second] = await commitWithoutProjection(id, 2, 2);
      expect(await projectedRevision()).toBe(1);

      const outcomes = [
        await consumer.consume(second as NonNullable<typeof second>),
        await consumer.consume(second as NonNullable<typeof second>),
      ];

      expect(outcomes).toEqual(['applied', 'ignored']);
      expect(await projectedRevision()).toBe(2);
    });

    it('moves a lagging head forward, and an older revision arriving afterwards changes nothing', async () => {
      const consumer = new HeadProjectionConsumer({
        heads: store,
        directory: store,
        kinds: RECORD_KINDS,
      });
      const [, second, third] = await commitWithoutProjection(newRecordId(), 1, 3);
      expect(await projectedRevision()).toBeUndefined();

      const outcomes = [
        await consumer.consume(third as NonNullable<typeof third>),
        await consumer.consume(second as NonNullable<typeof second>),
        await consumer.consume(third as NonNullable<typeof third>),
      ];

      expect(outcomes).toEqual(['applied', 'ignored', 'ignored']);
      expect(await projectedRevision()).toBe(3);
    });

    it('leaves session events alone: a journal record is its own head, nothing is read or projected', async () => {
      const session = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS['session-events'], { session: 's1' });
      const event = revisionOf(session, newRecordId(), 1);
      await store.append(event, eventOf(event));
      const touched: string[] = [];
      const watched = new Proxy(store, {
        get: (target, name) => {
          if (typeof name === 'string' && typeof Reflect.get(target, name) === 'function') touched.push(name);
          return Reflect.get(target, name)?.bind?.(target) ?? Reflect.get(target, name);
        },
      });
      const consumer = new HeadProjectionConsumer({
        heads: watched,
        directory: watched,
        kinds: RECORD_KINDS,
      });

      expect(await consumer.consume(eventOf(event))).toBe('ignored');
      expect(touched).toEqual([]);
    });

    it('refuses (the relay counts it, a replay or the reconciler repairs it) an event whose namespace it cannot resolve', async () => {
      const consumer = new HeadProjectionConsumer({
        heads: store,
        directory: store,
        kinds: RECORD_KINDS,
      });
      const stranger = revisionOf(scopeOf({ tenant: 'globex' }).namespace(KINDS.note), newRecordId(), 1);

      await expect(consumer.consume(eventOf(stranger))).rejects.toBeInstanceOf(UnresolvedNamespaceError);
    });
  });

  describe('Class: AuditConsumer', () => {
    it('writes one entry per event however often it is delivered, with no content', async () => {
      const trail = new InMemoryAuditTrail();
      const consumer = new AuditConsumer({ trail, kinds: RECORD_KINDS });
      const revision = revisionOf(notes, newRecordId(), 1, { content: { text: 'private words', tags: [] } });
      const event = eventOf(revision);

      const outcomes = [await consumer.consume(event), await consumer.consume(event), await consumer.consume(event)];

      expect(outcomes).toEqual(['applied', 'ignored', 'ignored']);
      const { items } = await trail.list('acme', { limit: 10 });
      expect(items).toEqual([
        {
          id: event.event_id,
          occurredAt: event.occurred_at,
          actor: { principal: 'alice', client: 'test-client' },
          action: 'record.created',
          recordKind: 'note',
          recordId: revision.id,
          revision: 1,
          decision: 'committed',
          reasonCode: 'revision.created',
        },
      ]);
      expect(JSON.stringify(items)).not.toMatch(/private words|t\/acme/);
      expect((await trail.list('globex', { limit: 10 })).items).toEqual([]);
    });

    it('leaves session events (short-term input) out of the trail, one by one', async () => {
      const trail = new InMemoryAuditTrail();
      const consumer = new AuditConsumer({ trail, kinds: RECORD_KINDS });
      const session = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS['session-events'], { session: 's1' });

      const outcome = await consumer.consume(eventOf(revisionOf(session, newRecordId(), 1)));

      expect(outcome).toBe('ignored');
      expect((await trail.list('acme', { limit: 10 })).items).toEqual([]);
    });
  });
});
