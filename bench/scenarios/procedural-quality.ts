/**
 * The procedural-memory labelled set (bench/procedural-quality/), scored in process through the same domain
 * functions the API calls: accuracy, precision, recall and F1 per divergence signal and for promotion,
 * resolution accuracy, and nDCG@3 of procedure ranking with adaptive and with fixed weights.
 */
import { type BinaryScore, evaluateProceduralQuality } from '../procedural-quality/evaluate.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';

const three = (value: number) => value.toFixed(3);
const row = (signal: string, positive: string, score: BinaryScore) =>
  `| ${signal} | ${positive} | ${score.cases} | ${three(score.accuracy)} | ${three(score.precision)} | ${three(score.recall)} | ${three(score.f1)} |`;

export const proceduralQualityScenario: Scenario = {
  name: 'procedural-quality',
  run: async (): Promise<ScenarioResult> => {
    const quality = await evaluateProceduralQuality();
    const { adaptive, fixed } = quality.ranking;
    const misses = [
      ...quality.goal.misses.map((name) => `goal: ${name}`),
      ...quality.plan.misses.map((name) => `plan: ${name}`),
      ...quality.stateConflict.misses.map((name) => `state conflict: ${name}`),
      ...quality.stateResolution.misses.map((name) => `resolution: ${name}`),
      ...quality.promotion.misses.map((name) => `promotion: ${name}`),
    ];
    const body = [
      "The project's procedural-memory set (`bench/procedural-quality/`, its README says how it was made): labelled cases scored through the domain functions the API calls, with reference 001's defaults (β 0.55, τ_g 0.35, τ_p 0.40, confidence ≥ 0.70, the promotion gates, K = 5) and the deterministic goal judge.",
      '',
      '| Signal | Positive means | Cases | Accuracy | Precision | Recall | F1 |',
      '| :-- | :-- | --: | --: | --: | --: | --: |',
      row('Goal divergence (D_g > 0.35)', 'realign', quality.goal),
      row('Plan divergence (D_p > 0.40)', 'realign', quality.plan),
      row('State conflict (C_s ≠ ∅)', 'conflicting evidence', quality.stateConflict),
      row('Promotion (eq. 9)', 'accept', quality.promotion),
      '',
      `State resolution (§B.3): ${quality.stateResolution.cases} cases, accuracy ${three(quality.stateResolution.accuracy)} (the value, or the reason it stays unresolved).`,
      '',
      '| Procedure ranking | Queries | nDCG@3 | Ruled-out procedures left out |',
      '| :-- | --: | --: | --: |',
      `| adaptive weights (Table 3 cues) | ${adaptive.queries} | ${three(adaptive.ndcgAt3)} | ${adaptive.filtersHeld} / ${adaptive.filterCases} |`,
      `| fixed 0.5 / 0.5 | ${fixed.queries} | ${three(fixed.ndcgAt3)} | ${fixed.filtersHeld} / ${fixed.filterCases} |`,
      '',
      misses.length === 0 ? 'Every case as labelled.' : `Cases not as labelled (${misses.length}):`,
      '',
      ...misses.map((miss) => `- ${miss}`),
    ].join('\n');
    return {
      sections: [{ title: 'Procedural memory: the labelled set', body }],
      headline: [
        {
          label: 'Procedural set: goal divergence F1 / plan divergence F1 / state conflict F1',
          value: `${three(quality.goal.f1)} / ${three(quality.plan.f1)} / ${three(quality.stateConflict.f1)}`,
        },
        {
          label: 'Procedural set: state resolution accuracy / promotion F1',
          value: `${three(quality.stateResolution.accuracy)} / ${three(quality.promotion.f1)}`,
        },
        {
          label: 'Procedural set: procedure ranking nDCG@3 (adaptive / fixed)',
          value: `${three(adaptive.ndcgAt3)} / ${three(fixed.ndcgAt3)}`,
        },
      ],
      raw: quality,
      methodNotes: [
        'procedural-quality is deterministic and in process: the same code gives the same figures on every machine.',
      ],
    };
  },
};
