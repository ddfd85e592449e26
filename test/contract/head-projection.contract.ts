import { describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../../lambdas/kernel/records/record.errors.ts';
import type { RecordRevision } from '../../lambdas/kernel/records/record.schema.ts';
import { KINDS } from '../support/record-kinds.ts';
import { newRecordId, revisionOf } from '../support/revisions.ts';
import { type CreateRecordStorage, recordStorageContext } from './record-storage.fixture.ts';

/** What every HeadProjection must do (see `record-storage.fixture.ts` for the storages it runs against). */
export const describeHeadProjectionContract = (name: string, create: CreateRecordStorage) => {
  describe(`Contract: HeadProjection (${name})`, () => {
    const context = recordStorageContext(create);
    describe('Method: listHeads', () => {
      it('pages through the live heads in id order with an opaque cursor', async () => {
        const ids = Array.from({ length: 7 }, () => newRecordId());
        for (const id of ids) await context.append(revisionOf(context.notes, id, 1));
        await context.append(revisionOf(context.notes, ids[2] as string, 2));

        const seen: RecordRevision[] = [];
        let cursor: string | undefined;
        do {
          const page = await context.storage.heads.listHeads(context.notes, { limit: 3, cursor });
          expect(page.items.length).toBeLessThanOrEqual(3);
          seen.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);

        expect(seen.map((head) => head.id)).toEqual(ids);
        expect(seen.find((head) => head.id === ids[2])?.revision).toBe(2);
      });

      it('pages backwards, newest id first, when asked to', async () => {
        const ids = Array.from({ length: 5 }, () => newRecordId());
        for (const id of ids) await context.append(revisionOf(context.notes, id, 1));

        const seen: RecordRevision[] = [];
        let cursor: string | undefined;
        do {
          const page = await context.storage.heads.listHeads(context.notes, { limit: 2, cursor, descending: true });
          seen.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);

        expect(seen.map((head) => head.id)).toEqual([...ids].reverse());
      });

      it('leaves out deleted records', async () => {
        const [kept, deleted] = [newRecordId(), newRecordId()];
        await context.append(revisionOf(context.notes, kept, 1));
        await context.append(revisionOf(context.notes, deleted, 1));
        await context.append(revisionOf(context.notes, deleted, 2, { status: 'deleted', content: null }));

        expect(
          (await context.storage.heads.listHeads(context.notes, { limit: 10 })).items.map((head) => head.id),
        ).toEqual([kept]);
      });

      it('refuses a cursor it did not issue', async () => {
        const forged = Buffer.from(JSON.stringify({ v: 1, p: 'R#x#0000000001' })).toString('base64url');
        await expect(
          context.storage.heads.listHeads(context.notes, { limit: 3, cursor: forged }),
        ).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(
          context.storage.heads.listHeads(context.notes, { limit: 3, cursor: 'not-a-cursor' }),
        ).rejects.toBeInstanceOf(InvalidCursorError);
      });
    });

    describe('Keys where one begins with another', () => {
      it("lists a namespace's own heads only, not those of namespaces whose keys begin with its key", async () => {
        // Prepare: the principal's own key begins every agent's key, and agent `coder`'s begins `coder2`'s.
        const coder = context.alice.namespace(KINDS.note, { agent: 'coder' });
        const coder2 = context.alice.namespace(KINDS.note, { agent: 'coder2' });
        const [own, ofCoder, ofCoder2] = [newRecordId(), newRecordId(), newRecordId()];
        await context.append(revisionOf(context.notes, own, 1));
        await context.append(revisionOf(coder, ofCoder, 1));
        await context.append(revisionOf(coder2, ofCoder2, 1));

        // Act
        const listed = await Promise.all(
          [context.notes, coder, coder2].map((namespace) => context.storage.heads.listHeads(namespace, { limit: 10 })),
        );

        // Assess
        expect(listed.map((page) => page.items.map((head) => head.id))).toEqual([[own], [ofCoder], [ofCoder2]]);
      });

      it('lists each of two records whose ids begin alike once, at its own revision', async () => {
        const [shorter, longer] = ['response.length', 'response.length.max'];
        await context.append(revisionOf(context.notes, shorter, 1));
        await context.append(revisionOf(context.notes, longer, 1));
        await context.append(revisionOf(context.notes, longer, 2));

        const heads = await context.storage.heads.listHeads(context.notes, { limit: 10 });

        expect(heads.items.map((head) => [head.id, head.revision])).toEqual([
          [shorter, 1],
          [longer, 2],
        ]);
        expect(await context.storage.heads.projectedRevision(context.notes, shorter)).toBe(1);
      });
    });

    describe('Method: projectHead', () => {
      it('moves forward only, and replays are harmless', async () => {
        const id = newRecordId();
        const first = await context.append(revisionOf(context.notes, id, 1));
        const second = await context.append(revisionOf(context.notes, id, 2));

        expect(await context.storage.heads.projectHead(first)).toBe(false);
        expect(await context.storage.heads.projectHead(second)).toBe(false);

        const [head] = (await context.storage.heads.listHeads(context.notes, { limit: 10 })).items;
        expect(head?.revision).toBe(2);
      });
    });

    describe('Method: projectCommitted', () => {
      it('changes nothing for a revision the head holds or has passed, or one never stored', async () => {
        const id = newRecordId();
        await context.append(revisionOf(context.notes, id, 1));
        await context.append(revisionOf(context.notes, id, 2));

        const moved = await Promise.all(
          [2, 1, 3].map((revision) => context.storage.heads.projectCommitted(context.notes, id, revision)),
        );

        expect(moved).toEqual([false, false, false]);
        expect(await context.storage.heads.projectCommitted(context.notes, newRecordId(), 1)).toBe(false);
        expect(await context.storage.heads.projectedRevision(context.notes, id)).toBe(2);
      });
    });
  });
};
