import { describe, expect, it } from 'vitest';
import {
  boundedSimilarity,
  cosineSimilarity,
  FEATURE_HASHING_MODEL,
  FeatureHashingEmbedder,
  HASHED_DIMENSIONS,
  hashedEmbedding,
  hashedFeature,
  hashingTokens,
} from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';

const nonZeroEntries = (vector: Float32Array): [number, number][] =>
  [...vector.entries()].filter(([, value]) => value !== 0);

describe('Function: hashedFeature', () => {
  it.each([
    ['rank', 158, 1],
    ['catalog', 152, 1],
    ['verified', 81, -1],
  ])('maps %s to dimension %i with sign %i (the reference values)', (token, dimension, sign) => {
    // Act
    const feature = hashedFeature(token);

    // Assess
    expect(feature).toEqual({ dimension, sign });
  });
});

describe('Function: hashingTokens', () => {
  it('lower-cases and keeps runs of letters, digits and underscore', () => {
    // Act
    const tokens = hashingTokens('Hello, World! snake_case v2 — 42%');

    // Assess
    expect(tokens).toEqual(['hello', 'world', 'snake_case', 'v2', '42']);
  });

  it('makes each Han, Hiragana and Katakana character a token, and keeps Hangul and other runs whole', () => {
    // Act
    const chinese = hashingTokens('我喜欢苹果');
    const japanese = hashingTokens('東京タワーへ');
    const mixed = hashingTokens('abc漢字def');
    const korean = hashingTokens('안녕하세요 세계');

    // Assess
    expect(chinese).toEqual(['我', '喜', '欢', '苹', '果']);
    // The prolonged sound mark ー is in the Common script, so it stays a run of its own.
    expect(japanese).toEqual(['東', '京', 'タ', 'ワ', 'ー', 'へ']);
    expect(mixed).toEqual(['abc', '漢', '字', 'def']);
    expect(korean).toEqual(['안녕하세요', '세계']);
  });
});

describe('Function: hashedEmbedding', () => {
  it('sums the signed counts and normalises: "Hello, World! hello" (the reference value)', () => {
    // Act
    const vector = hashedEmbedding('Hello, World! hello');

    // Assess
    expect(vector).toHaveLength(HASHED_DIMENSIONS);
    const entries = nonZeroEntries(vector);
    expect(entries.map(([dimension]) => dimension)).toEqual([127, 168]);
    expect(entries[0]?.[1]).toBeCloseTo(1 / Math.sqrt(5), 6);
    expect(entries[1]?.[1]).toBeCloseTo(2 / Math.sqrt(5), 6);
  });

  it('lets opposite signs cancel, and keeps a text without tokens as the zero vector', () => {
    // Act
    const empty = hashedEmbedding('');
    const punctuation = hashedEmbedding('!!! ... ---');

    // Assess
    expect(nonZeroEntries(empty)).toEqual([]);
    expect(nonZeroEntries(punctuation)).toEqual([]);
    expect(boundedSimilarity(empty, hashedEmbedding('rank'))).toBe(0.5);
  });

  it('is deterministic and case-insensitive', () => {
    // Act
    const first = hashedEmbedding('Verified catalog RANK');
    const second = hashedEmbedding('verified CATALOG rank');

    // Assess
    expect([...first]).toEqual([...second]);
    expect(nonZeroEntries(first).map(([dimension]) => dimension)).toEqual([81, 152, 158]);
  });
});

describe('Function: cosineSimilarity', () => {
  it('is 1 for the same direction, −1 for the opposite, 0 for orthogonal vectors or a zero vector', () => {
    // Prepare
    const a = Float32Array.from([1, 2, 0]);

    // Act and assess
    expect(cosineSimilarity(a, Float32Array.from([2, 4, 0]))).toBeCloseTo(1, 12);
    expect(cosineSimilarity(a, Float32Array.from([-1, -2, 0]))).toBeCloseTo(-1, 12);
    expect(cosineSimilarity(a, Float32Array.from([0, 0, 5]))).toBe(0);
    expect(cosineSimilarity(a, new Float32Array(3))).toBe(0);
  });

  it('refuses vectors of different dimensions', () => {
    expect(() => cosineSimilarity(new Float32Array(2), new Float32Array(3))).toThrow(RangeError);
  });
});

describe('Function: boundedSimilarity', () => {
  it('maps cosine −1 … 1 onto 0 … 1', () => {
    // Prepare
    const a = Float32Array.from([1, 0]);

    // Act and assess
    expect(boundedSimilarity(a, Float32Array.from([1, 0]))).toBe(1);
    expect(boundedSimilarity(a, Float32Array.from([0, 1]))).toBe(0.5);
    expect(boundedSimilarity(a, Float32Array.from([-1, 0]))).toBe(0);
  });

  it('ranks a text sharing words above an unrelated one', () => {
    // Prepare
    const query = hashedEmbedding('rotate the signing keys every month');

    // Act
    const related = boundedSimilarity(query, hashedEmbedding('the signing keys rotate monthly'));
    const unrelated = boundedSimilarity(query, hashedEmbedding('lunch menu for friday'));

    // Assess
    expect(related).toBeGreaterThan(unrelated);
  });
});

describe('Class: FeatureHashingEmbedder', () => {
  it('names its model and dimensions and embeds each text as hashedEmbedding does', async () => {
    // Prepare
    const embedder = new FeatureHashingEmbedder();

    // Act
    const vectors = await embedder.embed(['Hello, World! hello', 'rank']);

    // Assess
    expect(embedder.model).toBe(FEATURE_HASHING_MODEL);
    expect(embedder.model).toBe('feature-hashing-blake2b-256');
    expect(embedder.dimensions).toBe(256);
    expect(vectors.map((vector) => [...vector])).toEqual([
      [...hashedEmbedding('Hello, World! hello')],
      [...hashedEmbedding('rank')],
    ]);
  });
});
