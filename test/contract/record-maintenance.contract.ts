import { describe, expect, it } from 'vitest';
import { KINDS } from '../support/record-kinds.ts';
import { newRecordId, revisionOf } from '../support/revisions.ts';
import { type CreateRecordStorage, recordStorageContext } from './record-storage.fixture.ts';

/** What every RecordMaintenance must do (see `record-storage.fixture.ts` for the storages it runs against). */
export const describeRecordMaintenanceContract = (name: string, create: CreateRecordStorage) => {
  describe(`Contract: RecordMaintenance (${name})`, () => {
    const context = recordStorageContext(create);
    describe('Method: listExpiredHeads', () => {
      it('finds heads of any status whose expiry is at or before the given instant', async () => {
        const [soon, later, deleted] = [newRecordId(), newRecordId(), newRecordId()];
        await context.append(revisionOf(context.notes, soon, 1, { expiresAt: '2026-06-02T00:00:00.000Z' }));
        await context.append(revisionOf(context.notes, later, 1, { expiresAt: '2026-09-01T00:00:00.000Z' }));
        await context.append(revisionOf(context.notes, deleted, 1, { expiresAt: '2026-06-03T00:00:00.000Z' }));
        await context.append(
          revisionOf(context.notes, deleted, 2, {
            status: 'deleted',
            content: null,
            expiresAt: '2026-06-03T00:00:00.000Z',
          }),
        );

        const found = await context.storage.maintenance.listExpiredHeads(context.notes, {
          limit: 10,
          expiredBefore: '2026-07-01T00:00:00.000Z',
        });

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
        for (const id of ids)
          for (const revision of [1, 2, 3]) await context.append(revisionOf(context.notes, id, revision));

        const first = await context.storage.maintenance.listRecordIds(context.notes, { limit: 2 });
        const rest = await context.storage.maintenance.listRecordIds(context.notes, {
          limit: 2,
          cursor: first.nextCursor,
        });

        expect([...first.items, ...rest.items]).toEqual(ids);
        expect(rest.nextCursor).toBeUndefined();
      });
    });

    describe('Method: purge', () => {
      it('removes every revision and the head of one record, and nothing else', async () => {
        const [gone, kept] = [newRecordId(), newRecordId()];
        for (const revision of [1, 2]) await context.append(revisionOf(context.notes, gone, revision));
        await context.append(revisionOf(context.notes, kept, 1));

        expect(await context.storage.maintenance.purge(context.notes, gone)).toBe(3);

        expect(await context.storage.revisions.getHead(context.notes, gone)).toBeUndefined();
        expect((await context.storage.revisions.listRevisions(context.notes, gone, { limit: 10 })).items).toEqual([]);
        expect(
          (await context.storage.heads.listHeads(context.notes, { limit: 10 })).items.map((head) => head.id),
        ).toEqual([kept]);
        expect(await context.storage.maintenance.purge(context.notes, gone)).toBe(0);
      });
    });

    describe('Keys where one begins with another', () => {
      const [shorter, longer] = ['response.length', 'response.length.max'];

      it('purges one record and leaves the record whose id begins with its own untouched', async () => {
        // Prepare
        await context.append(revisionOf(context.notes, shorter, 1));
        for (const revision of [1, 2]) await context.append(revisionOf(context.notes, longer, revision));

        // Act
        const removed = await context.storage.maintenance.purge(context.notes, shorter);

        // Assess: its one revision and its head, nothing of the other
        expect(removed).toBe(2);
        expect(await context.storage.revisions.getHead(context.notes, shorter)).toBeUndefined();
        expect(
          (await context.storage.revisions.listRevisions(context.notes, longer, { limit: 10 })).items.map(
            (revision) => revision.revision,
          ),
        ).toEqual([1, 2]);
        expect(
          (await context.storage.heads.listHeads(context.notes, { limit: 10 })).items.map((head) => head.id),
        ).toEqual([longer]);
      });

      it('lists each such record id once', async () => {
        for (const revision of [1, 2]) await context.append(revisionOf(context.notes, shorter, revision));
        await context.append(revisionOf(context.notes, longer, 1));

        const ids = await context.storage.maintenance.listRecordIds(context.notes, { limit: 10 });

        expect(ids.items).toEqual([shorter, longer]);
      });

      it("walks and purges a namespace's own records only, not those of namespaces whose keys begin with its key", async () => {
        // Prepare: the principal's own key begins the agent's, and `s1` begins `s10`.
        const coder = context.alice.namespace(KINDS.note, { agent: 'coder' });
        const first = context.alice.namespace(KINDS['session-events'], { session: 's1' });
        const tenth = context.alice.namespace(KINDS['session-events'], { session: 's10' });
        const expiresAt = '2026-06-02T00:00:00.000Z';
        const [ofCoder, inTenth] = [newRecordId(), newRecordId()];
        await context.append(revisionOf(coder, ofCoder, 1, { expiresAt }));
        await context.append(revisionOf(tenth, inTenth, 1, { expiresAt }));
        const expiredBefore = '2026-07-01T00:00:00.000Z';

        // Act
        const idsOfOwn = await context.storage.maintenance.listRecordIds(context.notes, { limit: 10 });
        const expiredOfOwn = await context.storage.maintenance.listExpiredHeads(context.notes, {
          limit: 10,
          expiredBefore,
        });
        const purgedFromOwn = await context.storage.maintenance.purge(context.notes, ofCoder);
        const purgedFromFirst = await context.storage.maintenance.purge(first, inTenth);

        // Assess
        expect(idsOfOwn.items).toEqual([]);
        expect((await context.storage.maintenance.listRecordIds(first, { limit: 10 })).items).toEqual([]);
        expect(expiredOfOwn.items).toEqual([]);
        expect((await context.storage.maintenance.listExpiredHeads(first, { limit: 10, expiredBefore })).items).toEqual(
          [],
        );
        expect([purgedFromOwn, purgedFromFirst]).toEqual([0, 0]);
        expect((await context.storage.maintenance.listRecordIds(coder, { limit: 10 })).items).toEqual([ofCoder]);
        expect((await context.storage.maintenance.listRecordIds(tenth, { limit: 10 })).items).toEqual([inTenth]);
      });
    });

    describe('Journal kinds (session events)', () => {
      const events = context.alice.namespace(KINDS['session-events'], { session: 's1' });

      it('expire like any record and are purged as the one item they are', async () => {
        const [soon, later] = [newRecordId(), newRecordId()];
        await context.append(revisionOf(events, soon, 1, { expiresAt: '2026-06-02T00:00:00.000Z' }));
        await context.append(revisionOf(events, later, 1, { expiresAt: '2026-12-01T00:00:00.000Z' }));

        context.clock.advanceDays(2);

        expect(await context.storage.revisions.getHead(events, soon)).toBeUndefined();
        expect((await context.storage.heads.listHeads(events, { limit: 10 })).items.map((head) => head.id)).toEqual([
          later,
        ]);
        const expired = await context.storage.maintenance.listExpiredHeads(events, {
          limit: 10,
          expiredBefore: context.clock.now().toISOString(),
        });
        expect(expired.items.map((head) => head.id)).toEqual([soon]);
        expect(await context.storage.maintenance.purge(events, soon)).toBe(1);
        expect(
          (
            await context.storage.maintenance.listExpiredHeads(events, {
              limit: 10,
              expiredBefore: context.clock.now().toISOString(),
            })
          ).items,
        ).toEqual([]);
      });
    });
  });
};
