import { describe, expect, it } from 'vitest';
import { InMemorySearchIndexStore } from '../../../lambdas/adapters/memory/in-memory-search-index-store.ts';
import { InMemoryMetrics } from '../../../lambdas/adapters/observability/in-memory-metrics.ts';
import { embeddedLegs } from '../../../lambdas/capabilities/retrieval/embedded/embedded-legs.ts';
import { EmbeddedSearchIndex } from '../../../lambdas/capabilities/retrieval/embedded/embedded-search-index.ts';
import { FeatureHashingEmbedder } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import type { Namespace } from '../../../lambdas/kernel/namespaces/namespace.ts';
import type { SealedEntry } from '../../../lambdas/kernel/search/search-index-store.port.ts';
import {
  describeSearchIndexContract,
  embeddedIndexFixture,
  searchDocument,
} from '../../contract/search-index.contract.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

describeSearchIndexContract('embedded, over the in-memory store', async () =>
  embeddedIndexFixture(new InMemorySearchIndexStore(), async () => {}),
);

/** The in-memory store, counting appends and refusing the ones a test asks it to. */
class CountingStore extends InMemorySearchIndexStore {
  appends = 0;
  endsRead = 0;
  logReads = 0;
  refuseAll = false;
  override async entriesAfter(namespace: Namespace, after: number, limit: number): Promise<readonly SealedEntry[]> {
    this.logReads += 1;
    return super.entriesAfter(namespace, after, limit);
  }
  override async latestSequence(namespace: Namespace): Promise<number> {
    this.endsRead += 1;
    return super.latestSequence(namespace);
  }
  override async append(namespace: Namespace, entry: SealedEntry): Promise<boolean> {
    this.appends += 1;
    if (this.refuseAll) throw new Error('the table is unavailable');
    return super.append(namespace, entry);
  }
}

describe('EmbeddedSearchIndex: one process appends to a namespace one entry at a time', () => {
  const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);
  const open = (store: CountingStore) =>
    new EmbeddedSearchIndex({
      store,
      parts: () => embeddedLegs(new FeatureHashingEmbedder()),
      metrics: new InMemoryMetrics(),
    });
  const upserts = (count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, n) => searchDocument({ id: `d${n}`, text: `release note number ${n}` })),
    );

  it('takes every change of concurrent applies, in fewer entries than applies, none lost', async () => {
    // Prepare
    const store = new CountingStore();
    const index = open(store);
    const documents = await upserts(40);

    // Act: forty consumers at once, as the local relay or concurrent events of one namespace call it
    await Promise.all(documents.map((document) => index.apply(notes, [{ type: 'upsert', document }])));
    const reopened = open(store);
    const found = await reopened.candidates(notes, { keyword: { text: 'release', limit: 50 }, filter: {} });

    // Assess: the first append alone, the other thirty-nine together while it was in flight
    expect(store.appends).toBeLessThan(10);
    expect(found.candidates.map((candidate) => candidate.document.id).sort()).toEqual(
      documents.map((document) => document.id).sort(),
    );
  });

  it('fails every apply whose changes the failed append held, and appends the next ones afresh', async () => {
    // Prepare
    const store = new CountingStore();
    const index = open(store);
    const [first, second, third] = await upserts(3);
    store.refuseAll = true;

    // Act
    const outcomes = await Promise.allSettled(
      [first, second].map((document) => index.apply(notes, [{ type: 'upsert', document: document as never }])),
    );
    store.refuseAll = false;
    await index.apply(notes, [{ type: 'upsert', document: third as never }]);
    const found = await open(store).candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });

    // Assess: the failures surface (the bus retries the events); later applies are not stuck behind them
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(found.candidates.map((candidate) => candidate.document.id)).toEqual([third?.id]);
  });

  it('appends after the end it holds without reading it, and reads it when another writer got there first', async () => {
    // Prepare: this process holds the namespace (a search loaded it); another process's index shares the store
    const store = new CountingStore();
    const index = open(store);
    const other = open(store);
    const [first, second, third] = await upserts(3);
    await index.apply(notes, [{ type: 'upsert', document: first as never }]);
    await index.candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });
    const readsBefore = store.endsRead;

    // Act
    await index.apply(notes, [{ type: 'upsert', document: second as never }]);
    const readsAlone = store.endsRead - readsBefore;
    await other.apply(notes, [{ type: 'upsert', document: third as never }]);
    await index.apply(notes, [{ type: 'upsert', document: { ...(first as never as object), revision: 2 } as never }]);
    const found = await open(store).candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });

    // Assess: no read of the end while alone; after the other writer's entry, nothing lost or overwritten
    expect(readsAlone).toBe(0);
    expect(found.candidates.map((candidate) => candidate.document.id).sort()).toEqual(['d0', 'd1', 'd2']);
    expect(found.candidates.find((candidate) => candidate.document.id === 'd0')?.document.revision).toBe(2);
  });

  it('reads the end of a namespace it never searched once, then appends after what it wrote', async () => {
    // Prepare: a consumer's index, which appends but never loads the namespace
    const store = new CountingStore();
    const consumer = open(store);
    const other = open(store);
    const [first, second, third, fourth] = await upserts(4);

    // Act
    await consumer.apply(notes, [{ type: 'upsert', document: first as never }]);
    await consumer.apply(notes, [{ type: 'upsert', document: second as never }]);
    const readsAlone = store.endsRead;
    await other.apply(notes, [{ type: 'upsert', document: third as never }]);
    await consumer.apply(notes, [{ type: 'upsert', document: fourth as never }]);
    const found = await open(store).candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });

    // Assess: one read for the first append; the other writer's entry costs one more read, and nothing is lost
    expect(readsAlone).toBe(1);
    expect(store.endsRead).toBe(3);
    expect(found.candidates.map((candidate) => candidate.document.id).sort()).toEqual(['d0', 'd1', 'd2', 'd3']);
  });
});

