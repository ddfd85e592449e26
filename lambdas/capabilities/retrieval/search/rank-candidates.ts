import type { Namespace } from '../../../kernel/namespaces/namespace.ts';
import type { Candidate } from '../../../kernel/search/search-index.port.ts';
import { fuseScores, rerankByMaximalMarginalRelevance } from '../ranking/fusion.ts';
import type { SearchStrategy } from '../search.schema.ts';

/** A candidate from one of the searched namespaces. */
export interface PooledCandidate {
  readonly namespace: Namespace;
  readonly candidate: Candidate;
}

/** A candidate with the score it ranks by and the features that made it. */
export interface RankedCandidate extends PooledCandidate {
  readonly score: number;
  readonly features: Readonly<Record<string, number>>;
}

/** Hybrid reranks (MMR is quadratic) this many of the best fused candidates, a few times `k`. */
const RERANK_DEPTH = 60;

const keyOf = (entry: PooledCandidate): string => `${entry.namespace.key}\u0000${entry.candidate.document.id}`;

const descending = (a: string, b: string): number => (a === b ? 0 : a < b ? 1 : -1);

const byScoreThenKey = (a: RankedCandidate, b: RankedCandidate): number =>
  b.score - a.score || (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);

/**
 * Ranks the pooled candidates of every searched namespace by a strategy (graph seeds rank as hybrid):
 * - recency: newest `updatedAt` first, score 1 / (1 + rank);
 * - keyword: BM25 divided by the best BM25 of the pool;
 * - semantic: max(0, cos) (and the bounded similarity (cos + 1) / 2 as a feature);
 * - hybrid: fused 0.5 · keyword + 0.5 · semantic, exact duplicates left to the context, then MMR (λ = 0.7) over
 *   the best `RERANK_DEPTH`, the rest after them by fused score (see ranking/fusion.ts).
 */
export const rankCandidates = (
  strategy: Exclude<SearchStrategy, 'graph'>,
  pooled: readonly PooledCandidate[],
  /** The embedder's model: a candidate's vector of another model (indexed before a switch) is never compared. */
  model: string,
): RankedCandidate[] => {
  switch (strategy) {
    case 'recency':
      return [...pooled]
        .sort(
          (a, b) =>
            descending(a.candidate.document.updatedAt, b.candidate.document.updatedAt) ||
            descending(keyOf(a), keyOf(b)),
        )
        .map((entry, rank) => ({ ...entry, score: 1 / (1 + rank), features: { recency: 1 / (1 + rank) } }));
    case 'keyword': {
      const found = pooled.filter((entry) => entry.candidate.keyword !== undefined);
      const best = Math.max(0, ...found.map((entry) => entry.candidate.keyword as number));
      return found
        .map((entry) => {
          const keyword = best > 0 ? (entry.candidate.keyword as number) / best : 0;
          return { ...entry, score: keyword, features: { keyword } };
        })
        .filter((entry) => entry.score > 0)
        .sort(byScoreThenKey);
    }
    case 'semantic':
      return (
        pooled
          .filter((entry) => entry.candidate.semantic !== undefined)
          .map((entry) => {
            const cosine = entry.candidate.semantic as number;
            return {
              ...entry,
              score: Math.max(0, cosine),
              features: { semantic: Math.max(0, cosine), similarity: (cosine + 1) / 2 },
            };
          })
          // Orthogonal or opposite: nothing in common with the query, whatever the leg's depth returned.
          .filter((entry) => entry.score > 0)
          .sort(byScoreThenKey)
      );
    case 'hybrid':
      return rankHybridPool(pooled, model);
  }
};

const rankHybridPool = (pooled: readonly PooledCandidate[], model: string): RankedCandidate[] => {
  const byKey = new Map(pooled.map((entry) => [keyOf(entry), entry]));
  const fused = fuseScores(
    pooled.map((entry) => ({ id: keyOf(entry), keyword: entry.candidate.keyword, semantic: entry.candidate.semantic })),
  );
  const head = rerankByMaximalMarginalRelevance(
    fused.slice(0, RERANK_DEPTH),
    (key) => {
      const document = byKey.get(key)?.candidate.document;
      return document?.model === model ? document.vector : undefined;
    },
    { limit: RERANK_DEPTH },
  );
  const tail = fused.slice(RERANK_DEPTH).map((hit) => ({ id: hit.id, features: { ...hit.features, mmr: 0 } }));
  return [...head, ...tail]
    .filter((hit) => hit.features.fused > 0)
    .map((hit) => ({
      ...(byKey.get(hit.id) as PooledCandidate),
      score: hit.features.fused,
      features: { ...hit.features },
    }));
};

/** The graph strategy's next hop: candidates sharing most edge values with the frontier first. */
export const rankRelated = (pooled: readonly PooledCandidate[]): RankedCandidate[] => {
  const sharedCount = (entry: PooledCandidate) =>
    Object.values(entry.candidate.shared ?? {}).reduce((sum, values) => sum + values.length, 0);
  const best = Math.max(1, ...pooled.map(sharedCount));
  return pooled
    .filter((entry) => sharedCount(entry) > 0)
    .map((entry) => ({ ...entry, score: sharedCount(entry) / best, features: { graph: sharedCount(entry) / best } }))
    .sort(byScoreThenKey);
};

/** What verification established of one hit's current revision (see VerifiedHit). */
export interface VerifiedEvidence {
  readonly keyword?: number | undefined;
  readonly semantic?: number | undefined;
  readonly vector?: readonly number[] | undefined;
  readonly updatedAt: string;
}

/**
 * The verified hits ranked among themselves, by the same rules as `rankCandidates` but over their own evidence:
 * BM25 normalised by the best verified hit, fusion and MMR over the verified hits only.
 */
export const rankVerified = <Hit extends { readonly score: number; readonly evidence: VerifiedEvidence }>(
  strategy: Exclude<SearchStrategy, 'graph'>,
  hits: readonly Hit[],
): (Hit & { readonly features: Readonly<Record<string, number>> })[] => {
  if (strategy === 'recency')
    return [...hits]
      .sort((a, b) => descending(a.evidence.updatedAt, b.evidence.updatedAt))
      .map((hit, rank) => ({ ...hit, score: 1 / (1 + rank), features: { recency: 1 / (1 + rank) } }));
  const keys = hits.map((_, index) => String(index));
  const fused = fuseScores(hits.map((hit, index) => ({ id: keys[index] as string, ...hit.evidence })));
  const byKey = new Map(hits.map((hit, index) => [keys[index] as string, hit]));
  const ordered =
    strategy === 'hybrid'
      ? rerankByMaximalMarginalRelevance(fused, (key) => byKey.get(key)?.evidence.vector, { limit: fused.length })
      : fused.map((hit) => ({ ...hit, features: { ...hit.features, mmr: 0 } }));
  const ranked = ordered.map((entry) => {
    const hit = byKey.get(entry.id) as Hit;
    const { keyword, semantic, fused: blend, mmr } = entry.features;
    if (strategy === 'keyword') return { ...hit, score: keyword, features: { keyword } };
    if (strategy === 'semantic')
      return { ...hit, score: semantic, features: { semantic, similarity: ((hit.evidence.semantic ?? 0) + 1) / 2 } };
    return { ...hit, score: blend, features: { keyword, semantic, fused: blend, mmr } };
  });
  const kept = ranked.filter((hit) => hit.score > 0);
  return strategy === 'hybrid' ? kept : kept.sort((a, b) => b.score - a.score);
};
