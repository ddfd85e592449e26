import { describe, expect, it } from 'vitest';
import { cosineSimilarity, hashedEmbedding } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { sparseCosine, sparseOf } from '../../../lambdas/capabilities/retrieval/ranking/sparse-vector.ts';
import { ExactNearestNeighbours } from '../../../lambdas/capabilities/retrieval/ranking/vector-search.ts';

/** A small LCG: the same samples on every run. */
const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
};

const WORDS = 'rotate signing keys month deploy catalog service lunch menu friday alpha beta gamma delta'.split(' ');

/** Texts of a few random words, and vectors with negative and tiny components mixed in. */
const samples = (count: number, seed: number): Float32Array[] => {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => {
    if (index % 7 === 0) return new Float32Array(256).map(() => (random() < 0.1 ? (random() - 0.5) * 1e-3 : 0));
    const words = Array.from(
      { length: 1 + Math.floor(random() * 12) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    );
    return hashedEmbedding(words.join(' '));
  });
};

/** The dense cosine and ranking the index computed before it went sparse: the reference to match exactly. */
const denseCosine = (vector: Float32Array, query: Float32Array): number => {
  let dot = 0;
  let squares = 0;
  let querySquares = 0;
  for (let dimension = 0; dimension < 256; dimension += 1) {
    dot += (query[dimension] ?? 0) * (vector[dimension] ?? 0);
    squares += (vector[dimension] ?? 0) ** 2;
    querySquares += (query[dimension] ?? 0) ** 2;
  }
  const norm = Math.sqrt(squares);
  const queryNorm = Math.sqrt(querySquares);
  return norm === 0 || queryNorm === 0 ? 0 : Math.min(1, Math.max(-1, dot / (norm * queryNorm)));
};

const denseNearest = (vectors: readonly Float32Array[], query: Float32Array, limit: number) =>
  vectors
    .map((vector, slot) => ({ id: `doc-${String(slot).padStart(3, '0')}`, cosine: denseCosine(vector, query) }))
    .sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1))
    .slice(0, limit);

describe('Function: sparseCosine', () => {
  it('equals the dense cosine bit for bit, zero vectors included, and refuses vectors of two sizes', () => {
    const vectors = [...samples(60, 11), new Float32Array(256)];
    for (const a of vectors)
      for (const b of vectors) expect(sparseCosine(sparseOf(a), sparseOf(b))).toBe(cosineSimilarity(a, b));
    expect(sparseOf(hashedEmbedding('keys keys')).indices.length).toBe(1);
    expect(() => sparseCosine(sparseOf([1, 0]), sparseOf([1, 0, 0]))).toThrow(RangeError);
  });
});

describe('Class: ExactNearestNeighbours, over the query’s non-zero components', () => {
  it('ranks and scores exactly as a dense comparison with every vector does', () => {
    const vectors = samples(300, 5);
    const index = new ExactNearestNeighbours({ dimensions: 256 });
    for (const [slot, vector] of vectors.entries()) index.upsert(`doc-${String(slot).padStart(3, '0')}`, vector);
    for (const query of samples(40, 9)) {
      for (const limit of [1, 10, 299, 400]) {
        const found = index.nearest(query, limit).map(({ id, cosine }) => ({ id, cosine }));
        expect(found).toEqual(denseNearest(vectors, query, limit));
        // A filter applied while selecting: the nearest of the kept ids, however few of the nearest overall it keeps
        const keep = (id: string) => id.endsWith('7');
        const kept = index.nearest(query, limit, keep).map(({ id, cosine }) => ({ id, cosine }));
        expect(kept).toEqual(
          denseNearest(vectors, query, vectors.length)
            .filter((hit) => keep(hit.id))
            .slice(0, limit),
        );
      }
    }
  });
});