describe('EmbeddedSearchIndex: a process that only appends compacts without holding the namespace', () => {
  const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);
  const consumerOf = (store: CountingStore, metrics: InMemoryMetrics) =>
    new EmbeddedSearchIndex({
      store,
      parts: () => embeddedLegs(new FeatureHashingEmbedder()),
      metrics,
      compactEvery: 4,
    });
  const upsertEach = async (index: EmbeddedSearchIndex, from: number, count: number) => {
    for (let n = from; n < from + count; n++)
      await index.apply(notes, [
        { type: 'upsert', document: await searchDocument({ id: `d${n}`, text: `release note number ${n}` }) },
      ]);
  };

  it('snapshots what it appended and lets it go: it holds no documents, and a search finds them all', async () => {
    // Prepare
    const store = new CountingStore();
    const consumer = consumerOf(store, new InMemoryMetrics());

    // Act: twelve entries, one change each, and a compaction considered at every fourth
    await upsertEach(consumer, 0, 12);
    const found = await consumerOf(store, new InMemoryMetrics()).candidates(notes, {
      keyword: { text: 'release', limit: 20 },
      filter: {},
    });

    // Assess
    expect(consumer.heldDocuments).toBe(0);
    expect(await store.latestSnapshotSummary(notes)).toEqual({ sequence: 12, documents: 12 });
    expect(found.candidates).toHaveLength(12);
  });

  it("weighs a compaction on the snapshot's header, loading the namespace only once the log is long enough", async () => {
    // Prepare: a namespace of 43 documents snapshotted at sequence 4 (one entry of 40, then three)
    const store = new CountingStore();
    const metrics = new InMemoryMetrics();
    const consumer = consumerOf(store, metrics);
    const forty = await Promise.all(
      Array.from({ length: 40 }, (_, n) => searchDocument({ id: `b${n}`, text: `bulk note ${n}` })),
    );
    await consumer.apply(
      notes,
      forty.map((document) => ({ type: 'upsert', document })),
    );
    await upsertEach(consumer, 0, 3);
    const loadsAtFirstSnapshot = metrics.countOf('search.index_loaded');

    // Act: at sequences 8 and 12 the log since (4, 8 entries) is under a quarter of 43; at 16 (12 entries) not
    await upsertEach(consumer, 3, 8);
    const loadsBefore16 = metrics.countOf('search.index_loaded');
    await upsertEach(consumer, 11, 4);

    // Assess
    expect(loadsAtFirstSnapshot).toBe(1);
    expect(loadsBefore16).toBe(1);
    expect(metrics.countOf('search.index_loaded')).toBe(2);
    expect(await store.latestSnapshotSummary(notes)).toEqual({ sequence: 16, documents: 55 });
    expect(consumer.heldDocuments).toBe(0);
  });
});

