import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity, hashedEmbedding } from '../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { fuseScores, rankHybrid } from '../../lambdas/capabilities/retrieval/ranking/fusion.ts';
import { BM25_B, BM25_K1, KeywordIndex } from '../../lambdas/capabilities/retrieval/ranking/keyword-index.ts';
import { analyze } from '../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';
import { ExactNearestNeighbours } from '../../lambdas/capabilities/retrieval/ranking/vector-search.ts';

/** A small vocabulary, stop words and inflections included, so that terms repeat across documents. */
const WORDS = [
  'rotate',
  'rotating',
  'keys',
  'key',
  'signing',
  'catalog',
  'deploy',
  'deployed',
  'the',
  'and',
  'monthly',
  'audit',
  'runs',
  'running',
  'verified',
  'rank',
  '苹果',
  '東京',
] as const;

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 12 }).map((words) => words.join(' '));
const documentId = fc.constantFrom('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7');
const corpus = fc.uniqueArray(fc.record({ id: documentId, text }), {
  selector: (document) => document.id,
  maxLength: 8,
});
const queries = fc.array(text, { minLength: 1, maxLength: 4 });

type Change =
  | { readonly type: 'upsert'; readonly id: string; readonly text: string }
  | { readonly type: 'remove'; readonly id: string };
const changes = fc.array(
  fc.oneof(
    fc.record({ type: fc.constant('upsert' as const), id: documentId, text }),
    fc.record({ type: fc.constant('remove' as const), id: documentId }),
  ),
  { maxLength: 30 },
);

const byScoreThenId = (a: { id: string; raw: number }, b: { id: string; raw: number }) =>
  b.raw - a.raw || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** BM25 straight from the formula, over the same analysis. */
const oracleSearch = (documents: ReadonlyMap<string, string>, query: string, limit: number) => {
  const terms = new Map([...documents].map(([id, body]) => [id, analyze(body)]));
  const count = terms.size;
  const averageLength = [...terms.values()].reduce((sum, list) => sum + list.length, 0) / count;
  const queryTerms = [...new Set(analyze(query))];
  const scored: { id: string; raw: number }[] = [];
  for (const [id, list] of terms) {
    let raw = 0;
    let matched = false;
    for (const term of queryTerms) {
      const frequency = list.filter((candidate) => candidate === term).length;
      if (frequency === 0) continue;
      matched = true;
      const documentFrequency = [...terms.values()].filter((other) => other.includes(term)).length;
      const idf = Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
      raw +=
        (idf * frequency * (BM25_K1 + 1)) /
        (frequency + BM25_K1 * (1 - BM25_B + (BM25_B * list.length) / averageLength));
    }
    if (matched) scored.push({ id, raw });
  }
  const top = scored.sort(byScoreThenId).slice(0, limit);
  const best = top[0]?.raw ?? 0;
  return top.map(({ id, raw }) => ({ id, raw, score: raw / best }));
};

const keywordIndexOf = (documents: Iterable<readonly [string, string]>): KeywordIndex => {
  const index = new KeywordIndex();
  for (const [id, body] of documents) index.upsert({ id, text: body });
  return index;
};

const finalDocuments = (initial: readonly { id: string; text: string }[], applied: readonly Change[]) => {
  const documents = new Map(initial.map((document) => [document.id, document.text]));
  for (const change of applied) {
    if (change.type === 'upsert') documents.set(change.id, change.text);
    else documents.delete(change.id);
  }
  return documents;
};

