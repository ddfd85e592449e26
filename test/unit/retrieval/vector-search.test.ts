import { describe, expect, it } from 'vitest';
import { hashedEmbedding } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
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