describe('EmbeddedSearchIndex: a namespace read recently is searched as held', () => {
  const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);
  let now = 0;
  const open = (store: CountingStore, revalidateAfterMs: number) =>
    new EmbeddedSearchIndex({
      store,
      parts: () => embeddedLegs(new FeatureHashingEmbedder()),
      metrics: new InMemoryMetrics(),
      revalidateAfterMs,
      monotonicNow: () => now,
    });
  const idsFound = async (index: EmbeddedSearchIndex) =>
    (await index.candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} })).candidates
      .map((candidate) => candidate.document.id)
      .sort();

  it('reads the log again only once the window has passed, and sees its own appends at once', async () => {
    // Prepare: a searching process and another process's consumer, over one table
    const store = new CountingStore();
    const searcher = open(store, 100);
    const consumer = open(store, 100);
    const [first, second, third] = await Promise.all(
      ['d0', 'd1', 'd2'].map((id) => searchDocument({ id, text: `release note ${id}` })),
    );
    await consumer.apply(notes, [{ type: 'upsert', document: first as never }]);
    now = 1_000;
    expect(await idsFound(searcher)).toEqual(['d0']);
    const readsAfterLoad = store.logReads;

    // Act: another process appends; this one searches within the window, then after it
    await consumer.apply(notes, [{ type: 'upsert', document: second as never }]);
    now = 1_099;
    const withinWindow = await idsFound(searcher);
    const readsWithin = store.logReads;
    now = 1_100;
    const afterWindow = await idsFound(searcher);

    // Assess
    expect(withinWindow).toEqual(['d0']);
    expect(readsWithin).toBe(readsAfterLoad);
    expect(afterWindow).toEqual(['d0', 'd1']);
    expect(store.logReads).toBe(readsAfterLoad + 1);
    // Its own append is searchable at once, within the window it just opened
    await searcher.apply(notes, [{ type: 'upsert', document: third as never }]);
    expect(await idsFound(searcher)).toEqual(['d0', 'd1', 'd2']);
    expect(store.logReads).toBe(readsAfterLoad + 1);
  });

  it('reads the log before every search by default', async () => {
    const store = new CountingStore();
    const searcher = open(store, 0);
    await searcher.candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });
    const reads = store.logReads;
    await searcher.candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });
    expect(store.logReads).toBe(reads + 1);
  });
});

describe('EmbeddedSearchIndex: its own appends land while a search reads the log', () => {
  const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);

  /** Holds each log read until the test lets it answer. */
  class HeldReadsStore extends InMemorySearchIndexStore {
    hold = false;
    #release: (() => void) | undefined;
    readonly readStarted = Promise.withResolvers<void>();
    override async entriesAfter(namespace: Namespace, after: number, limit: number): Promise<readonly SealedEntry[]> {
      if (!this.hold) return super.entriesAfter(namespace, after, limit);
      this.readStarted.resolve();
      await new Promise<void>((resolve) => {
        this.#release = resolve;
      });
      return super.entriesAfter(namespace, after, limit);
    }
    release(): void {
      this.hold = false;
      this.#release?.();
    }
  }

  it('takes the log read that crossed its own append as it is, without loading the namespace again', async () => {
    // Prepare: this process holds the namespace
    const store = new HeldReadsStore();
    const metrics = new InMemoryMetrics();
    const index = new EmbeddedSearchIndex({ store, parts: () => embeddedLegs(new FeatureHashingEmbedder()), metrics });
    const [first, mine] = await Promise.all(
      ['d0', 'd1'].map((id) => searchDocument({ id, text: `release note ${id}` })),
    );
    await index.apply(notes, [{ type: 'upsert', document: first as never }]);
    await index.candidates(notes, { filter: {} });

    // Act: a search's log read is in flight while this process appends, and answers after the append
    store.hold = true;
    const searching = index.candidates(notes, { keyword: { text: 'release', limit: 10 }, filter: {} });
    await store.readStarted.promise;
    await index.apply(notes, [{ type: 'upsert', document: mine as never }]);
    store.release();
    const found = await searching;

    // Assess: loaded once (its first search), never again, and the append is in what the search found
    expect(metrics.countOf('search.index_loaded')).toBe(1);
    expect(found.candidates.map((candidate) => candidate.document.id).sort()).toEqual(['d0', 'd1']);
  });
});
