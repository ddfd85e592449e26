import { describe, expect, it } from 'vitest';
import {
  claimUtility,
  decidePromotion,
  meanNetBenefit,
  type PromotionCandidate,
  stepRisks,
  type TrialRecord,
  trialUtility,
} from '../../../lambdas/capabilities/procedures/promotion.ts';

const candidate: PromotionCandidate = {
  causalConfidence: 0.8,
  safetyRisk: 0.1,
  steps: [
    { id: 'parse', instruction: 'Parse the JSON payload' },
    { id: 'store', instruction: 'Store the result' },
  ],
  prerequisites: [{ from: 'parse', to: 'store' }],
};

const trial = (item: Partial<TrialRecord> = {}): TrialRecord => ({
  candidateReward: 0.9,
  baselineReward: 0.6,
  cost: 0.1,
  stateVerified: true,
  causalSupport: true,
  recordedAt: '2026-12-01T10:00:00.000Z',
  ...item,
});

describe('Utilities (eq. 12–14)', () => {
  it('computes u_claim, u_t and the mean over every trial, −∞ without one', () => {
    expect(claimUtility(0.5, 0.2)).toBeCloseTo(0.3, 12);
    expect(trialUtility(trial())).toBeCloseTo(0.2, 12);
    expect(meanNetBenefit([trial(), trial({ candidateReward: 0, cost: 0.2 })])).toBeCloseTo((0.2 - 0.8) / 2, 12);
    expect(meanNetBenefit([])).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe('Function: decidePromotion', () => {
  it('accepts a candidate that passes every gate and scores it by eq. 15', () => {
    const decision = decidePromotion(candidate, [trial()]);
    expect(decision).toMatchObject({ accept: true, failedGates: [], qualifyingTrials: 1, safetyRisk: 0.1 });
    expect(decision.summaryScore).toBeCloseTo(Math.min(1, 0.4 * 0.8 + 0.3 + 0.3 * 0.9), 12);
  });

  it('never promotes a candidate without trials, or with failed trials only', () => {
    expect(decidePromotion(candidate, [])).toMatchObject({
      accept: false,
      failedGates: ['state', 'reproduction', 'net_benefit'],
    });
    const failed = [trial({ candidateReward: 0.1, stateVerified: false, causalSupport: false })];
    expect(decidePromotion(candidate, failed)).toMatchObject({
      accept: false,
      failedGates: ['state', 'reproduction', 'net_benefit'],
    });
  });

  it('counts a failed trial in the mean: one good and one bad trial can fail the net-benefit gate', () => {
    const decision = decidePromotion(candidate, [
      trial({ recordedAt: '2026-12-01T09:00:00.000Z' }),
      trial({ candidateReward: 0, recordedAt: '2026-12-01T08:00:00.000Z' }),
    ]);
    expect(decision.meanNetBenefit).toBeCloseTo((0.2 - 0.7) / 2, 12);
    expect(decision.failedGates).toEqual(['net_benefit']);
  });

  it('accepts a mean net benefit of exactly 0 despite floating-point rounding (0.7 − 0.6 − 0.1)', () => {
    expect(trialUtility(trial({ candidateReward: 0.7, baselineReward: 0.6, cost: 0.1 }))).toBeLessThan(0);
    expect(decidePromotion(candidate, [trial({ candidateReward: 0.7, baselineReward: 0.6, cost: 0.1 })]).accept).toBe(
      true,
    );
    expect(decidePromotion(candidate, [trial({ candidateReward: 0.7, baselineReward: 0.6, cost: 0.11 })]).accept).toBe(
      false,
    );
  });

  it('holds the causal and safety thresholds: causal ≥ 0.65, risk < 0.50', () => {
    expect(decidePromotion({ ...candidate, causalConfidence: 0.65 }, [trial()]).accept).toBe(true);
    expect(decidePromotion({ ...candidate, causalConfidence: 0.649 }, [trial()]).failedGates).toEqual(['causal']);
    expect(decidePromotion({ ...candidate, safetyRisk: 0.5 }, [trial()]).failedGates).toEqual(['safety']);
  });
});

describe('Function: stepRisks', () => {
  it('matches sensitive and irreversible actions as whole words, lowered by a verification step before them', () => {
    expect(stepRisks(candidate.steps, candidate.prerequisites)).toEqual([]);
    const steps = [
      { id: 'check', instruction: 'Confirm the invoice with the owner' },
      { id: 'pay', instruction: 'Pay the invoice' },
      { id: 'wipe', instruction: 'Delete the draft' },
    ];
    expect(stepRisks(steps, [{ from: 'check', to: 'pay' }])).toEqual([
      { step: 'pay', risk: 0.25 },
      { step: 'wipe', risk: 0.5 },
    ]);
    expect(
      decidePromotion({ ...candidate, steps, prerequisites: [{ from: 'check', to: 'pay' }] }, [trial()]).failedGates,
    ).toEqual(['safety']);
  });
});
