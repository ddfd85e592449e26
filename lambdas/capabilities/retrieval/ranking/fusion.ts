import { createHash } from 'node:crypto';
import { sparseCosine, sparseOf } from './sparse-vector.ts';

/*
 * HYBRID ranking: fuse the keyword and the semantic leg, collapse exact duplicates, then rerank by Maximal
 * Marginal Relevance so that near-duplicates do not crowd the top.
 *
 * - keyword  = BM25 / the best BM25 among the candidates (1 for the best; 0 when the keyword leg missed it);
 * - semantic = max(0, cos). Not the bounded similarity (cos + 1) / 2: an unrelated text has cos ≈ 0 and so a
 *   bounded similarity of ≈ 0.5, which would lift every document the semantic leg returned over one that only
 *   the keyword leg found. Negative cosines say "unrelated" as much as 0 does, hence the floor (0 when missed);
 * - fused    = w_keyword · keyword + w_semantic · semantic (defaults 0.5 and 0.5, as reference 001 §B.1 has
 *   them without routing cues);
 * - exact duplicates (the same text once case, Unicode form and spacing are normalised) keep their best hit;
 * - MMR, greedily: the next hit maximises λ · fused − (1 − λ) · max over the hits already chosen of
 *   max(0, cos(hit, chosen)), with λ = 0.7 — relevance first, but a near-copy of a chosen hit (cos ≈ 1) loses
 *   0.3 and falls below a distinct hit that is almost as relevant.
 * Every tie is broken by the higher fused score, then by id, so the order is total and repeatable.
 */

export interface FusionWeights {
  readonly keyword: number;
  readonly semantic: number;
}

export const DEFAULT_FUSION_WEIGHTS: FusionWeights = { keyword: 0.5, semantic: 0.5 };
export const DEFAULT_MMR_LAMBDA = 0.7;

/** What the legs found of one document. */
export interface RankingCandidate {
  readonly id: string;
  /** Raw BM25 from the keyword leg; undefined when that leg did not return it. */
  readonly keyword?: number | undefined;
  /** Cosine from the semantic leg, in [−1, 1]; undefined when that leg did not return it. */
  readonly semantic?: number | undefined;
}

export interface FusedFeatures {
  readonly keyword: number;
  readonly semantic: number;
  readonly fused: number;
}

export interface FusedHit {
  readonly id: string;
  readonly features: FusedFeatures;
}

export interface HybridFeatures extends FusedFeatures {
  /** The MMR score the hit had when it was chosen. */
  readonly mmr: number;
}

export interface HybridHit {
  readonly id: string;
  readonly features: HybridFeatures;
}

const checkWeights = (weights: FusionWeights): void => {
  const valid = (weight: number) => Number.isFinite(weight) && weight >= 0;
  if (!valid(weights.keyword) || !valid(weights.semantic) || weights.keyword + weights.semantic === 0)
    throw new RangeError('Fusion weights must be finite, non-negative and not both 0');
};

const byFusedThenId = (a: FusedHit, b: FusedHit): number =>
  b.features.fused - a.features.fused || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Candidates with their fused features, best first; a candidate listed twice keeps its best leg scores. */
export function fuseScores(
  candidates: readonly RankingCandidate[],
  weights: FusionWeights = DEFAULT_FUSION_WEIGHTS,
): FusedHit[] {
  checkWeights(weights);
  const merged = new Map<string, { keyword: number; semantic: number }>();
  let bestKeyword = 0;
  for (const candidate of candidates) {
    const keyword = Math.max(0, candidate.keyword ?? 0);
    const semantic = Math.max(0, candidate.semantic ?? 0);
    bestKeyword = Math.max(bestKeyword, keyword);
    const known = merged.get(candidate.id);
    merged.set(candidate.id, {
      keyword: Math.max(known?.keyword ?? 0, keyword),
      semantic: Math.max(known?.semantic ?? 0, semantic),
    });
  }
  const hits: FusedHit[] = [];
  for (const [id, scores] of merged) {
    const keyword = bestKeyword === 0 ? 0 : scores.keyword / bestKeyword;
    const semantic = Math.min(1, scores.semantic);
    hits.push({
      id,
      features: { keyword, semantic, fused: weights.keyword * keyword + weights.semantic * semantic },
    });
  }
  return hits.sort(byFusedThenId);
}