describe('Property: keyword ranking', () => {
  it('scores as BM25 computed from the formula (within 1e-9, normalised or not), rank by rank', () => {
    fc.assert(
      fc.property(corpus, queries, fc.integer({ min: 1, max: 10 }), (documents, queryTexts, limit) => {
        // Prepare
        const byId = new Map(documents.map((document) => [document.id, document.text]));
        const index = keywordIndexOf(byId);

        for (const query of queryTexts) {
          // Act
          const hits = index.search(query, limit);
          const expected = oracleSearch(byId, query, limit);

          // Assess: the same scores rank by rank; a hit may differ from the oracle's only where both score the
          // same (documents that tie mathematically can differ in the last bit, summed in another order).
          const oracleRaw = new Map(oracleSearch(byId, query, byId.size).map((hit) => [hit.id, hit.raw]));
          expect(hits).toHaveLength(expected.length);
          hits.forEach((hit, position) => {
            const rank = expected[position];
            expect(Math.abs(hit.score - (rank?.score ?? Number.NaN))).toBeLessThanOrEqual(1e-9);
            expect(Math.abs(hit.raw - (rank?.raw ?? Number.NaN))).toBeLessThanOrEqual(1e-9);
            expect(Math.abs(hit.raw - (oracleRaw.get(hit.id) ?? Number.NaN))).toBeLessThanOrEqual(1e-9);
          });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('after any sequence of upserts and removes, scores exactly as a fresh build of the final documents', () => {
    fc.assert(
      fc.property(corpus, changes, queries, (initial, applied, queryTexts) => {
        // Prepare
        const incremental = keywordIndexOf(initial.map((document) => [document.id, document.text] as const));
        for (const change of applied) {
          if (change.type === 'upsert') incremental.upsert({ id: change.id, text: change.text });
          else incremental.remove(change.id);
        }
        const documents = finalDocuments(initial, applied);
        // A rebuild reads the documents in another order than they were written.
        const fresh = keywordIndexOf([...documents].sort(([a], [b]) => (a < b ? 1 : -1)));

        // Act and assess
        expect(incremental.size).toBe(documents.size);
        for (const query of queryTexts) expect(incremental.search(query, 10)).toEqual(fresh.search(query, 10));
      }),
      { numRuns: 300 },
    );
  });

  it('scores exactly as before once serialised and loaded, and keeps doing so through further changes', () => {
    fc.assert(
      fc.property(corpus, changes, queries, (initial, applied, queryTexts) => {
        // Prepare
        const original = keywordIndexOf(initial.map((document) => [document.id, document.text] as const));

        // Act
        const loaded = KeywordIndex.deserialize(original.serialize());

        // Assess
        for (const query of queryTexts) expect(loaded.search(query, 10)).toEqual(original.search(query, 10));
        for (const change of applied) {
          for (const index of [original, loaded]) {
            if (change.type === 'upsert') index.upsert({ id: change.id, text: change.text });
            else index.remove(change.id);
          }
        }
        for (const query of queryTexts) expect(loaded.search(query, 10)).toEqual(original.search(query, 10));
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic: the same documents and query give the same hits twice', () => {
    fc.assert(
      fc.property(corpus, text, (documents, query) => {
        const entries = documents.map((document) => [document.id, document.text] as const);
        expect(keywordIndexOf(entries).search(query, 10)).toEqual(keywordIndexOf(entries).search(query, 10));
      }),
      { numRuns: 100 },
    );
  });
});

describe('Property: vector ranking', () => {
  it('returns the top k of a brute-force ranking by cosine, ties by id, after any changes', () => {
    fc.assert(
      fc.property(corpus, changes, text, fc.integer({ min: 1, max: 10 }), (initial, applied, query, limit) => {
        // Prepare
        const index = new ExactNearestNeighbours({ dimensions: 256 });
        for (const document of initial) index.upsert(document.id, hashedEmbedding(document.text));
        for (const change of applied) {
          if (change.type === 'upsert') index.upsert(change.id, hashedEmbedding(change.text));
          else index.remove(change.id);
        }
        const queryVector = hashedEmbedding(query);
        const all = [...finalDocuments(initial, applied)]
          .map(([id, body]) => ({ id, raw: cosineSimilarity(queryVector, hashedEmbedding(body)) }))
          .sort(byScoreThenId);
        const expected = all.slice(0, limit);
        const cosineOf = new Map(all.map((entry) => [entry.id, entry.raw]));

        // Act
        const hits = index.nearest(queryVector, limit);
        const loaded = ExactNearestNeighbours.deserialize(index.serialize()).nearest(queryVector, limit);

        // Assess: rank by rank the same cosine; a hit may differ from the brute force's only where the two score
        // the same up to rounding (texts whose counts are proportional normalise to vectors a bit apart).
        expect(hits).toHaveLength(expected.length);
        for (const [position, hit] of hits.entries()) {
          expect(hit.cosine).toBeCloseTo(expected[position]?.raw ?? Number.NaN, 12);
          expect(hit.cosine).toBeCloseTo(cosineOf.get(hit.id) ?? Number.NaN, 12);
        }
        expect(loaded).toEqual(hits);
      }),
      { numRuns: 200 },
    );
  });

  it('hashes every text to a unit vector or the zero vector, the same way every time', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (body) => {
        const vector = hashedEmbedding(body);
        const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
        expect(norm === 0 || Math.abs(norm - 1) < 1e-6).toBe(true);
        expect([...hashedEmbedding(body)]).toEqual([...vector]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Property: hybrid ranking', () => {
  const candidates = fc.uniqueArray(
    fc.record({
      id: documentId,
      keyword: fc.option(fc.double({ min: 0, max: 20, noNaN: true }), { nil: undefined }),
      semantic: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: undefined }),
    }),
    { selector: (candidate) => candidate.id, maxLength: 8 },
  );

  it('keeps fused scores in [0, 1] and orders them by fused score then id', () => {
    fc.assert(
      fc.property(candidates, (list) => {
        const hits = fuseScores(list);
        for (const hit of hits) {
          expect(hit.features.fused).toBeGreaterThanOrEqual(0);
          expect(hit.features.fused).toBeLessThanOrEqual(1);
        }
        for (let position = 1; position < hits.length; position += 1) {
          const previous = hits[position - 1];
          const current = hits[position];
          if (previous === undefined || current === undefined) continue;
          expect(
            previous.features.fused > current.features.fused ||
              (previous.features.fused === current.features.fused && previous.id < current.id),
          ).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reranks to a permutation of the fused hits (up to the limit), the same way twice', () => {
    fc.assert(
      fc.property(candidates, fc.array(text, { minLength: 8, maxLength: 8 }), (list, texts) => {
        const options = {
          limit: 10,
          vectorOf: (id: string) => hashedEmbedding(texts[Number(id.slice(1))] ?? ''),
        };
        const first = rankHybrid(list, options);
        expect(first.map((hit) => hit.id).sort()).toEqual(
          fuseScores(list)
            .map((hit) => hit.id)
            .sort(),
        );
        expect(rankHybrid(list, options)).toEqual(first);
      }),
      { numRuns: 200 },
    );
  });
});
