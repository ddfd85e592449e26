import { describe, expect, it } from 'vitest';
import { cosineSimilarity, hashedEmbedding } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import {
  ExactNearestNeighbours,
  type VectorEncoding,
} from '../../../lambdas/capabilities/retrieval/ranking/vector-search.ts';

const TEXTS: Readonly<Record<string, string>> = {
  keys: 'rotate the signing keys every month',
  keysAgain: 'signing keys rotate every month',
  lunch: 'lunch menu for friday',
  deploy: 'deploy the catalog service',
  empty: '',
};

const indexOf = (encoding: VectorEncoding = 'float32'): ExactNearestNeighbours => {
  const index = new ExactNearestNeighbours({ dimensions: 256, encoding });
  for (const [id, text] of Object.entries(TEXTS)) index.upsert(id, hashedEmbedding(text));
  return index;
};

/** A deterministic stream in [0, 1) (a 32-bit LCG): the same vectors on every run. */
const randomOf = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
};

/** `set` random components of 256 (signed, varied), the rest zero: a hashed text's shape when `set` is small. */
const randomVector = (random: () => number, set: number): Float32Array => {
  const vector = new Float32Array(256);
  for (let component = 0; component < set; component += 1)
    vector[Math.floor(random() * 256)] = (random() < 0.5 ? -1 : 1) * (0.05 + random());
  return vector;
};

/** The nearest by comparing the query with every vector the index holds: what `nearest` must find. */
const nearestByComparison = (index: ExactNearestNeighbours, query: Float32Array, limit: number) =>
  [...index.entries()]
    .map(([id, vector]) => ({ id, cosine: cosineSimilarity(vector, query) }))
    .sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1))
    .slice(0, limit);

