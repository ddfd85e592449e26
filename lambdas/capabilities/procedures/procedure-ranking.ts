import { BM25_B, BM25_K1, hashedEmbedding, hashingTokens } from '../retrieval/public.ts';
import type { AdaptiveWeights } from './adaptive-weights.ts';
import type { ProcedureContent } from './procedure.schema.ts';

/*
 * PROCEDURE RETRIEVAL (reference 001 §4.1 eq. 3, §B.1):
 *   C(q, F_q) = active procedures whose context conditions are all among the task's verified facts F_q and whose
 *               exclusions meet none of them (facts compared case-insensitively, trimmed);
 *   s_i(q)    = w_b · BM25(q, S_i) / max over C of BM25 + w_v · sim(f(q), f(S_i)),  R(q) = top K = 5 of C by s_i.
 * BM25: k1 = 1.5, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5)) with N, df and avgdl over the candidate set,
 * tokens the reference's (lower-cased runs of letters, digits and underscore; each CJK character its own token).
 * f is the 256-dimensional hashed representation and sim = (cos + 1) / 2. Both read the indexed text: title,
 * description, task family, applicability, tags, context conditions, warnings and step instructions.
 * Ties: the higher BM25, then the smaller id.
 */

export const DEFAULT_PROCEDURE_K = 5;

/** What ranking needs of one procedure, computed once per revision. */
export interface ProcedureFeatures {
  readonly id: string;
  readonly revision: number;
  readonly contextConditions: ReadonlySet<string>;
  readonly exclusions: ReadonlySet<string>;
  readonly termCounts: ReadonlyMap<string, number>;
  readonly length: number;
  readonly vector: Float32Array;
  /** ‖vector‖: 1 to within float32 rounding, 0 for a text without a token; kept so a cosine needs only a dot. */
  readonly norm: number;
}

const normOf = (vector: Float32Array): number => {
  let squares = 0;
  for (const component of vector) squares += component * component;
  return Math.sqrt(squares);
};

export const normalisedFact = (fact: string): string => fact.trim().toLowerCase();

/** The text BM25 and the hashed representation read, in the reference's field order. */
export const indexedTextOf = (content: ProcedureContent): string =>
  [
    content.metadata.title,
    content.metadata.description,
    content.metadata.taskFamily,
    ...content.metadata.applicability,
    ...content.metadata.tags,
    ...content.metadata.contextConditions,
    ...content.warnings.map((warning) => warning.text),
    ...content.steps.map((step) => step.instruction),
  ].join('\n');

export function procedureFeatures(id: string, revision: number, content: ProcedureContent): ProcedureFeatures {
  const text = indexedTextOf(content);
  const termCounts = new Map<string, number>();
  const tokens = hashingTokens(text);
  const vector = hashedEmbedding(text);
  for (const token of tokens) termCounts.set(token, (termCounts.get(token) ?? 0) + 1);
  return {
    id,
    revision,
    contextConditions: new Set(content.metadata.contextConditions.map(normalisedFact)),
    exclusions: new Set(content.metadata.exclusions.map(normalisedFact)),
    termCounts,
    length: tokens.length,
    vector,
    norm: normOf(vector),
  };
}

/** Eq. 3's candidate filter. */
export const isCandidate = (procedure: ProcedureFeatures, facts: ReadonlySet<string>): boolean => {
  for (const condition of procedure.contextConditions) if (!facts.has(condition)) return false;
  for (const exclusion of procedure.exclusions) if (facts.has(exclusion)) return false;
  return true;
};

export interface RankedProcedure {
  readonly id: string;
  readonly revision: number;
  readonly score: number;
  readonly features: { readonly bm25: number; readonly bm25Raw: number; readonly similarity: number };
}

export function rankProcedures(
  query: string,
  facts: Iterable<string>,
  pool: readonly ProcedureFeatures[],
  weights: Pick<AdaptiveWeights, 'bm25' | 'vector'>,
  k = DEFAULT_PROCEDURE_K,
): { readonly candidates: number; readonly ranked: RankedProcedure[] } {
  const verified = new Set([...facts].map(normalisedFact));
  const candidates = pool.filter((procedure) => isCandidate(procedure, verified));
  const queryTerms = [...new Set(hashingTokens(query))];
  const queryVector = hashedEmbedding(query);
  const count = candidates.length;
  let totalLength = 0;
  for (const procedure of candidates) totalLength += procedure.length;
  const averageLength = count === 0 ? 0 : totalLength / count;
  const idf = queryTerms.map((term) => {
    let df = 0;
    for (const procedure of candidates) if (procedure.termCounts.has(term)) df += 1;
    return Math.log(1 + (count - df + 0.5) / (df + 0.5));
  });
  // Scores in typed arrays and the top K kept by insertion: at 10,000 candidates, sorting result objects
  // cost more than scoring them.
  const raw = new Float64Array(count);
  let top = 0;
  candidates.forEach((procedure, slot) => {
    let score = 0;
    const norm = 1 - BM25_B + (BM25_B * procedure.length) / (averageLength || 1);
    for (let index = 0; index < queryTerms.length; index += 1) {
      const tf = procedure.termCounts.get(queryTerms[index] as string) ?? 0;
      if (tf > 0) score += ((idf[index] as number) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * norm);
    }
    raw[slot] = score;
    if (score > top) top = score;
  });
  const queryNorm = normOf(queryVector);
  // A query has a few tokens, so a few non-zero components: the dot product needs only those.
  const queryDimensions: number[] = [];
  queryVector.forEach((component, dimension) => {
    if (component !== 0) queryDimensions.push(dimension);
  });
  const similarityOf = (procedure: ProcedureFeatures): number => {
    // The cosine with each norm computed once; a zero vector has cosine 0 with anything (similarity 0.5).
    if (queryNorm === 0 || procedure.norm === 0) return 0.5;
    let dot = 0;
    for (const dimension of queryDimensions)
      dot += (queryVector[dimension] as number) * (procedure.vector[dimension] as number);
    return (Math.min(1, Math.max(-1, dot / (queryNorm * procedure.norm))) + 1) / 2;
  };
  const best: RankedProcedure[] = [];
  const before = (a: RankedProcedure, b: RankedProcedure) =>
    a.score > b.score ||
    (a.score === b.score &&
      (a.features.bm25Raw > b.features.bm25Raw || (a.features.bm25Raw === b.features.bm25Raw && a.id < b.id)));
  candidates.forEach((procedure, slot) => {
    const bm25Raw = raw[slot] as number;
    const bm25 = top === 0 ? 0 : bm25Raw / top;
    const similarity = similarityOf(procedure);
    const hit = {
      id: procedure.id,
      revision: procedure.revision,
      score: weights.bm25 * bm25 + weights.vector * similarity,
      features: { bm25, bm25Raw, similarity },
    };
    if (best.length === k && !before(hit, best[k - 1] as RankedProcedure)) return;
    let place = best.length === k ? k - 1 : best.length;
    if (best.length === k) best.pop();
    while (place > 0 && before(hit, best[place - 1] as RankedProcedure)) place -= 1;
    best.splice(place, 0, hit);
  });
  return { candidates: count, ranked: best };
}
