/**
 * Recall@k and nDCG@k over graded labels. Recall counts the memories that answer the query (grade 2) — a
 * related or superseded memory (grade 1) is not something the caller needed to find — and falls back to every
 * labelled memory only for a query with no grade-2 label. nDCG counts both grades, with gains 2^grade − 1
 * (3 and 1) and a log2(rank + 1) discount, against the ideal order of the labels. A ranking that repeats an
 * id is scored at the id's first position only.
 */
import type { LabelledQuery, RelevantMemory } from './dataset.ts';

const assertCutoff = (k: number): void => {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
};

/** The first k positions of a ranking, each id once. */
const topDistinct = (ranked: readonly string[], k: number): string[] => {
  const seen = new Set<string>();
  const top: string[] = [];
  for (const id of ranked.slice(0, k)) {
    if (seen.has(id)) continue;
    seen.add(id);
    top.push(id);
  }
  return top;
};

const gradesById = (relevant: readonly RelevantMemory[]): Map<string, number> => {
  const grades = new Map<string, number>();
  for (const { id, grade } of relevant) grades.set(id, Math.max(grade, grades.get(id) ?? 0));
  return grades;
};

/** Share of the answering (grade-2) memories found in the top k; 0 when nothing is labelled. */
export const recallAtK = (ranked: readonly string[], relevant: readonly RelevantMemory[], k: number): number => {
  assertCutoff(k);
  const grades = gradesById(relevant);
  const answering = [...grades].filter(([, grade]) => grade === 2).map(([id]) => id);
  const targets = new Set(answering.length > 0 ? answering : [...grades.keys()]);
  if (targets.size === 0) return 0;
  const found = topDistinct(ranked, k).filter((id) => targets.has(id)).length;
  return found / targets.size;
};

const gain = (grade: number): number => 2 ** grade - 1;
const discount = (position: number): number => Math.log2(position + 1);

/** Normalised discounted cumulative gain of the top k; 0 when nothing is labelled. */
export const ndcgAtK = (ranked: readonly string[], relevant: readonly RelevantMemory[], k: number): number => {
  assertCutoff(k);
  const grades = gradesById(relevant);
  const ideal = [...grades.values()]
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, index) => sum + gain(grade) / discount(index + 1), 0);
  if (ideal === 0) return 0;
  const actual = topDistinct(ranked, k).reduce(
    (sum, id, index) => sum + gain(grades.get(id) ?? 0) / discount(index + 1),
    0,
  );
  return actual / ideal;
};

export interface QualityFigures {
  queries: number;
  /** Mean Recall@k by k. */
  recall: Record<number, number>;
  /** Mean nDCG@k by k. */
  ndcg: Record<number, number>;
}

export interface QualityReport {
  /** Means over every query (each query weighs the same, whatever its category). */
  overall: QualityFigures;
  /** Means per category, in the order the categories first appear. */
  categories: Record<string, QualityFigures>;
}

interface Scored {
  readonly category: string;
  readonly recall: readonly number[];
  readonly ndcg: readonly number[];
}

const meanFigures = (scored: readonly Scored[], ks: readonly number[]): QualityFigures => {
  const mean = (values: readonly number[]): number =>
    values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
  const recall: Record<number, number> = {};
  const ndcg: Record<number, number> = {};
  ks.forEach((k, index) => {
    recall[k] = mean(scored.map((item) => item.recall[index] ?? 0));
    ndcg[k] = mean(scored.map((item) => item.ndcg[index] ?? 0));
  });
  return { queries: scored.length, recall, ndcg };
};

/** Ranks every query (one at a time, in order) and averages Recall@k and nDCG@k, overall and per category. */
export const evaluate = async (
  queries: readonly LabelledQuery[],
  rank: (query: LabelledQuery) => Promise<string[]>,
  ks: readonly number[] = [5, 10],
): Promise<QualityReport> => {
  for (const k of ks) assertCutoff(k);
  const scored: Scored[] = [];
  for (const query of queries) {
    const ranked = await rank(query);
    scored.push({
      category: query.category,
      recall: ks.map((k) => recallAtK(ranked, query.relevant, k)),
      ndcg: ks.map((k) => ndcgAtK(ranked, query.relevant, k)),
    });
  }
  const categories: Record<string, QualityFigures> = {};
  for (const category of new Set(scored.map((item) => item.category))) {
    categories[category] = meanFigures(
      scored.filter((item) => item.category === category),
      ks,
    );
  }
  return { overall: meanFigures(scored, ks), categories };
};
