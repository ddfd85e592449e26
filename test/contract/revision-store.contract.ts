import { describe, expect, it } from 'vitest';
import { RevisionConflictError } from '../../lambdas/kernel/records/record.errors.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';
import { type CreateRecordStorage, recordStorageContext } from './record-storage.fixture.ts';

/** What every RevisionStore must do (see `record-storage.fixture.ts` for the storages it runs against). */
export const describeRevisionStoreContract = (name: string, create: CreateRecordStorage) => {
  describe(`Contract: RevisionStore (${name})`, () => {
    const context = recordStorageContext(create);
    describe('Method: append', () => {
      it('creates revision 1 and makes it the head', async () => {
        // Prepare
        const id = newRecordId();
        // Act
        await context.append(revisionOf(context.notes, id, 1));
        // Assess
        const head = await context.storage.revisions.getHead(context.notes, id);
        expect(head?.revision).toBe(1);
        expect(head?.content).toEqual({ text: `note ${id} revision 1`, tags: [] });
        expect(head?.provenance.createdBy).toEqual({ principal: 'alice', client: 'test-client' });
      });

      it('refuses a revision number that already exists and keeps the first', async () => {
        const id = newRecordId();
        await context.append(revisionOf(context.notes, id, 1, { content: { text: 'first', tags: [] } }));

        await expect(
          context.append(revisionOf(context.notes, id, 1, { content: { text: 'second', tags: [] } })),
        ).rejects.toBeInstanceOf(RevisionConflictError);

        expect((await context.storage.revisions.getHead(context.notes, id))?.content).toEqual({
          text: 'first',
          tags: [],
        });
      });

      it('lets exactly one of many concurrent writers create the same next revision', async () => {
        const id = newRecordId();
        await context.append(revisionOf(context.notes, id, 1));

        const outcomes = await Promise.allSettled(
          Array.from({ length: 8 }, (_, writer) =>
            context.append(revisionOf(context.notes, id, 2, { content: { text: `writer ${writer}`, tags: [] } })),
          ),
        );

        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
        expect(rejected).toHaveLength(7);
        for (const outcome of rejected) expect(outcome.reason).toBeInstanceOf(RevisionConflictError);
        expect(
          (await context.storage.revisions.listRevisions(context.notes, id, { limit: 10 })).items.map(
            (r) => r.revision,
          ),
        ).toEqual([1, 2]);
      });
    });

    describe('Method: append, after another write', () => {
      it('writes only once `after` has resolved, and nothing at all when it rejects', async () => {
        const [waiting, refused] = [
          revisionOf(context.notes, newRecordId(), 1),
          revisionOf(context.notes, newRecordId(), 1),
        ];
        let release: () => void = () => undefined;
        const after = new Promise<void>((resolve) => {
          release = resolve;
        });

        const appending = context.storage.revisions.append(waiting, eventOf(waiting), { after });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await context.storage.revisions.getHead(context.notes, waiting.id)).toBeUndefined();
        release();
        await appending;
        const failure = new Error('the write it refers to failed');
        await expect(
          context.storage.revisions.append(refused, eventOf(refused), { after: Promise.reject(failure) }),
        ).rejects.toBe(failure);

        expect((await context.storage.revisions.getHead(context.notes, waiting.id))?.revision).toBe(1);
        expect(await context.storage.revisions.getHead(context.notes, refused.id)).toBeUndefined();
        expect((await context.storage.outbox.pendingEvents(10)).map((entry) => entry.event.record_id)).toEqual([
          waiting.id,
        ]);
      });
    });

    describe('Method: getHead', () => {
      it('returns the greatest revision', async () => {
        const id = newRecordId();
        for (const revision of [1, 2, 3]) await context.append(revisionOf(context.notes, id, revision));

        expect((await context.storage.revisions.getHead(context.notes, id))?.revision).toBe(3);
      });

      it('returns a tombstone as the head of a deleted record', async () => {
        const id = newRecordId();
        await context.append(revisionOf(context.notes, id, 1));
        await context.append(revisionOf(context.notes, id, 2, { status: 'deleted', content: null }));

        const head = await context.storage.revisions.getHead(context.notes, id);
        expect(head?.status).toBe('deleted');
        expect(head?.content).toBeNull();
      });

      it('finds nothing under any other namespace', async () => {
        const id = newRecordId();
        await context.append(revisionOf(context.notes, id, 1));
        const elsewhere = [
          scopeOf({ tenant: 'acme', sub: 'bob' }).namespace(KINDS.note),
          scopeOf({ tenant: 'globex', sub: 'alice' }).namespace(KINDS.note),
          context.alice.namespace(KINDS.note, { agent: 'coder' }),
          context.alice.namespace(KINDS.note, { project: 'p7' }),
          context.alice.namespace(KINDS.profile),
        ];

        for (const namespace of elsewhere) {
          expect(await context.storage.revisions.getHead(namespace, id)).toBeUndefined();
          expect(await context.storage.revisions.getRevision(namespace, id, 1)).toBeUndefined();
          expect((await context.storage.heads.listHeads(namespace, { limit: 10 })).items).toEqual([]);
          expect((await context.storage.revisions.listRevisions(namespace, id, { limit: 10 })).items).toEqual([]);
        }
      });

      it('returns nothing for an unknown id', async () => {
        expect(await context.storage.revisions.getHead(context.notes, newRecordId())).toBeUndefined();
      });
    });

    describe('Method: listRevisions', () => {
      it('lists every revision oldest first, paged', async () => {
        const id = newRecordId();
        for (const revision of [1, 2, 3, 4, 5]) await context.append(revisionOf(context.notes, id, revision));

        const first = await context.storage.revisions.listRevisions(context.notes, id, { limit: 2 });
        const second = await context.storage.revisions.listRevisions(context.notes, id, {
          limit: 10,
          cursor: first.nextCursor,
        });

        expect(first.items.map((r) => r.revision)).toEqual([1, 2]);
        expect(second.items.map((r) => r.revision)).toEqual([3, 4, 5]);
        expect(second.nextCursor).toBeUndefined();
      });
    });

    describe('Keys where one begins with another', () => {
      // Records whose id is their name (guardrails) have ids like these; one id must never reach the other's items.
      const [shorter, longer] = ['response.length', 'response.length.max'];

      it('keeps a record apart from one whose id begins with its own', async () => {
        // Prepare
        await context.append(revisionOf(context.notes, shorter, 1, { content: { text: 'the shorter', tags: [] } }));
        for (const revision of [1, 2, 3])
          await context.append(
            revisionOf(context.notes, longer, revision, { content: { text: `the longer ${revision}`, tags: [] } }),
          );

        // Act
        const head = await context.storage.revisions.getHead(context.notes, shorter);
        const revisions = await context.storage.revisions.listRevisions(context.notes, shorter, { limit: 10 });

        // Assess
        expect(head).toMatchObject({ id: shorter, revision: 1, content: { text: 'the shorter', tags: [] } });
        expect(await context.storage.revisions.getRevision(context.notes, shorter, 2)).toBeUndefined();
        expect(revisions.items.map((revision) => [revision.id, revision.revision])).toEqual([[shorter, 1]]);
        expect((await context.storage.revisions.getHead(context.notes, longer))?.revision).toBe(3);
        expect(
          (await context.storage.revisions.listRevisions(context.notes, longer, { limit: 10 })).items.map(
            (revision) => revision.revision,
          ),
        ).toEqual([1, 2, 3]);
      });

      it('keeps a namespace apart from those whose keys begin with its own (agents, sessions)', async () => {
        // Prepare: the principal's own key begins every agent's and session's key; `s1` begins `s10`.
        const own = context.alice.namespace(KINDS['session-events']);
        const first = context.alice.namespace(KINDS['session-events'], { session: 's1' });
        const tenth = context.alice.namespace(KINDS['session-events'], { session: 's10' });
        const [inTenth, inOwn] = [newRecordId(), newRecordId()];
        await context.append(revisionOf(tenth, inTenth, 1));
        await context.append(revisionOf(own, inOwn, 1));

        // Act
        const seenInFirst = await context.storage.revisions.getHead(first, inTenth);

        // Assess
        expect(seenInFirst).toBeUndefined();
        expect(await context.storage.revisions.getHead(own, inTenth)).toBeUndefined();
        expect(await context.storage.revisions.getHead(first, inOwn)).toBeUndefined();
        expect((await context.storage.revisions.listRevisions(first, inTenth, { limit: 10 })).items).toEqual([]);
        expect((await context.storage.revisions.getHead(tenth, inTenth))?.revision).toBe(1);
      });
    });

    describe('Expiry', () => {
      it('leaves out whatever has passed its expiry', async () => {
        const [shortLived, longLived] = [newRecordId(), newRecordId()];
        await context.append(revisionOf(context.notes, shortLived, 1, { expiresAt: '2026-06-02T00:00:00.000Z' }));
        await context.append(revisionOf(context.notes, longLived, 1, { expiresAt: '2026-12-01T00:00:00.000Z' }));
        expect((await context.storage.heads.listHeads(context.notes, { limit: 10 })).items).toHaveLength(2);

        context.clock.advanceDays(2);

        expect(await context.storage.revisions.getHead(context.notes, shortLived)).toBeUndefined();
        expect(await context.storage.revisions.getRevision(context.notes, shortLived, 1)).toBeUndefined();
        expect((await context.storage.revisions.listRevisions(context.notes, shortLived, { limit: 10 })).items).toEqual(
          [],
        );
        expect(
          (await context.storage.heads.listHeads(context.notes, { limit: 10 })).items.map((head) => head.id),
        ).toEqual([longLived]);
      });
    });

    describe('Journal kinds (session events)', () => {
      const events = context.alice.namespace(KINDS['session-events'], { session: 's1' });

      it('keep each record as its single revision: its head, listed either way, never revised or projected', async () => {
        const ids = [newRecordId(), newRecordId(), newRecordId()];
        for (const id of ids) await context.append(revisionOf(events, id, 1));

        expect((await context.storage.revisions.getHead(events, ids[1] as string))?.revision).toBe(1);
        const oldestFirst = await context.storage.heads.listHeads(events, { limit: 2 });
        const rest = await context.storage.heads.listHeads(events, { limit: 2, cursor: oldestFirst.nextCursor });
        expect([...oldestFirst.items, ...rest.items].map((head) => head.id)).toEqual(ids);
        const newestFirst = await context.storage.heads.listHeads(events, { limit: 10, descending: true });
        expect(newestFirst.items.map((head) => head.id)).toEqual([...ids].reverse());

        const first = revisionOf(events, ids[0] as string, 1);
        await expect(
          context.storage.revisions.append(revisionOf(events, ids[0] as string, 2), eventOf(first)),
        ).rejects.toThrow(/written once/);
        await expect(context.append(first)).rejects.toBeInstanceOf(RevisionConflictError);
        expect(await context.storage.heads.projectHead(first)).toBe(false);
        expect(await context.storage.heads.projectedRevision(events, ids[0] as string)).toBe(1);
        expect(
          (await context.storage.revisions.listRevisions(events, ids[0] as string, { limit: 10 })).items,
        ).toHaveLength(1);
        expect(await context.storage.maintenance.listRecordIds(events, { limit: 10 })).toEqual({
          items: ids,
          nextCursor: undefined,
        });
      });
    });
  });
};
