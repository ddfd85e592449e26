import { describe, expect, it } from 'vitest';
import { KINDS } from '../support/record-kinds.ts';
import { newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';
import { type CreateRecordStorage, recordStorageContext } from './record-storage.fixture.ts';

/** What every NamespaceDirectory must do (see `record-storage.fixture.ts` for the storages it runs against). */
export const describeNamespaceDirectoryContract = (name: string, create: CreateRecordStorage) => {
  describe(`Contract: NamespaceDirectory (${name})`, () => {
    const context = recordStorageContext(create);
    describe('Method: resolve, then list', () => {
      it('records each namespace on first write and resolves it from its hash', async () => {
        const agentNotes = context.alice.namespace(KINDS.note, { agent: 'coder' });
        const bobs = scopeOf({ tenant: 'globex', sub: 'bob' }).namespace(KINDS.note);
        for (const namespace of [context.notes, agentNotes, bobs])
          await context.append(revisionOf(namespace, newRecordId(), 1));
        await context.append(revisionOf(context.notes, newRecordId(), 1));

        expect(await context.storage.directory.resolve('acme', agentNotes.hash)).toEqual({
          key: agentNotes.key,
          hash: agentNotes.hash,
          tenant: 'acme',
        });
        expect(await context.storage.directory.resolve('acme', bobs.hash)).toBeUndefined();
        const acme = await context.storage.directory.list({ limit: 10, tenant: 'acme' });
        expect(acme.items.map((entry) => entry.key).sort()).toEqual([context.notes.key, agentNotes.key].sort());
        const everyone = await context.storage.directory.list({ limit: 10 });
        expect(everyone.items).toHaveLength(3);
      });
    });
  });
};
