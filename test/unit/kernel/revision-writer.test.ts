import { beforeEach, describe, expect, it } from 'vitest';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { NotFoundError, ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { RevisionConflictError, RevisionMismatchError } from '../../../lambdas/kernel/records/record.errors.ts';
import type { RecordRevision } from '../../../lambdas/kernel/records/record.schema.ts';
import { MAX_WRITE_ATTEMPTS, RevisionWriter } from '../../../lambdas/kernel/records/revision-writer.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { createUlidGenerator } from '../../../lambdas/kernel/time/ids.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { newRecordId } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

const alice = { principal: 'alice', client: 'app' };
const bob = { principal: 'bob', client: 'app' };
const EXPIRY = '2027-01-01T00:00:00.000Z';

describe('Class: RevisionWriter', () => {
  const namespace = scopeOf().namespace(KINDS.note);
  let clock: ManualClock;
  let store: InMemoryRecordStore;
  let waits: number[];
  let writer: RevisionWriter;

  beforeEach(() => {
    clock = new ManualClock('2026-06-01T00:00:00.000Z');
    store = new InMemoryRecordStore({ clock });
    waits = [];
    writer = new RevisionWriter({
      revisions: store,
      ids: createUlidGenerator(),
      clock,
      backoff: async (failed) => {
        waits.push(failed);
      },
    });
  });

  const first = async () => {
    const revision = writer.next(namespace, newRecordId(), undefined, alice, {
      content: { text: 'v1' },
      expiresAt: EXPIRY,
    });
    await writer.append(revision, 'record.created');
    return revision;
  };

  describe('Method: next', () => {
    it('numbers the revision after the head and keeps who created the record and when', async () => {
      // Prepare
      const created = await first();
      clock.advance(60_000);

      // Act
      const next = writer.next(namespace, created.id, created, bob, {
        content: { text: 'v2' },
        expiresAt: EXPIRY,
        sourceEventIds: ['e1'],
      });

      // Assess
      expect(next).toMatchObject({
        revision: 2,
        status: 'active',
        content: { text: 'v2' },
        createdAt: created.createdAt,
        updatedAt: '2026-06-01T00:01:00.000Z',
        provenance: { createdBy: alice, revisedBy: bob, sourceEventIds: ['e1'] },
      });
    });

    it('starts the record afresh after a tombstone: a new creator and creation time', async () => {
      const created = await first();
      const tombstone = writer.tombstone(created, bob);
      await writer.append(tombstone, 'record.deleted');
      clock.advance(1000);

      const again = writer.next(namespace, created.id, tombstone, bob, { content: { text: 'new' }, expiresAt: EXPIRY });

      expect(tombstone).toMatchObject({ revision: 2, status: 'deleted', content: null, expiresAt: created.expiresAt });
      expect(again).toMatchObject({ revision: 3, createdAt: '2026-06-01T00:00:01.000Z' });
      expect(again.provenance.createdBy).toEqual(bob);
    });
  });

  describe('Method: append', () => {
    it('commits once per revision number and carries the event in the outbox', async () => {
      const created = await first();

      await expect(writer.append(created, 'record.created')).rejects.toBeInstanceOf(RevisionConflictError);
      const [entry] = await store.pendingEvents(10);
      expect(entry?.event).toMatchObject({ event_type: 'record.created', record_id: created.id, revision: 1 });
    });

    it('puts the idempotency key it is given on the event in the outbox', async () => {
      // Prepare
      const revision = writer.next(namespace, newRecordId(), undefined, alice, {
        content: { text: 'v1' },
        expiresAt: EXPIRY,
      });

      // Act
      await writer.append(revision, 'record.created', { idempotencyKey: 'k1' });

      // Assess
      const [entry] = await store.pendingEvents(10);
      expect(entry?.event).toMatchObject({ record_id: revision.id, idempotency_key: 'k1' });
    });
  });

  describe('Method: appendExpected', () => {
    it('tells the writer that lost the race which revision is current', async () => {
      const created = await first();
      const mine = writer.next(namespace, created.id, created, alice, { content: { text: 'mine' }, expiresAt: EXPIRY });
      const theirs = writer.next(namespace, created.id, created, bob, {
        content: { text: 'theirs' },
        expiresAt: EXPIRY,
      });
      await writer.appendExpected(theirs, 'record.revised');

      const losing = writer.appendExpected(mine, 'record.revised');

      await expect(losing).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(losing).rejects.toMatchObject({ recordId: created.id, currentRevision: 2 });
    });

    it('names the tombstone’s revision when the winner deleted the record, as records always have', async () => {
      const created = await first();
      await writer.appendExpected(writer.tombstone(created, bob), 'record.deleted');

      const losing = writer.appendExpected(
        writer.next(namespace, created.id, created, alice, { content: { text: 'late' }, expiresAt: EXPIRY }),
        'record.revised',
      );

      await expect(losing).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(losing).rejects.toMatchObject({ recordId: created.id, currentRevision: 2 });
    });

    it('answers NotFound when the winner deleted the record, for a writer that takes deleted as absent', async () => {
      const created = await first();
      await writer.appendExpected(writer.tombstone(created, bob), 'record.deleted');

      await expect(
        writer.appendExpected(
          writer.next(namespace, created.id, created, alice, { content: { text: 'late' }, expiresAt: EXPIRY }),
          'record.revised',
          { deletedAs: 'absent' },
        ),
      ).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('Method: update', () => {
    const increment = (id: string) => (head: RecordRevision | undefined) => {
      const count = ((head?.content as { count?: number } | undefined)?.count ?? 0) + 1;
      return {
        write: writer.next(namespace, id, head, alice, { content: { count }, expiresAt: EXPIRY }),
        type: 'record.revised' as const,
        result: count,
      };
    };

    it('loses no increment of 20 concurrent read-modify-writes: each lost race reads and decides again', async () => {
      const id = newRecordId();

      const results = await Promise.all(
        Array.from({ length: 20 }, () => writer.update(namespace, id, increment(id), { busy: 'busy' })),
      );

      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
      expect((await store.getHead(namespace, id))?.content).toEqual({ count: 20 });
      expect(waits.length).toBeGreaterThan(0);
    });

    it('gives up after the bounded attempts with a retryable error, having backed off after each lost race', async () => {
      const crowded = new RevisionWriter({
        revisions: { getHead: store.getHead.bind(store), append: () => Promise.reject(new RevisionConflictError()) },
        ids: createUlidGenerator(),
        clock,
        backoff: async (failed) => {
          waits.push(failed);
        },
      });

      const updating = crowded.update(namespace, 'counter', increment('counter'), { busy: 'too busy now' });

      await expect(updating).rejects.toBeInstanceOf(ServiceUnavailableError);
      await expect(updating).rejects.toThrow('too busy now');
      expect(waits).toEqual(Array.from({ length: MAX_WRITE_ATTEMPTS }, (_, attempt) => attempt));
    });

    it('reads the store at once, without backing off, when a guessed head turns out stale', async () => {
      const created = await first();
      const stale = { ...created };
      await writer.append(
        writer.next(namespace, created.id, created, bob, { content: { count: 5 }, expiresAt: EXPIRY }),
        'record.revised',
      );

      const count = await writer.update(namespace, created.id, increment(created.id), { guess: stale, busy: 'busy' });

      expect(count).toBe(6);
      expect(waits).toEqual([]);
    });

    it('never answers "nothing to write" from a guess: it reads the store first', async () => {
      const created = await first();
      await writer.append(
        writer.next(namespace, created.id, created, bob, { content: { text: 'changed' }, expiresAt: EXPIRY }),
        'record.revised',
      );
      const seen: number[] = [];

      const answer = await writer.update(
        namespace,
        created.id,
        (head) => {
          seen.push(head?.revision ?? 0);
          return { keep: head?.revision };
        },
        { guess: created, busy: 'busy' },
      );

      expect(seen).toEqual([1, 2]);
      expect(answer).toBe(2);
    });

    it('writes nothing until the write it waits for has committed, and nothing if that fails', async () => {
      const id = newRecordId();
      const failed = Promise.reject(new Error('the event was not stored'));

      await expect(writer.update(namespace, id, increment(id), { after: failed, busy: 'busy' })).rejects.toThrow(
        'the event was not stored',
      );
      expect(await store.getHead(namespace, id)).toBeUndefined();
    });
  });
});