/** The text as duplicates are compared: NFKC, lower case, runs of white space as one space, trimmed. */
export const normalisedTextHash = (text: string): string =>
  createHash('sha256').update(text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim()).digest('hex');

/** Keeps the first (best-ranked) hit of each text hash; hits without a hash are kept. */
export function collapseExactDuplicates<Hit extends { readonly id: string }>(
  ranked: readonly Hit[],
  textHashOf: (id: string) => string | undefined,
): Hit[] {
  const seen = new Set<string>();
  return ranked.filter((hit) => {
    const hash = textHashOf(hit.id);
    if (hash === undefined) return true;
    if (seen.has(hash)) return false;
    seen.add(hash);
    return true;
  });
}

/** Greedy MMR over `ranked` (fused hits), choosing up to `limit`. */
export function rerankByMaximalMarginalRelevance(
  ranked: readonly FusedHit[],
  vectorOf: (id: string) => ArrayLike<number> | undefined,
  options: { readonly limit: number; readonly lambda?: number },
): HybridHit[] {
  const lambda = options.lambda ?? DEFAULT_MMR_LAMBDA;
  if (!(lambda >= 0 && lambda <= 1)) throw new RangeError('The MMR λ must be within [0, 1]');
  // Sparse: each pick compares every remaining hit with it, and a text's vector has a few dozen components set.
  const remaining = ranked.map((hit) => {
    const vector = vectorOf(hit.id);
    return { hit, vector: vector && sparseOf(vector), redundancy: 0 };
  });
  const chosen: HybridHit[] = [];
  while (chosen.length < options.limit && remaining.length > 0) {
    let bestIndex = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    remaining.forEach((entry, index) => {
      const score = lambda * entry.hit.features.fused - (1 - lambda) * entry.redundancy;
      const best = remaining[bestIndex];
      // Equal MMR scores: the higher fused score, then the smaller id.
      if (score > bestScore || (score === bestScore && best !== undefined && byFusedThenId(entry.hit, best.hit) < 0)) {
        bestScore = score;
        bestIndex = index;
      }
    });
    const [picked] = remaining.splice(bestIndex, 1);
    if (picked === undefined) break;
    chosen.push({ id: picked.hit.id, features: { ...picked.hit.features, mmr: bestScore } });
    // Each remaining hit's redundancy is its greatest similarity to anything chosen so far.
    if (picked.vector === undefined) continue;
    for (const entry of remaining) {
      if (entry.vector === undefined) continue;
      entry.redundancy = Math.max(entry.redundancy, sparseCosine(entry.vector, picked.vector));
    }
  }
  return chosen;
}

export interface HybridRankingOptions {
  readonly limit: number;
  /** The document's vector, for MMR; a hit without one is never counted as redundant. */
  readonly vectorOf: (id: string) => ArrayLike<number> | undefined;
  /** The document's `normalisedTextHash`; without it no duplicates are collapsed. */
  readonly textHashOf?: ((id: string) => string | undefined) | undefined;
  readonly weights?: FusionWeights | undefined;
  readonly lambda?: number | undefined;
}

/** Fusion, exact-duplicate collapse and MMR, in that order. */
export function rankHybrid(candidates: readonly RankingCandidate[], options: HybridRankingOptions): HybridHit[] {
  const fused = fuseScores(candidates, options.weights ?? DEFAULT_FUSION_WEIGHTS);
  const distinct = options.textHashOf === undefined ? fused : collapseExactDuplicates(fused, options.textHashOf);
  return rerankByMaximalMarginalRelevance(distinct, options.vectorOf, {
    limit: options.limit,
    lambda: options.lambda ?? DEFAULT_MMR_LAMBDA,
  });
}