/** Random adds, replacements and removals, checking `nearest` against the comparison every 250 of them. */
const churnAndCompare = (options: { encoding: VectorEncoding; set: number; operations: number; seed: number }) => {
  const random = randomOf(options.seed);
  const index = new ExactNearestNeighbours({ dimensions: 256, encoding: options.encoding });
  const ids: string[] = [];
  let checks = 0;
  for (let operation = 1; operation <= options.operations; operation += 1) {
    const roll = random();
    if (roll < 0.2 && ids.length > 0) {
      const [removed] = ids.splice(Math.floor(random() * ids.length), 1);
      expect(index.remove(removed as string)).toBe(true);
    } else if (roll < 0.6 && ids.length > 0)
      index.upsert(ids[Math.floor(random() * ids.length)] as string, randomVector(random, options.set));
    else {
      const id = `v${operation}`;
      ids.push(id);
      index.upsert(id, randomVector(random, options.set));
    }
    if (operation % 250 !== 0) continue;
    const query = randomVector(random, 6);
    const found = index.nearest(query, 20);
    const expected = nearestByComparison(index, query, 20);
    expect(found.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
    for (const [position, hit] of found.entries())
      expect(hit.cosine).toBeCloseTo(expected[position]?.cosine ?? Number.NaN, options.encoding === 'int8' ? 6 : 12);
    checks += 1;
  }
  expect(index.size).toBe(ids.length);
  return checks;
};

describe('Class: ExactNearestNeighbours', () => {
  describe('Method: nearest', () => {
    it('returns the most similar first, with cosine and bounded similarity', () => {
      // Prepare
      const index = indexOf();

      // Act
      const hits = index.nearest(hashedEmbedding('rotate signing keys monthly'), 2);

      // Assess
      expect(hits.map((hit) => hit.id).sort()).toEqual(['keys', 'keysAgain']);
      for (const hit of hits) {
        expect(hit.cosine).toBeGreaterThan(0.5);
        expect(hit.similarity).toBeCloseTo((hit.cosine + 1) / 2, 15);
      }
    });

    it('breaks equal similarities by id, and gives the zero vector cosine 0', () => {
      // Prepare
      const index = new ExactNearestNeighbours({ dimensions: 2 });
      index.upsert('b', [1, 0]);
      index.upsert('a', [2, 0]);
      index.upsert('c', [0, 1]);
      index.upsert('zero', [0, 0]);

      // Act
      const hits = index.nearest([1, 0], 4);

      // Assess
      expect(hits).toEqual([
        { id: 'a', cosine: 1, similarity: 1 },
        { id: 'b', cosine: 1, similarity: 1 },
        { id: 'c', cosine: 0, similarity: 0.5 },
        { id: 'zero', cosine: 0, similarity: 0.5 },
      ]);
    });

    it('honours the limit and refuses a query of another dimension', () => {
      // Prepare
      const index = indexOf();

      // Act and assess
      expect(index.nearest(hashedEmbedding('keys'), 3)).toHaveLength(3);
      expect(index.nearest(hashedEmbedding('keys'), 0)).toEqual([]);
      expect(() => index.nearest([1, 2, 3], 3)).toThrow(RangeError);
      expect(() => index.upsert('x', [1, 2, 3])).toThrow(RangeError);
    });
  });

  describe('Method: upsert and remove', () => {
    it('replaces a vector, removes one, and keeps the others findable', () => {
      // Prepare
      const index = indexOf();

      // Act
      index.upsert('lunch', hashedEmbedding('deploy the catalog service'));
      const removed = index.remove('keys');
      const removedAgain = index.remove('keys');

      // Assess
      expect([removed, removedAgain]).toEqual([true, false]);
      expect(index.size).toBe(4);
      expect(index.has('keys')).toBe(false);
      const deployHits = index.nearest(hashedEmbedding('deploy the catalog service'), 2);
      expect(deployHits.map((hit) => hit.id)).toEqual(['deploy', 'lunch']);
      for (const hit of deployHits) expect(hit.cosine).toBeCloseTo(1, 12);
      expect([...(index.vectorOf('keysAgain') ?? [])]).toEqual([...hashedEmbedding(TEXTS.keysAgain ?? '')]);
      expect(index.vectorOf('keys')).toBeUndefined();
    });

    it('grows past its initial capacity and keeps every vector it was given', () => {
      // Prepare
      const index = new ExactNearestNeighbours({ dimensions: 256 });
      const vectorOfItem = (number: number) => hashedEmbedding(`item ${number} of many`);

      // Act
      for (let number = 0; number < 300; number += 1) index.upsert(`d${number}`, vectorOfItem(number));

      // Assess
      expect(index.size).toBe(300);
      for (const number of [0, 63, 64, 150, 299])
        expect([...(index.vectorOf(`d${number}`) ?? [])]).toEqual([...vectorOfItem(number)]);
      expect(index.nearest(vectorOfItem(299), 1)[0]?.cosine).toBeCloseTo(1, 12);
    });
  });

  describe('Method: nearest, through adds, replacements and removals', () => {
    // Sparse vectors are searched by dimension, with entries made stale by every rewrite and rebuilt past a bound
    // (6,000 operations rewrite far more entries than the bound allows): a stale entry counted, or a moved vector
    // not re-entered, changes what is found.
    it('finds what comparing the query with every vector finds, for sparse float32 vectors', () => {
      expect(churnAndCompare({ encoding: 'float32', set: 10, operations: 6000, seed: 7 })).toBe(24);
    });

    it('finds what comparing the query with every vector finds, for sparse int8 vectors', () => {
      expect(churnAndCompare({ encoding: 'int8', set: 10, operations: 3000, seed: 8 })).toBe(12);
    });

    it('finds what comparing the query with every vector finds, for dense vectors (scanned)', () => {
      expect(churnAndCompare({ encoding: 'float32', set: 400, operations: 1500, seed: 9 })).toBe(6);
    });

    it('answers a loaded index as the index it was saved from, before and after more writes', () => {
      // Prepare
      const random = randomOf(10);
      const original = new ExactNearestNeighbours({ dimensions: 256 });
      for (let vector = 0; vector < 500; vector += 1) original.upsert(`v${vector}`, randomVector(random, 10));
      const query = randomVector(random, 6);
      original.nearest(query, 5);
      const loaded = ExactNearestNeighbours.deserialize(original.serialize());

      // Act
      const before = loaded.nearest(query, 30);
      const originalBefore = original.nearest(query, 30);
      for (const index of [original, loaded]) {
        index.remove('v3');
        index.upsert('v4', randomVector(randomOf(11), 10));
      }

      // Assess
      expect(before).toHaveLength(30);
      expect(before).toEqual(originalBefore);
      expect(loaded.nearest(query, 30)).toEqual(original.nearest(query, 30));
    });
  });

  describe('Method: serialize and deserialize', () => {
    it.each(['float32', 'int8'] as const)('loads a %s index that ranks exactly as the original', (encoding) => {
      // Prepare
      const original = indexOf(encoding);
      original.remove('lunch');
      const query = hashedEmbedding('rotate the keys and deploy');

      // Act
      const loaded = ExactNearestNeighbours.deserialize(original.serialize());

      // Assess
      expect(loaded.encoding).toBe(encoding);
      expect(loaded.size).toBe(original.size);
      expect(loaded.nearest(query, 10)).toEqual(original.nearest(query, 10));
      expect([...(loaded.vectorOf('deploy') ?? [])]).toEqual([...(original.vectorOf('deploy') ?? [])]);
    });

    it('stores int8 vectors in about a quarter of the float32 size, close to the original vectors', () => {
      // Prepare
      const floats = indexOf('float32');
      const bytes = indexOf('int8');
      const query = hashedEmbedding('rotate the signing keys');

      // Act
      const floatSize = floats.serialize().byteLength;
      const byteSize = bytes.serialize().byteLength;

      // Assess
      expect(byteSize).toBeLessThan(floatSize * 0.3);
      const exact = floats.nearest(query, 5);
      const quantised = bytes.nearest(query, 5);
      expect(quantised.map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
      for (const [position, hit] of quantised.entries())
        expect(hit.cosine).toBeCloseTo(exact[position]?.cosine ?? 0, 2);
    });

    it('refuses bytes that are not a serialised vector index', () => {
      expect(() => ExactNearestNeighbours.deserialize(new Uint8Array([1, 2, 3, 4]))).toThrow(RangeError);
      expect(() => ExactNearestNeighbours.deserialize(new Uint8Array(40))).toThrow(RangeError);
    });
  });
});
