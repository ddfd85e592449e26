import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../../lambdas/kernel/records/record.errors.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';

describe('Class: MemoryTableClient (on the embedded engine)', () => {
  let embedded: EmbeddedTable;

  beforeAll(async () => {
    embedded = await startEmbeddedTable();
    for (const sk of ['A#1', 'A#2', 'A#3']) await embedded.table.put({ pk: 'p', sk });
  });

  afterAll(async () => {
    await embedded.close();
  });

  describe('Method: querySortKeys', () => {
    it('continues after a start key inside the range it reads', async () => {
      const page = await embedded.table.querySortKeys({ pk: 'p', from: 'A#2', after: 'A#2' });

      expect(page.items.map((item) => item.sk)).toEqual(['A#3']);
    });

    it('translates the engine refusing a start key outside the range into InvalidCursorError, cause kept', async () => {
      // Prepare: a start key below `from` and one outside the prefix, which the engine (and DynamoDB) refuse.
      const outOfRange = [
        { pk: 'p', from: 'A#2', after: 'A#1' },
        { pk: 'p', prefix: 'A#', after: 'B#1' },
      ] as const;

      for (const query of outOfRange) {
        // Act
        const refused = await embedded.table.querySortKeys(query).catch((error: unknown) => error);

        // Assess
        expect(refused).toBeInstanceOf(InvalidCursorError);
        expect((refused as Error).cause).toMatchObject({ name: 'ValidationException' });
      }
    });

    it('leaves any other refusal untranslated', async () => {
      const refused = await embedded.table
        .query({ where: 'pk = :pk AND nonsense', values: { ':pk': 'p' } })
        .catch((error: unknown) => error);

      expect(refused).not.toBeInstanceOf(InvalidCursorError);
      expect(refused).toMatchObject({ name: 'ValidationException' });
    });
  });
});
