import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { NotFoundError, ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { RevisionConflictError, RevisionMismatchError } from '../../../lambdas/kernel/records/record.errors.ts';
import type { RecordRevision } from '../../../lambdas/kernel/records/record.schema.ts';
import { RevisionWriter } from '../../../lambdas/kernel/records/revision-writer.ts';
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
  let writer: RevisionWriter;

  beforeEach(() => {
    clock = new ManualClock('2026-06-01T00:00:00.000Z');
    store = new InMemoryRecordStore({ clock });
    writer = new RevisionWriter({
      revisions: store,
      ids: createUlidGenerator(),
      clock,
      backoff: async () => undefined,
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const created = async () => {
    const revision = writer.next(namespace, newRecordId(), undefined, alice, { content: { n: 1 }, expiresAt: EXPIRY });
    await writer.append(revision, 'record.created');
    return revision;
  };

  describe('Method: next', () => {
    it('starts a record with no sources when the change names none', () => {
      const first = writer.next(namespace, newRecordId(), undefined, alice, { content: { n: 1 }, expiresAt: EXPIRY });

      expect(first.provenance).toEqual({ createdBy: alice, revisedBy: alice, sourceEventIds: [] });
      expect(first).toMatchObject({ revision: 1, status: 'active', createdAt: '2026-06-01T00:00:00.000Z' });
    });
  });

  describe('Method: appendExpected', () => {
    it('lets a store failure through as it is: only a lost race is a mismatch', async () => {
      const unavailable = new ServiceUnavailableError('throttled');
      const failing = new RevisionWriter({
        revisions: { getHead: store.getHead.bind(store), append: () => Promise.reject(unavailable) },
        ids: createUlidGenerator(),
        clock,
      });
      const head = await created();

      await expect(
        failing.appendExpected(
          failing.next(namespace, head.id, head, bob, { content: {}, expiresAt: EXPIRY }),
          'record.revised',
        ),
      ).rejects.toBe(unavailable);
    });

    it('names the current revision, and keeps the lost race as the cause, when the winner kept the record live', async () => {
      // Prepare: bob wins the race for revision 2
      const head = await created();
      await writer.append(
        writer.next(namespace, head.id, head, bob, { content: { n: 2 }, expiresAt: EXPIRY }),
        'record.revised',
      );

      // Act: a writer that takes deleted as absent still learns the live revision
      const losing = writer.appendExpected(
        writer.next(namespace, head.id, head, alice, { content: { n: 3 }, expiresAt: EXPIRY }),
        'record.revised',
        { deletedAs: 'absent' },
      );

      // Assess
      await expect(losing).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(losing).rejects.toMatchObject({ currentRevision: 2, cause: expect.any(RevisionConflictError) });
    });

    it('answers NotFound, with the lost race as the cause, when the record is gone', async () => {
      const head = await created();
      await store.purge(namespace, head.id);
      // Whatever the purge left, the writer lost the race for revision 2 to someone.
      const racing = new RevisionWriter({
        revisions: { getHead: store.getHead.bind(store), append: () => Promise.reject(new RevisionConflictError()) },
        ids: createUlidGenerator(),
        clock,
      });

      const losing = racing.appendExpected(
        racing.next(namespace, head.id, head, alice, { content: {}, expiresAt: EXPIRY }),
        'record.revised',
      );

      await expect(losing).rejects.toBeInstanceOf(NotFoundError);
      await expect(losing).rejects.toMatchObject({ cause: expect.any(RevisionConflictError) });
    });
  });

  describe('Method: update, with the default back-off', () => {
    it('waits a jittered, growing time after each lost race before reading again', async () => {
      // Prepare: the largest jitter, and a store that refuses the first three attempts
      vi.spyOn(Math, 'random').mockReturnValue(0.999);
      let refusals = 3;
      const append = store.append.bind(store);
      const contended = new RevisionWriter({
        revisions: {
          getHead: store.getHead.bind(store),
          append: (revision, event, options) =>
            refusals-- > 0 ? Promise.reject(new RevisionConflictError()) : append(revision, event, options),
        },
        ids: createUlidGenerator(),
        clock,
      });
      const id = newRecordId();
      const write = (head: RecordRevision | undefined) => ({
        write: contended.next(namespace, id, head, alice, { content: {}, expiresAt: EXPIRY }),
        type: 'record.created' as const,
        result: 'written',
      });

      // Act
      const started = performance.now();
      const outcome = await contended.update(namespace, id, write, { busy: 'busy' });
      const waited = performance.now() - started;

      // Assess: about 4 + 8 + 16 ms (base 4 ms, doubling, under the 128 ms cap)
      expect(outcome).toBe('written');
      expect(waited).toBeGreaterThanOrEqual(20);
      expect(waited).toBeLessThan(1_000);
    });
  });
});
