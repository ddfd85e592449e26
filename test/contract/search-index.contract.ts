import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { embeddedLegs } from '../../lambdas/capabilities/retrieval/embedded/embedded-legs.ts';
import { EmbeddedSearchIndex } from '../../lambdas/capabilities/retrieval/embedded/embedded-search-index.ts';
import { FeatureHashingEmbedder } from '../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import type { Namespace } from '../../lambdas/kernel/namespaces/namespace.ts';
import type { SearchDocument } from '../../lambdas/kernel/search/search-document.ts';
import type { CandidateQuery, CandidateSet, SearchIndex } from '../../lambdas/kernel/search/search-index.port.ts';
import type { SearchIndexStore } from '../../lambdas/kernel/search/search-index-store.port.ts';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

export interface SearchIndexFixture {
  readonly index: SearchIndex;
  /** Another handle on the same index, as another process would have it. */
  reopen(): SearchIndex;
  close(): Promise<void>;
}

const embedder = new FeatureHashingEmbedder();

/**
 * The embedded index over `store`, as the contract runs it: `reopen` is another process's handle on the same store,
 * and a snapshot every four entries, so loading from snapshots is exercised too.
 */
export const embeddedIndexFixture = (store: SearchIndexStore, close: () => Promise<void>): SearchIndexFixture => {
  const open = () =>
    new EmbeddedSearchIndex({
      store,
      parts: () => embeddedLegs(embedder),
      metrics: new InMemoryMetrics(),
      compactEvery: 4,
    });
  return { index: open(), reopen: open, close };
};

/** A document as the consumer would write it, with the default embedder's vector. */
export const searchDocument = async (
  fields: Partial<SearchDocument> & { readonly id: string; readonly text: string },
): Promise<SearchDocument> => {
  const [vector] = await embedder.embed([fields.text]);
  return {
    kind: 'note',
    revision: 1,
    createdAt: '2026-06-01T00:00:00.000Z',
    updatedAt: '2026-06-01T00:00:00.000Z',
    expiresAt: '2027-06-01T00:00:00.000Z',
    states: [],
    tags: [],
    edges: {},
    vector: [...(vector as Float32Array)],
    model: embedder.model,
    ...fields,
  };
};

const ids = (set: { candidates: readonly { document: { id: string } }[] }) => set.candidates.map((c) => c.document.id);

