import { blake2b } from '@noble/hashes/blake2.js';
import type { Embedder } from '../../../kernel/search/embedder.port.ts';
import { MODEL_FREE_EMBEDDING_DIMENSIONS } from '../../../kernel/search/embedder.port.ts';

/*
 * The default text representation (reference 001 §B.1): 256-dimensional signed feature hashing.
 * - lower case; tokens are runs of Unicode letters, digits and underscore, except that each Han, Hiragana and
 *   Katakana character is a token of its own: Chinese and Japanese have no spaces, so a run would be a whole
 *   clause and two texts sharing words would share no token;
 * - each token's UTF-8 bytes hashed with BLAKE2b, 8-byte digest (the digest length is a BLAKE2b parameter, not
 *   a truncation of the 64-byte digest); dimension = the first 4 bytes big-endian mod 256; sign = +1 when the
 *   lowest bit of byte 4 is set, else −1;
 * - the signed counts are summed and the vector ℓ2-normalised (text without a token stays the zero vector);
 * - similarity = (cos + 1) / 2, in [0, 1].
 */

export const HASHED_DIMENSIONS = MODEL_FREE_EMBEDDING_DIMENSIONS;
export const FEATURE_HASHING_MODEL = 'feature-hashing-blake2b-256';

const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[[\p{L}\p{N}_]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]]+/gv;

/** The tokens feature hashing reads, in order. */
export const hashingTokens = (text: string): string[] => text.toLowerCase().match(TOKEN) ?? [];

export interface HashedFeature {
  readonly dimension: number;
  readonly sign: 1 | -1;
}

const utf8 = new TextEncoder();

export const hashedFeature = (token: string): HashedFeature => {
  const digest = blake2b(utf8.encode(token), { dkLen: 8 });
  const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  return { dimension: view.getUint32(0, false) % HASHED_DIMENSIONS, sign: (view.getUint8(4) & 1) === 1 ? 1 : -1 };
};

// Hashing dominates embedding; texts share most of their words. The cache is bounded and only saves work.
const FEATURE_CACHE_LIMIT = 50_000;
const featureCache = new Map<string, HashedFeature>();

const cachedFeature = (token: string): HashedFeature => {
  const cached = featureCache.get(token);
  if (cached !== undefined) return cached;
  if (featureCache.size >= FEATURE_CACHE_LIMIT) featureCache.clear();
  const feature = hashedFeature(token);
  featureCache.set(token, feature);
  return feature;
};

export function hashedEmbedding(text: string): Float32Array {
  const counts = new Float64Array(HASHED_DIMENSIONS);
  for (const token of hashingTokens(text)) {
    const { dimension, sign } = cachedFeature(token);
    counts[dimension] = (counts[dimension] ?? 0) + sign;
  }
  let squares = 0;
  for (const count of counts) squares += count * count;
  const vector = new Float32Array(HASHED_DIMENSIONS);
  if (squares === 0) return vector;
  const norm = Math.sqrt(squares);
  for (let dimension = 0; dimension < HASHED_DIMENSIONS; dimension += 1)
    vector[dimension] = (counts[dimension] ?? 0) / norm;
  return vector;
}

/** Cosine of two vectors of one model; 0 when either is the zero vector. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`Vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  let squaresA = 0;
  let squaresB = 0;
  for (let index = 0; index < a.length; index += 1) {
    const x = a[index] ?? 0;
    const y = b[index] ?? 0;
    dot += x * y;
    squaresA += x * x;
    squaresB += y * y;
  }
  if (squaresA === 0 || squaresB === 0) return 0;
  // Rounding can take the cosine of (almost) parallel vectors a hair past ±1.
  return Math.min(1, Math.max(-1, dot / Math.sqrt(squaresA * squaresB)));
}

/** (cos + 1) / 2: 1 for the same direction, 0.5 for unrelated (orthogonal) texts, 0 for opposite ones. */
export const boundedSimilarity = (a: ArrayLike<number>, b: ArrayLike<number>): number =>
  (cosineSimilarity(a, b) + 1) / 2;

/** The default embedder: no model, no network, the same vector for the same text everywhere. */
export class FeatureHashingEmbedder implements Embedder {
  readonly model = FEATURE_HASHING_MODEL;
  readonly dimensions = HASHED_DIMENSIONS;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => hashedEmbedding(text));
  }
}
