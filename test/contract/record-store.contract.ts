import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NamespaceDirectory } from '../../lambdas/kernel/records/namespace-directory.port.ts';
import { InvalidCursorError, RevisionConflictError } from '../../lambdas/kernel/records/record.errors.ts';
import type { RecordRevision } from '../../lambdas/kernel/records/record.schema.ts';
import type { RecordStore } from '../../lambdas/kernel/records/record-store.port.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

export interface RecordStoreFixture {
  store: RecordStore & NamespaceDirectory;
  close(): Promise<void>;
}

/**
 * What every RecordStore must do. Runs against the in-memory fake and against the DynamoDB adapter on
 * the embedded engine, so the fake the unit tests rely on cannot drift from the real adapter.
 */
export const describeRecordStoreContract = (
  name: string,
  create: (clock: ManualClock) => Promise<RecordStoreFixture>,
) => {
  describe(`Contract: RecordStore (${name})`, () => {
    let clock: ManualClock;
    let fixture: RecordStoreFixture;
    let store: RecordStore & NamespaceDirectory;
    const alice = scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p7:member'] });
    const notes = alice.namespace(KINDS.note);

    const append = async (revision: RecordRevision) => {
      await store.append(revision, eventOf(revision));
      return revision;
    };

    beforeEach(async () => {
      clock = new ManualClock('2026-06-01T00:00:00.000Z');
      fixture = await create(clock);
      store = fixture.store;
    });

    afterEach(async () => {
      await fixture.close();
    });

    describe('Method: append', () => {
      it('creates revision 1 and makes it the head', async () => {
        // Prepare
        const id = newRecordId();
        // Act
        await append(revisionOf(notes, id, 1));
        // Assess
        const head = await store.getHead(notes, id);
        expect(head?.revision).toBe(1);
        expect(head?.content).toEqual({ text: `note ${id} revision 1`, tags: [] });
        expect(head?.provenance.createdBy).toEqual({ principal: 'alice', client: 'test-client' });
      });

      it('refuses a revision number that already exists and keeps the first', async () => {
        const id = newRecordId();
        await append(revisionOf(notes, id, 1, { content: { text: 'first', tags: [] } }));

        await expect(
          append(revisionOf(notes, id, 1, { content: { text: 'second', tags: [] } })),
        ).rejects.toBeInstanceOf(RevisionConflictError);

        expect((await store.getHead(notes, id))?.content).toEqual({ text: 'first', tags: [] });
      });

      it('lets exactly one of many concurrent writers create the same next revision', async () => {
        const id = newRecordId();
        await append(revisionOf(notes, id, 1));

        const outcomes = await Promise.allSettled(
          Array.from({ length: 8 }, (_, writer) =>
            append(revisionOf(notes, id, 2, { content: { text: `writer ${writer}`, tags: [] } })),
          ),
        );

        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
        expect(rejected).toHaveLength(7);
        for (const outcome of rejected) expect(outcome.reason).toBeInstanceOf(RevisionConflictError);
        expect((await store.listRevisions(notes, id, { limit: 10 })).items.map((r) => r.revision)).toEqual([1, 2]);
      });
    });

    describe('Method: append, after another write', () => {
      it('writes only once `after` has resolved, and nothing at all when it rejects', async () => {
        const [waiting, refused] = [revisionOf(notes, newRecordId(), 1), revisionOf(notes, newRecordId(), 1)];
        let release: () => void = () => undefined;
        const after = new Promise<void>((resolve) => {
          release = resolve;
        });

        const appending = store.append(waiting, eventOf(waiting), { after });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await store.getHead(notes, waiting.id)).toBeUndefined();
        release();
        await appending;
        const failure = new Error('the write it refers to failed');
        await expect(store.append(refused, eventOf(refused), { after: Promise.reject(failure) })).rejects.toBe(failure);

        expect((await store.getHead(notes, waiting.id))?.revision).toBe(1);
        expect(await store.getHead(notes, refused.id)).toBeUndefined();
        expect((await store.pendingEvents(10)).map((entry) => entry.event.record_id)).toEqual([waiting.id]);
      });
    });

    describe('Method: getHead', () => {
      it('returns the greatest revision', async () => {
        const id = newRecordId();
        for (const revision of [1, 2, 3]) await append(revisionOf(notes, id, revision));

        expect((await store.getHead(notes, id))?.revision).toBe(3);
      });

      it('returns a tombstone as the head of a deleted record', async () => {
        const id = newRecordId();
        await append(revisionOf(notes, id, 1));
        await append(revisionOf(notes, id, 2, { status: 'deleted', content: null }));

        const head = await store.getHead(notes, id);
        expect(head?.status).toBe('deleted');
        expect(head?.content).toBeNull();
      });

      it('finds nothing under any other namespace', async () => {
        const id = newRecordId();
        await append(revisionOf(notes, id, 1));
        const elsewhere = [
          scopeOf({ tenant: 'acme', sub: 'bob' }).namespace(KINDS.note),
          scopeOf({ tenant: 'globex', sub: 'alice' }).namespace(KINDS.note),
          alice.namespace(KINDS.note, { agent: 'coder' }),
          alice.namespace(KINDS.note, { project: 'p7' }),
          alice.namespace(KINDS.profile),
        ];

        for (const namespace of elsewhere) {
          expect(await store.getHead(namespace, id)).toBeUndefined();
          expect(await store.getRevision(namespace, id, 1)).toBeUndefined();
          expect((await store.listHeads(namespace, { limit: 10 })).items).toEqual([]);
          expect((await store.listRevisions(namespace, id, { limit: 10 })).items).toEqual([]);
        }
      });

      it('returns nothing for an unknown id', async () => {
        expect(await store.getHead(notes, newRecordId())).toBeUndefined();
      });
    });

    describe('Method: listHeads', () => {
      it('pages through the live heads in id order with an opaque cursor', async () => {
        const ids = Array.from({ length: 7 }, () => newRecordId());
        for (const id of ids) await append(revisionOf(notes, id, 1));
        await append(revisionOf(notes, ids[2] as string, 2));

        const seen: RecordRevision[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.listHeads(notes, { limit: 3, cursor });
          expect(page.items.length).toBeLessThanOrEqual(3);
          seen.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);

        expect(seen.map((head) => head.id)).toEqual(ids);
        expect(seen.find((head) => head.id === ids[2])?.revision).toBe(2);
      });

      it('pages backwards, newest id first, when asked to', async () => {
        const ids = Array.from({ length: 5 }, () => newRecordId());
        for (const id of ids) await append(revisionOf(notes, id, 1));

        const seen: RecordRevision[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.listHeads(notes, { limit: 2, cursor, descending: true });
          seen.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);

        expect(seen.map((head) => head.id)).toEqual([...ids].reverse());
      });

      it('leaves out deleted records', async () => {
        const [kept, deleted] = [newRecordId(), newRecordId()];
        await append(revisionOf(notes, kept, 1));
        await append(revisionOf(notes, deleted, 1));
        await append(revisionOf(notes, deleted, 2, { status: 'deleted', content: null }));

        expect((await store.listHeads(notes, { limit: 10 })).items.map((head) => head.id)).toEqual([kept]);
      });

      it('refuses a cursor it did not issue', async () => {
        const forged = Buffer.from(JSON.stringify({ v: 1, p: 'R#x#0000000001' })).toString('base64url');
        await expect(store.listHeads(notes, { limit: 3, cursor: forged })).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(store.listHeads(notes, { limit: 3, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
          InvalidCursorError,
        );
      });
    });

    describe('Method: listRevisions', () => {
      it('lists every revision oldest first, paged', async () => {
        const id = newRecordId();
        for (const revision of [1, 2, 3, 4, 5]) await append(revisionOf(notes, id, revision));

        const first = await store.listRevisions(notes, id, { limit: 2 });
        const second = await store.listRevisions(notes, id, { limit: 10, cursor: first.nextCursor });

        expect(first.items.map((r) => r.revision)).toEqual([1, 2]);
        expect(second.items.map((r) => r.revision)).toEqual([3, 4, 5]);
        expect(second.nextCursor).toBeUndefined();
      });
    });

    describe('Method: projectHead', () => {
      it('moves forward only, and replays are harmless', async () => {
        const id = newRecordId();
        const first = await append(revisionOf(notes, id, 1));
        const second = await append(revisionOf(notes, id, 2));

        expect(await store.projectHead(first)).toBe(false);
        expect(await store.projectHead(second)).toBe(false);

        const [head] = (await store.listHeads(notes, { limit: 10 })).items;
        expect(head?.revision).toBe(2);
      });
    });

    describe('Expiry', () => {
      it('leaves out whatever has passed its expiry', async () => {
        const [shortLived, longLived] = [newRecordId(), newRecordId()];
        await append(revisionOf(notes, shortLived, 1, { expiresAt: '2026-06-02T00:00:00.000Z' }));
        await append(revisionOf(notes, longLived, 1, { expiresAt: '2026-12-01T00:00:00.000Z' }));
        expect((await store.listHeads(notes, { limit: 10 })).items).toHaveLength(2);

        clock.advanceDays(2);

        expect(await store.getHead(notes, shortLived)).toBeUndefined();
        expect(await store.getRevision(notes, shortLived, 1)).toBeUndefined();
        expect((await store.listRevisions(notes, shortLived, { limit: 10 })).items).toEqual([]);
        expect((await store.listHeads(notes, { limit: 10 })).items.map((head) => head.id)).toEqual([longLived]);
      });
    });

    describe('Method: listExpiredHeads', () => {
      it('finds heads of any status whose expiry is at or before the given instant', async () => {
        const [soon, later, deleted] = [newRecordId(), newRecordId(), newRecordId()];
        await append(revisionOf(notes, soon, 1, { expiresAt: '2026-06-02T00:00:00.000Z' }));
        await append(revisionOf(notes, later, 1, { expiresAt: '2026-09-01T00:00:00.000Z' }));
        await append(revisionOf(notes, deleted, 1, { expiresAt: '2026-06-03T00:00:00.000Z' }));
        await append(
          revisionOf(notes, deleted, 2, { status: 'deleted', content: null, expiresAt: '2026-06-03T00:00:00.000Z' }),
        );

        const found = await store.listExpiredHeads(notes, { limit: 10, expiredBefore: '2026-07-01T00:00:00.000Z' });

        expect(found.items.map((head) => [head.id, head.status]).sort()).toEqual(
          [
            [soon, 'active'],
            [deleted, 'deleted'],
          ].sort(),
        );
      });
    });

    describe('Method: listRecordIds', () => {
      it('pages through each record id once, however many revisions it has', async () => {
        const ids = [newRecordId(), newRecordId(), newRecordId()];
        for (const id of ids) for (const revision of [1, 2, 3]) await append(revisionOf(notes, id, revision));

        const first = await store.listRecordIds(notes, { limit: 2 });
        const rest = await store.listRecordIds(notes, { limit: 2, cursor: first.nextCursor });

        expect([...first.items, ...rest.items]).toEqual(ids);
        expect(rest.nextCursor).toBeUndefined();
      });
    });

    describe('Method: purge', () => {
      it('removes every revision and the head of one record, and nothing else', async () => {
        const [gone, kept] = [newRecordId(), newRecordId()];
        for (const revision of [1, 2]) await append(revisionOf(notes, gone, revision));
        await append(revisionOf(notes, kept, 1));

        expect(await store.purge(notes, gone)).toBe(3);

        expect(await store.getHead(notes, gone)).toBeUndefined();
        expect((await store.listRevisions(notes, gone, { limit: 10 })).items).toEqual([]);
        expect((await store.listHeads(notes, { limit: 10 })).items.map((head) => head.id)).toEqual([kept]);
        expect(await store.purge(notes, gone)).toBe(0);
      });
    });

    describe('Namespace directory', () => {
      it('records each namespace on first write and resolves it from its hash', async () => {
        const agentNotes = alice.namespace(KINDS.note, { agent: 'coder' });
        const bobs = scopeOf({ tenant: 'globex', sub: 'bob' }).namespace(KINDS.note);
        for (const namespace of [notes, agentNotes, bobs]) await append(revisionOf(namespace, newRecordId(), 1));
        await append(revisionOf(notes, newRecordId(), 1));

        expect(await store.resolve('acme', agentNotes.hash)).toEqual({
          key: agentNotes.key,
          hash: agentNotes.hash,
          tenant: 'acme',
        });
        expect(await store.resolve('acme', bobs.hash)).toBeUndefined();
        const acme = await store.list({ limit: 10, tenant: 'acme' });
        expect(acme.items.map((entry) => entry.key).sort()).toEqual([notes.key, agentNotes.key].sort());
        const everyone = await store.list({ limit: 10 });
        expect(everyone.items).toHaveLength(3);
      });
    });

    describe('Journal kinds (session events)', () => {
      const events = alice.namespace(KINDS['session-events'], { session: 's1' });

      it('keep each record as its single revision: its head, listed either way, never revised or projected', async () => {
        const ids = [newRecordId(), newRecordId(), newRecordId()];
        for (const id of ids) await append(revisionOf(events, id, 1));

        expect((await store.getHead(events, ids[1] as string))?.revision).toBe(1);
        const oldestFirst = await store.listHeads(events, { limit: 2 });
        const rest = await store.listHeads(events, { limit: 2, cursor: oldestFirst.nextCursor });
        expect([...oldestFirst.items, ...rest.items].map((head) => head.id)).toEqual(ids);
        const newestFirst = await store.listHeads(events, { limit: 10, descending: true });
        expect(newestFirst.items.map((head) => head.id)).toEqual([...ids].reverse());

        const first = revisionOf(events, ids[0] as string, 1);
        await expect(store.append(revisionOf(events, ids[0] as string, 2), eventOf(first))).rejects.toThrow(
          /written once/,
        );
        await expect(append(first)).rejects.toBeInstanceOf(RevisionConflictError);
        expect(await store.projectHead(first)).toBe(false);
        expect(await store.projectedRevision(events, ids[0] as string)).toBe(1);
        expect((await store.listRevisions(events, ids[0] as string, { limit: 10 })).items).toHaveLength(1);
        expect(await store.listRecordIds(events, { limit: 10 })).toEqual({ items: ids, nextCursor: undefined });
      });

      it('expire like any record and are purged as the one item they are', async () => {
        const [soon, later] = [newRecordId(), newRecordId()];
        await append(revisionOf(events, soon, 1, { expiresAt: '2026-06-02T00:00:00.000Z' }));
        await append(revisionOf(events, later, 1, { expiresAt: '2026-12-01T00:00:00.000Z' }));

        clock.advanceDays(2);

        expect(await store.getHead(events, soon)).toBeUndefined();
        expect((await store.listHeads(events, { limit: 10 })).items.map((head) => head.id)).toEqual([later]);
        const expired = await store.listExpiredHeads(events, { limit: 10, expiredBefore: clock.now().toISOString() });
        expect(expired.items.map((head) => head.id)).toEqual([soon]);
        expect(await store.purge(events, soon)).toBe(1);
        expect(
          (await store.listExpiredHeads(events, { limit: 10, expiredBefore: clock.now().toISOString() })).items,
        ).toEqual([]);
      });
    });

    describe('Outbox', () => {
      it('holds each committed revision until its marker is cleared, and clearing twice is harmless', async () => {
        const id = newRecordId();
        const first = revisionOf(notes, id, 1);
        const event = eventOf(first);
        await store.append(first, event);

        const pending = await store.pendingEvents(10);
        expect(pending.map((entry) => entry.event)).toContainEqual(event);
        expect(JSON.stringify(pending)).not.toContain(`note ${id}`);

        const marker = pending.find((entry) => entry.event.event_id === event.event_id)?.marker as string;
        await store.clearOutboxMarker(marker);
        await store.clearOutboxMarker(marker);

        expect((await store.pendingEvents(10)).map((entry) => entry.event.event_id)).not.toContain(event.event_id);
        expect((await store.getHead(notes, id))?.revision).toBe(1);
      });
    });
  });
};