/** What every SearchIndex must do: propose candidates per leg, revision-aware changes, rebuilds, isolation. */
export const describeSearchIndexContract = (name: string, create: () => Promise<SearchIndexFixture>) => {
  describe(`Contract: SearchIndex (${name})`, () => {
    let fixture: SearchIndexFixture;
    const alice = scopeOf({ sub: 'alice' });
    const notes: Namespace = alice.namespace(KINDS.note);
    const bobsNotes: Namespace = scopeOf({ sub: 'bob' }).namespace(KINDS.note);
    const keyword = (text: string, limit = 10): CandidateQuery => ({ keyword: { text, limit }, filter: {} });
    beforeEach(async () => {
      fixture = await create();
    });
    afterEach(async () => {
      await fixture.close();
    });

    const upsert = async (namespace: Namespace, ...documents: SearchDocument[]) =>
      fixture.index.apply(
        namespace,
        documents.map((document) => ({ type: 'upsert', document })),
      );

    it('finds documents by their words, best first, with raw BM25 scores', async () => {
      // Prepare
      await upsert(
        notes,
        await searchDocument({ id: 'a', text: 'the deployment pipeline failed on staging' }),
        await searchDocument({ id: 'b', text: 'deployment deployment of the payments service' }),
        await searchDocument({ id: 'c', text: 'lunch order for friday' }),
      );

      // Act
      const found = await fixture.index.candidates(notes, keyword('deployment'));

      // Assess
      expect(ids(found)).toEqual(['b', 'a']);
      expect(found.candidates.every((candidate) => (candidate.keyword ?? 0) > 0)).toBe(true);
      expect(found.documents).toBe(3);
    });

    it('finds nearest documents by vector, newest first by recency, and related ones by shared edges', async () => {
      // Prepare
      await upsert(
        notes,
        await searchDocument({
          id: 'old',
          text: 'rotate the database credentials',
          updatedAt: '2026-06-01T00:00:00.000Z',
          tags: ['security'],
        }),
        await searchDocument({
          id: 'new',
          text: 'team offsite in lisbon',
          updatedAt: '2026-06-03T00:00:00.000Z',
          edges: { entity: ['lisbon'] },
        }),
        await searchDocument({
          id: 'mid',
          text: 'lisbon hotel booking',
          updatedAt: '2026-06-02T00:00:00.000Z',
          edges: { entity: ['lisbon'] },
        }),
      );
      const [vector] = await embedder.embed(['database credentials rotation']);

      // Act
      const semantic = await fixture.index.candidates(notes, {
        semantic: { vector: [...(vector as Float32Array)], model: embedder.model, limit: 1 },
        filter: {},
      });
      const recent = await fixture.index.candidates(notes, { recent: { limit: 2 }, filter: {} });
      const related = await fixture.index.candidates(notes, {
        related: { edges: { entity: ['lisbon'] }, limit: 10 },
        filter: {},
      });

      // Assess
      expect(ids(semantic)).toEqual(['old']);
      expect(recent.candidates.map((c) => [c.document.id, c.recency])).toEqual([
        ['new', 0],
        ['mid', 1],
      ]);
      expect(related.candidates.map((c) => [c.document.id, c.shared])).toEqual([
        ['new', { entity: ['lisbon'] }],
        ['mid', { entity: ['lisbon'] }],
      ]);
    });

    it('ranks related documents by how many edge values they share, then newest, the limit taking the best', async () => {
      // Prepare: `both` shares two values, the others one; `late` is the newest of those
      await upsert(
        notes,
        await searchDocument({
          id: 'both',
          text: 'lisbon offsite',
          updatedAt: '2026-06-01T00:00:00.000Z',
          tags: ['travel'],
          edges: { entity: ['lisbon'] },
        }),
        await searchDocument({ id: 'late', text: 'porto', updatedAt: '2026-06-05T00:00:00.000Z', tags: ['travel'] }),
        await searchDocument({
          id: 'early',
          text: 'lisbon',
          updatedAt: '2026-06-02T00:00:00.000Z',
          edges: { entity: ['lisbon'] },
        }),
        await searchDocument({
          id: 'drafted',
          text: 'lisbon draft',
          updatedAt: '2026-06-09T00:00:00.000Z',
          tags: ['travel', 'draft'],
          edges: { entity: ['lisbon'] },
        }),
        await searchDocument({ id: 'unrelated', text: 'budget', updatedAt: '2026-06-09T00:00:00.000Z' }),
      );

      // Act: `drafted` would rank first (three values); the filter leaves it out before the limit is taken
      const related = await fixture.index.candidates(notes, {
        related: { edges: { entity: ['lisbon'], tag: ['travel', 'draft'] }, limit: 2 },
        filter: { until: '2026-06-06T00:00:00.000Z' },
      });
      const unfiltered = await fixture.index.candidates(notes, {
        related: { edges: { entity: ['lisbon'], tag: ['travel'] }, limit: 3 },
        filter: {},
      });

      // Assess
      expect(related.candidates.map((c) => [c.document.id, c.shared])).toEqual([
        ['both', { entity: ['lisbon'], tag: ['travel'] }],
        ['late', { tag: ['travel'] }],
      ]);
      expect(unfiltered.candidates.map((c) => [c.document.id, c.shared])).toEqual([
        ['drafted', { entity: ['lisbon'], tag: ['travel'] }],
        ['both', { entity: ['lisbon'], tag: ['travel'] }],
        ['late', { tag: ['travel'] }],
      ]);
    });

    it('applies the filters before any limit', async () => {
      // Prepare: the two best keyword matches are filtered out
      await upsert(
        notes,
        await searchDocument({ id: 'x1', text: 'invoice invoice invoice', tags: ['draft'] }),
        await searchDocument({ id: 'x2', text: 'invoice invoice', kind: 'preference', tags: ['final'] }),
        await searchDocument({
          id: 'x3',
          text: 'invoice from march',
          tags: ['final'],
          states: ['applied'],
          updatedAt: '2026-06-05T00:00:00.000Z',
        }),
      );

      // Act
      const found = await fixture.index.candidates(notes, {
        keyword: { text: 'invoice', limit: 1 },
        filter: {
          tags: ['final'],
          kinds: ['note'],
          states: ['applied'],
          since: '2026-06-04T00:00:00.000Z',
          until: '2026-06-06T00:00:00.000Z',
        },
      });

      // Assess
      expect(ids(found)).toEqual(['x3']);
    });

    it('ignores a change older than what it holds, in whatever order changes arrive', async () => {
      // Prepare
      const second = await searchDocument({ id: 'r', text: 'second revision text', revision: 2 });
      const first = await searchDocument({ id: 'r', text: 'first revision text', revision: 1 });

      // Act: the newer upsert arrives first, then the older one, then a replay of the newer
      await upsert(notes, second);
      await upsert(notes, first);
      await upsert(notes, second);

      // Assess
      expect(ids(await fixture.index.candidates(notes, keyword('first')))).toEqual([]);
      expect(ids(await fixture.index.candidates(notes, keyword('second')))).toEqual(['r']);
    });

    it('keeps a removed record out, even when an upsert of its last revision arrives after the removal', async () => {
      // Prepare
      const document = await searchDocument({ id: 'gone', text: 'quarterly numbers', revision: 2 });
      await upsert(notes, document);

      // Act
      await fixture.index.apply(notes, [{ type: 'remove', id: 'gone', revision: 2 }]);
      await upsert(notes, document);

      // Assess
      expect(ids(await fixture.index.candidates(notes, keyword('quarterly')))).toEqual([]);
      expect((await fixture.index.candidates(notes, keyword('quarterly'))).documents).toBe(0);
    });

    it('replaces everything it held with a rebuilt state', async () => {
      // Prepare
      await upsert(notes, await searchDocument({ id: 'stale', text: 'stale memory' }));

      // Act
      const fresh = await searchDocument({ id: 'fresh', text: 'fresh memory', revision: 3 });
      await fixture.index.rebuild(notes, async () => ({ documents: [fresh], removed: [['stale', 2]] }));
      await upsert(notes, await searchDocument({ id: 'stale', text: 'stale memory' }));

      // Assess
      expect(ids(await fixture.index.candidates(notes, keyword('memory')))).toEqual(['fresh']);
    });

    it('answers the same for changes applied one by one as for a rebuild of the same final state', async () => {
      // Prepare
      const finals = await Promise.all(
        ['alpha release notes', 'beta release planning', 'gamma incident review', 'release train calendar'].map(
          (text, n) => searchDocument({ id: `d${n}`, text, revision: 2, tags: n % 2 ? ['odd'] : [] }),
        ),
      );
      for (const document of finals) {
        await upsert(notes, { ...document, revision: 1, text: 'placeholder' });
        await upsert(notes, document);
      }
      await fixture.index.apply(notes, [{ type: 'remove', id: 'd2', revision: 3 }]);
      const query: CandidateQuery = { keyword: { text: 'release', limit: 10 }, recent: { limit: 10 }, filter: {} };
      const incremental = await fixture.index.candidates(notes, query);

      // Act
      // Into an index that never saw the changes, the same namespace: a shared index (OpenSearch) scores with
      // statistics over every namespace it holds, so another namespace of this one would not compare.
      const fresh = await create();
      let rebuilt: CandidateSet;
      try {
        await fresh.index.rebuild(notes, async () => ({
          documents: finals.filter((d) => d.id !== 'd2'),
          removed: [['d2', 3]],
        }));
        rebuilt = await fresh.index.candidates(notes, query);
      } finally {
        await fresh.close();
      }

      // Assess
      expect(rebuilt).toEqual(incremental);
    });

    it('loses nothing applied while a rebuild reads the canonical state', async () => {
      // Prepare
      const old = await searchDocument({ id: 'old', text: 'old memory' });
      const meanwhile = await searchDocument({ id: 'meanwhile', text: 'memory written during the rebuild' });
      await upsert(notes, old);

      // Act: the canonical read misses a write the consumer applies while it runs
      await fixture.index.rebuild(notes, async () => {
        const state = { documents: [old], removed: [] };
        await upsert(notes, meanwhile);
        return state;
      });

      // Assess: in this process and in a fresh one
      expect(ids(await fixture.index.candidates(notes, keyword('memory'))).sort()).toEqual(['meanwhile', 'old']);
      expect(ids(await fixture.reopen().candidates(notes, keyword('memory'))).sort()).toEqual(['meanwhile', 'old']);
    });

    it('keeps each namespace to itself', async () => {
      // Prepare
      await upsert(notes, await searchDocument({ id: 'private', text: 'alice private plan' }));

      // Act
      const found = await fixture.index.candidates(bobsNotes, { ...keyword('plan'), recent: { limit: 10 } });

      // Assess
      expect(found).toEqual({ candidates: [], documents: 0 });
    });

    it('shows another process what this one wrote', async () => {
      // Prepare
      const other = fixture.reopen();
      await other.candidates(notes, keyword('anything'));

      // Act
      await upsert(notes, await searchDocument({ id: 'shared', text: 'written by the first process' }));

      // Assess
      expect(ids(await other.candidates(notes, keyword('written')))).toEqual(['shared']);
    });
  });
};
