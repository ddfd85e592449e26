/**
 * Scores the procedural-memory code on the labelled set: each divergence signal, state resolution, promotion
 * decisions and procedure ranking, run through the same domain functions the API calls.
 */
import { adaptiveWeights } from '../../lambdas/capabilities/procedures/adaptive-weights.ts';
import { contentWordJudge, goalDivergence, planDivergence } from '../../lambdas/capabilities/procedures/divergence.ts';
import { CreateProcedureInput } from '../../lambdas/capabilities/procedures/procedure.schema.ts';
import { procedureFeatures, rankProcedures } from '../../lambdas/capabilities/procedures/procedure-ranking.ts';
import { decidePromotion } from '../../lambdas/capabilities/procedures/promotion.ts';
import { conflictingKeys, resolveKey } from '../../lambdas/capabilities/procedures/state-resolution.ts';
import { goalCases, planCases, promotionCases, RANKING_POOL, rankingCases, stateCases } from './cases.ts';

export interface BinaryScore {
  readonly cases: number;
  readonly accuracy: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
  /** The cases it got wrong, by name. */
  readonly misses: readonly string[];
}

const score = (results: readonly { name: string; predicted: boolean; actual: boolean }[]): BinaryScore => {
  const tp = results.filter((result) => result.predicted && result.actual).length;
  const fp = results.filter((result) => result.predicted && !result.actual).length;
  const fn = results.filter((result) => !result.predicted && result.actual).length;
  const correct = results.filter((result) => result.predicted === result.actual).length;
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  return {
    cases: results.length,
    accuracy: correct / results.length,
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    misses: results.filter((result) => result.predicted !== result.actual).map((result) => result.name),
  };
};

export interface RankingScore {
  readonly queries: number;
  readonly ndcgAt3: number;
  /** Queries whose ruled-out procedures were all left out of the ranking. */
  readonly filtersHeld: number;
  readonly filterCases: number;
}

export interface ProceduralQuality {
  readonly goal: BinaryScore;
  readonly plan: BinaryScore;
  readonly stateConflict: BinaryScore;
  readonly stateResolution: { readonly cases: number; readonly accuracy: number; readonly misses: readonly string[] };
  readonly promotion: BinaryScore;
  readonly ranking: { readonly adaptive: RankingScore; readonly fixed: RankingScore };
}

const ndcgAt = (
  ranked: readonly string[],
  relevance: Readonly<Record<string, number>>,
  k: number,
): number | undefined => {
  const gain = (grade: number) => 2 ** grade - 1;
  const dcg = ranked.slice(0, k).reduce((sum, id, index) => sum + gain(relevance[id] ?? 0) / Math.log2(index + 2), 0);
  const ideal = Object.values(relevance)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, index) => sum + gain(grade) / Math.log2(index + 2), 0);
  return ideal === 0 ? undefined : dcg / ideal;
};

const rankingScore = (adaptive: boolean): RankingScore => {
  const pool = RANKING_POOL.map((procedure) =>
    procedureFeatures(procedure.id, 1, {
      ...CreateProcedureInput.parse({
        metadata: {
          title: procedure.title,
          description: procedure.description,
          taskFamily: procedure.taskFamily,
          tags: procedure.tags,
          contextConditions: procedure.contextConditions,
          exclusions: procedure.exclusions,
        },
        steps: procedure.steps.map((instruction, index) => ({ id: `s${index}`, instruction })),
      }),
      status: 'active',
      change: { kind: 'created' },
    }),
  );
  const ndcgs: number[] = [];
  let filtersHeld = 0;
  let filterCases = 0;
  for (const testCase of rankingCases()) {
    const weights = adaptiveWeights(testCase.query, { adaptive });
    const ranked = rankProcedures(testCase.query, testCase.facts, pool, weights, 5).ranked.map((hit) => hit.id);
    const ndcg = ndcgAt(ranked, testCase.relevance, 3);
    if (ndcg !== undefined) ndcgs.push(ndcg);
    if (testCase.excluded) {
      filterCases += 1;
      if (testCase.excluded.every((id) => !ranked.includes(id))) filtersHeld += 1;
    }
  }
  return {
    queries: ndcgs.length,
    ndcgAt3: ndcgs.reduce((sum, value) => sum + value, 0) / ndcgs.length,
    filtersHeld,
    filterCases,
  };
};

export const evaluateProceduralQuality = async (): Promise<ProceduralQuality> => {
  const goal = score(
    await Promise.all(
      goalCases().map(async (testCase) => {
        const consistency = await contentWordJudge.judge(testCase);
        return {
          name: `${testCase.current} (for: ${testCase.assigned})`,
          predicted: goalDivergence(testCase.current, testCase.assigned, consistency).realign,
          actual: testCase.diverged,
        };
      }),
    ),
  );
  const plan = score(
    planCases().map((testCase) => ({
      name: testCase.name,
      predicted: planDivergence(testCase.local, testCase.assigned).realign,
      actual: testCase.diverged,
    })),
  );
  const states = stateCases();
  const stateConflict = score(
    states.map((testCase) => ({
      name: testCase.name,
      predicted: conflictingKeys(testCase.evidence).length > 0,
      actual: testCase.conflict,
    })),
  );
  const resolutionMisses = states
    .filter((testCase) => {
      const resolution = resolveKey('order-7.payment', testCase.evidence);
      return 'value' in testCase.expected
        ? resolution.status !== 'resolved' || resolution.value !== testCase.expected.value
        : resolution.status !== 'unresolved' || resolution.reason !== testCase.expected.unresolved;
    })
    .map((testCase) => testCase.name);
  const promotion = score(
    promotionCases().map((testCase) => ({
      name: testCase.name,
      predicted: decidePromotion(testCase, testCase.trials).accept,
      actual: testCase.accept,
    })),
  );
  return {
    goal,
    plan,
    stateConflict,
    stateResolution: {
      cases: states.length,
      accuracy: (states.length - resolutionMisses.length) / states.length,
      misses: resolutionMisses,
    },
    promotion,
    ranking: { adaptive: rankingScore(true), fixed: rankingScore(false) },
  };
};
