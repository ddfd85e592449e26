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
