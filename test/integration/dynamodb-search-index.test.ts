import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbSearchIndexStore } from '../../lambdas/adapters/dynamodb/dynamodb-search-index-store.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { embeddedLegs } from '../../lambdas/capabilities/retrieval/embedded/embedded-legs.ts';
import { EmbeddedSearchIndex } from '../../lambdas/capabilities/retrieval/embedded/embedded-search-index.ts';
import { FeatureHashingEmbedder } from '../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import {
  describeSearchIndexContract,
  embeddedIndexFixture,
  searchDocument,
} from '../contract/search-index.contract.ts';
import { describeSearchIndexStoreContract } from '../contract/search-index-store.contract.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

const embedder = new FeatureHashingEmbedder();

const storeOn = (table: EmbeddedTable) => new DynamoDbSearchIndexStore({ table: table.table, cipher: table.cipher });

describeSearchIndexStoreContract('DynamoDB, on the embedded engine', async () => {
  const table = await startEmbeddedTable();
  return { store: storeOn(table), close: table.close };
});

describeSearchIndexContract('embedded, over DynamoDB on the embedded engine', async () => {
  const table = await startEmbeddedTable();
  return embeddedIndexFixture(storeOn(table), table.close);
});

describe('DynamoDB search index store: sealed beside the records', () => {
  let table: EmbeddedTable;
  const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);
  beforeEach(async () => {
    table = await startEmbeddedTable();
  });
  afterEach(async () => {
    await table.close();
  });

  it('stores no term, text or vector in clear, in the log or in snapshots', async () => {
    // Prepare
    const index = new EmbeddedSearchIndex({
      store: storeOn(table),
      parts: () => embeddedLegs(embedder),
      metrics: new InMemoryMetrics(),
      compactEvery: 2,
    });
    const document = await searchDocument({ id: 'n1', text: 'zanzibar expedition budget', tags: ['travelplans'] });

    // Act: two log entries, and so a snapshot
    await index.apply(notes, [{ type: 'upsert', document }]);
    await index.apply(notes, [{ type: 'upsert', document: { ...document, revision: 2 } }]);

    // Assess
    const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.tableName }));
    const stored = JSON.stringify(Items);
    expect(Items.map((item) => item.sk?.S?.slice(0, 4)).sort()).toEqual(['S#c#', 'S#c#', 'S#h#', 'S#s#']);
    for (const clear of [
      'zanzibar',
      'expedition',
      'budget',
      'travelplans',
      String(document.vector?.find((v) => v !== 0)),
    ])
      expect(stored).not.toContain(clear);
  });

  it('refuses a sealed entry moved to another place: it does not open there', async () => {
    // Prepare: alice's entry copied into bob's partition, at the same sequence
    const store = storeOn(table);
    const bobsNotes = scopeOf({ sub: 'bob' }).namespace(KINDS.note);
    await store.append(notes, { sequence: 1, body: new Uint8Array(Buffer.from('alice only')) });
    const [item] = (await table.table.query({ where: 'pk = :pk', values: { ':pk': notes.key } })).items;
    await table.table.put({ ...item, pk: bobsNotes.key });

    // Act
    const read = store.entriesAfter(bobsNotes, 0, 10);

    // Assess
    await expect(read).rejects.toThrow();
  });
});
