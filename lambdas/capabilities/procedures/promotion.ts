import { hashingTokens } from '../retrieval/public.ts';
import { type PrerequisiteEdge, upstreamOf } from './dependency-graph.ts';

/*
 * REVISION VALIDATION AND PROMOTION (reference 001 §4.4 eq. 9, §B.5 eq. 12–15).
 * Precheck (eq. 12):      u_claim = b_claim − λ · c_claim, λ = 1; a candidate is kept only when u_claim ≥ 0.
 * Trial utility (eq. 13): u_t = r_candidate − r_baseline − λ · c_t.
 * Mean (eq. 14):          ū = Σ u_t / |T| over every recorded trial, failed ones included; −∞ with no trial.
 *                         Compared with 0 to within 1e-9: rewards are decimals, and 0.7 − 0.6 − 0.1 is −3e-17 in
 *                         binary floating point, which must not fail a candidate whose benefit equals its cost.
 * Gates (eq. 9):          safety risk < 0.50; causal confidence ≥ 0.65; qualifying trials ≥ m = 1 (a trial
 *                         qualifies when it verified the state and supported the causal attribution); the latest
 *                         trial verified the state; ū ≥ 0.
 * Summary (eq. 15):       v = min(1, 0.4 · c_causal + 0.3 · n_q / max(m, n_q) + 0.3 · (1 − r_safety)), kept as
 *                         metadata of the promoted version, never a gate.
 * Safety risk:            the larger of the risk supplied with the candidate and the risk its steps show: a step
 *                         naming a sensitive or irreversible action (whole words: "pay the invoice" is a payment,
 *                         "parse the JSON payload" is not) scores 0.5 when no verification step (verify, confirm,
 *                         check, approve, validate, review) precedes it in the graph, 0.25 when one does.
 */

export interface PromotionPolicy {
  readonly costWeight: number;
  readonly maxSafetyRisk: number;
  readonly minCausalConfidence: number;
  readonly minReproductions: number;
}

export const DEFAULT_PROMOTION_POLICY: PromotionPolicy = {
  costWeight: 1,
  maxSafetyRisk: 0.5,
  minCausalConfidence: 0.65,
  minReproductions: 1,
};

export interface TrialRecord {
  readonly candidateReward: number;
  readonly baselineReward: number;
  readonly cost: number;
  readonly stateVerified: boolean;
  readonly causalSupport: boolean;
  /** ISO-8601; orders the trials. */
  readonly recordedAt: string;
}

/** How far below 0 a mean may fall by floating-point rounding alone and still count as 0. */
const UTILITY_TOLERANCE = 1e-9;

export const claimUtility = (benefit: number, cost: number, policy = DEFAULT_PROMOTION_POLICY): number =>
  benefit - policy.costWeight * cost;

export const trialUtility = (trial: TrialRecord, policy = DEFAULT_PROMOTION_POLICY): number =>
  trial.candidateReward - trial.baselineReward - policy.costWeight * trial.cost;

export const meanNetBenefit = (trials: readonly TrialRecord[], policy = DEFAULT_PROMOTION_POLICY): number =>
  trials.length === 0
    ? Number.NEGATIVE_INFINITY
    : trials.reduce((sum, trial) => sum + trialUtility(trial, policy), 0) / trials.length;

const SENSITIVE_ACTIONS = new Set([
  'pay',
  'pays',
  'paid',
  'payment',
  'payments',
  'purchase',
  'purchases',
  'charge',
  'charges',
  'refund',
  'refunds',
  'transfer',
  'transfers',
  'wire',
  'credential',
  'credentials',
  'password',
  'passwords',
  'secret',
  'secrets',
]);
const IRREVERSIBLE_ACTIONS = new Set([
  'delete',
  'deletes',
  'drop',
  'drops',
  'destroy',
  'destroys',
  'wipe',
  'wipes',
  'purge',
  'purges',
  'erase',
  'erases',
  'truncate',
  'overwrite',
  'overwrites',
  'revoke',
  'revokes',
  'terminate',
  'terminates',
]);
const VERIFICATION_ACTIONS = new Set(['verify', 'confirm', 'check', 'approve', 'validate', 'review']);

const namesAny = (text: string, words: ReadonlySet<string>) => hashingTokens(text).some((word) => words.has(word));

export interface StepRisk {
  readonly step: string;
  readonly risk: number;
}

/** The risk each risky step shows, by the rule above; steps without a risky action are left out. */
export function stepRisks(
  steps: readonly { readonly id: string; readonly instruction: string }[],
  edges: readonly PrerequisiteEdge[],
): StepRisk[] {
  const instructions = new Map(steps.map((step) => [step.id, step.instruction]));
  return steps
    .filter((step) => namesAny(step.instruction, SENSITIVE_ACTIONS) || namesAny(step.instruction, IRREVERSIBLE_ACTIONS))
    .map((step) => {
      const guarded = [...upstreamOf(step.id, edges)].some((before) =>
        namesAny(instructions.get(before) ?? '', VERIFICATION_ACTIONS),
      );
      return { step: step.id, risk: guarded ? 0.25 : 0.5 };
    });
}

export interface PromotionCandidate {
  readonly causalConfidence: number;
  readonly safetyRisk: number;
  readonly steps: readonly { readonly id: string; readonly instruction: string }[];
  readonly prerequisites: readonly PrerequisiteEdge[];
}

export type PromotionGate = 'safety' | 'state' | 'causal' | 'reproduction' | 'net_benefit';

export interface PromotionDecision {
  readonly accept: boolean;
  readonly failedGates: readonly PromotionGate[];
  readonly safetyRisk: number;
  readonly riskySteps: readonly StepRisk[];
  readonly trials: number;
  readonly qualifyingTrials: number;
  /** −∞ (reported as null by the API) without trials. */
  readonly meanNetBenefit: number;
  /** Eq. 15, defined only when accepted. */
  readonly summaryScore?: number;
}

export function decidePromotion(
  candidate: PromotionCandidate,
  trials: readonly TrialRecord[],
  policy: PromotionPolicy = DEFAULT_PROMOTION_POLICY,
): PromotionDecision {
  const riskySteps = stepRisks(candidate.steps, candidate.prerequisites);
  const safetyRisk = Math.max(candidate.safetyRisk, ...riskySteps.map((step) => step.risk));
  const qualifyingTrials = trials.filter((trial) => trial.stateVerified && trial.causalSupport).length;
  const latest = [...trials]
    .sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : 0))
    .at(-1);
  const mean = meanNetBenefit(trials, policy);
  const failedGates: PromotionGate[] = [];
  if (!(safetyRisk < policy.maxSafetyRisk)) failedGates.push('safety');
  if (latest?.stateVerified !== true) failedGates.push('state');
  if (!(candidate.causalConfidence >= policy.minCausalConfidence)) failedGates.push('causal');
  if (qualifyingTrials < policy.minReproductions) failedGates.push('reproduction');
  if (!(mean >= -UTILITY_TOLERANCE)) failedGates.push('net_benefit');
  const accept = failedGates.length === 0;
  const base = {
    accept,
    failedGates,
    safetyRisk,
    riskySteps,
    trials: trials.length,
    qualifyingTrials,
    meanNetBenefit: mean,
  };
  if (!accept) return base;
  const reproduction = qualifyingTrials / Math.max(policy.minReproductions, qualifyingTrials);
  return {
    ...base,
    summaryScore: Math.min(1, 0.4 * candidate.causalConfidence + 0.3 * reproduction + 0.3 * (1 - safetyRisk)),
  };
}
