import {
  type Belief,
  type BeliefStatus,
  type BelievedValue,
  type BelievedValueStatus,
  compareValues,
  MAX_SUPERSESSIONS,
  type RuleValue,
  sameValue,
} from './belief.schema.ts';
import { DAY_MS, halfLifeDaysOf, type LearningSettings } from './learning-settings.ts';

/*
 * SYNTHESIS: the maturation gate. `evaluateBelief` recomputes every status, the applied value and the
 * confidences from the values' evidence and `now` alone; run it after each merge and periodically, so that
 * decay and expiry happen without new events.
 *
 * Per value, at `now` (ages in days, never negative; "in the window" means at most `windowDays` old):
 * - weight of an observation  w = 0.5 ^ (age / recencyHalfLifeDays)
 * - C = Σ w over kept confirmations in the window; R = Σ w over kept refutations in the window
 * - net support  = max(0, C − R)
 * - fresh        = last confirmation at most `decayAfterDays` old
 * - expired      = last confirmation more than `expireAfterDays` old (a value never confirmed: its last
 *                  refutation)
 * - retracted    = a declarative refutation at or after the last confirmation
 * - declared     = a declarative confirmation later than any declarative refutation, and fresh
 * - recurs       = fresh, not retracted, net support > 0, at least `minOccurrences` confirmations in the
 *                  window, from at least `minDistinctSessions` sessions whose last confirmation is in it
 *
 * Multi-valued key: each value that is not expired and is declared or recurs is applied; values coexist.
 *
 * Single-valued key: the principal's latest declarative statement about the key, if it confirms a value that
 * is fresh, decides: that value is applied (a declarative fact matures at once, and a newer statement of
 * another value supersedes it). Otherwise the values compete on net support (ties: later last confirmation,
 * then the canonical value order) among those not expired and not retracted; the winner is applied only if it
 * recurs. A value that is not the winner but is declared or recurs on its own evidence is `superseded`.
 *
 * Confidence of a value: share × strength, halved when it is not applied, 0 once expired, rounded to 3 places;
 * - share    = C / (C + R + Σ C of the key's other unexpired values, single-valued keys only): how much of
 *              the recent, weighted signal about the key agrees with this value (1 when there is none and the
 *              value is applied on a declaration alone);
 * - strength = 1 when applied, else min(1, confirmations in window / minOccurrences) ×
 *              min(1, sessions in window / minDistinctSessions).
 * Only applied values exceed 0.5. The belief's confidence is the winner's (single-valued) or the highest of
 * its values' (multi-valued).
 */

/** Why a value stands where it does at one instant; what an inspection view shows as "why". */
export interface ValueAssessment {
  readonly value: RuleValue;
  readonly weightedConfirmations: number;
  readonly weightedRefutations: number;
  readonly netSupport: number;
  readonly confirmationsInWindow: number;
  readonly sessionsInWindow: number;
  readonly fresh: boolean;
  readonly expired: boolean;
  readonly retracted: boolean;
  readonly declared: boolean;
  readonly recurs: boolean;
}

interface Clocked {
  readonly nowMs: number;
  readonly settings: LearningSettings;
}

const ageDays = ({ nowMs }: Clocked, at: string): number => Math.max(0, (nowMs - Date.parse(at)) / DAY_MS);
const inWindow = (clock: Clocked, at: string): boolean => ageDays(clock, at) <= clock.settings.windowDays;

/** 0.5 ^ (age / half-life): 1 for an observation made now, 1/2 one half-life ago. */
export const recencyWeight = (ageInDays: number, halfLifeDays: number): number =>
  0.5 ** (Math.max(0, ageInDays) / halfLifeDays);

const assess = (entry: BelievedValue, clock: Clocked): ValueAssessment => {
  const { settings } = clock;
  const halfLife = halfLifeDaysOf(settings);
  const confirmations = entry.recent.filter(({ at }) => inWindow(clock, at));
  const refutations = entry.refutations.filter(({ at }) => inWindow(clock, at));
  const weigh = (sum: number, { at }: { at: string }) => sum + recencyWeight(ageDays(clock, at), halfLife);
  const weightedConfirmations = confirmations.reduce(weigh, 0);
  const weightedRefutations = refutations.reduce(weigh, 0);
  const netSupport = Math.max(0, weightedConfirmations - weightedRefutations);
  const sessionsInWindow = entry.sessions.filter(({ lastSeen }) => inWindow(clock, lastSeen)).length;
  const lastSignal = entry.lastSeen ?? entry.lastRefuted;
  const expired = lastSignal === undefined || ageDays(clock, lastSignal) > settings.expireAfterDays;
  const fresh = entry.lastSeen !== undefined && !expired && ageDays(clock, entry.lastSeen) <= settings.decayAfterDays;
  const retracted =
    entry.retractedAt !== undefined && (entry.lastSeen === undefined || entry.retractedAt >= entry.lastSeen);
  const declared =
    fresh &&
    entry.declaredAt !== undefined &&
    (entry.retractedAt === undefined || entry.declaredAt > entry.retractedAt);
  const recurs =
    fresh &&
    !retracted &&
    netSupport > 0 &&
    confirmations.length >= settings.minOccurrences &&
    sessionsInWindow >= settings.minDistinctSessions;
  return {
    value: entry.value,
    weightedConfirmations,
    weightedRefutations,
    netSupport,
    confirmationsInWindow: confirmations.length,
    sessionsInWindow,
    fresh,
    expired,
    retracted,
    declared,
    recurs,
  };
};

/** Assesses every value of `belief` at `now`, in the belief's value order. */
export const assessBelief = (belief: Belief, now: Date, settings: LearningSettings): ValueAssessment[] =>
  belief.values.map((entry) => assess(entry, { nowMs: now.getTime(), settings }));

/**
 * The value the principal's latest declarative statement about a single-valued key confirms, if that statement
 * is a confirmation. At the same instant a retraction wins over a confirmation, and confirmations are taken in
 * the canonical value order.
 */
const latestDeclaration = (values: readonly BelievedValue[]): RuleValue | undefined => {
  let latest: { at: string; confirms: boolean; value: RuleValue } | undefined;
  const consider = (at: string | undefined, confirms: boolean, value: RuleValue) => {
    if (at === undefined) return;
    const wins =
      latest === undefined ||
      at > latest.at ||
      (at === latest.at &&
        (latest.confirms && !confirms ? true : latest.confirms === confirms && compareValues(value, latest.value) < 0));
    if (wins) latest = { at, confirms, value };
  };
  for (const entry of values) {
    consider(entry.retractedAt, false, entry.value);
    consider(entry.declaredAt, true, entry.value);
  }
  return latest?.confirms ? latest.value : undefined;
};

const strongerCompetitor = (a: ValueAssessment & BelievedValue, b: ValueAssessment & BelievedValue): number =>
  b.netSupport - a.netSupport ||
  ((b.lastSeen ?? '') > (a.lastSeen ?? '') ? 1 : (b.lastSeen ?? '') < (a.lastSeen ?? '') ? -1 : 0) ||
  compareValues(a.value, b.value);

const rounded = (confidence: number): number => Math.round(Math.min(1, Math.max(0, confidence)) * 1000) / 1000;

interface Outcome {
  readonly applied: boolean;
  readonly status: BelievedValueStatus;
  readonly confidence: number;
}

const outcomeOf = (
  assessment: ValueAssessment,
  applied: boolean,
  status: BelievedValueStatus,
  opposition: number,
  settings: LearningSettings,
): Outcome => {
  if (assessment.expired) return { applied: false, status: 'expired', confidence: 0 };
  const total = assessment.weightedConfirmations + opposition;
  const share = total > 0 ? assessment.weightedConfirmations / total : applied ? 1 : 0;
  const strength = applied
    ? 1
    : Math.min(1, assessment.confirmationsInWindow / settings.minOccurrences) *
      Math.min(1, assessment.sessionsInWindow / settings.minDistinctSessions);
  return { applied, status, confidence: rounded(share * strength * (applied ? 1 : 0.5)) };
};

interface Synthesis {
  readonly outcomes: readonly Outcome[];
  /** Single-valued keys: the value that won the competition, applied or not. */
  readonly winner?: RuleValue | undefined;
  readonly onDeclaration: boolean;
  readonly confidence: number;
}

const synthesizeMulti = (assessments: readonly ValueAssessment[], settings: LearningSettings): Synthesis => {
  const outcomes = assessments.map((assessment) => {
    const applied = !assessment.expired && (assessment.declared || assessment.recurs);
    return outcomeOf(assessment, applied, applied ? 'mature' : 'provisional', assessment.weightedRefutations, settings);
  });
  return {
    outcomes,
    onDeclaration: assessments.some((assessment, index) => outcomes[index]?.applied && assessment.declared),
    confidence: outcomes.reduce((max, { confidence }) => Math.max(max, confidence), 0),
  };
};

const synthesizeSingle = (
  values: readonly BelievedValue[],
  assessments: readonly ValueAssessment[],
  settings: LearningSettings,
): Synthesis => {
  const combined = values.map((entry, index) => ({ ...entry, ...(assessments[index] as ValueAssessment) }));
  const declaredValue = latestDeclaration(values);
  const declaration = combined.find(
    (entry) => declaredValue !== undefined && sameValue(entry.value, declaredValue) && entry.fresh,
  );
  const [strongest] = combined
    .filter((entry) => !entry.expired && !entry.retracted && entry.netSupport > 0)
    .sort(strongerCompetitor);
  const winner = declaration ?? strongest;
  const applied = declaration ?? (strongest?.recurs ? strongest : undefined);
  const unexpiredConfirmations = combined
    .filter((entry) => !entry.expired)
    .reduce((sum, entry) => sum + entry.weightedConfirmations, 0);

  const outcomes = combined.map((entry) => {
    const isApplied = entry === applied;
    const status: BelievedValueStatus = isApplied
      ? 'mature'
      : winner !== undefined && entry !== winner && (entry.declared || entry.recurs)
        ? 'superseded'
        : 'provisional';
    const others = unexpiredConfirmations - (entry.expired ? 0 : entry.weightedConfirmations);
    return outcomeOf(entry, isApplied, status, entry.weightedRefutations + others, settings);
  });
  const winnerIndex = winner === undefined ? -1 : combined.indexOf(winner);
  return {
    outcomes,
    winner: winner?.value,
    onDeclaration: applied !== undefined && applied === declaration,
    confidence: outcomes[winnerIndex]?.confidence ?? 0,
  };
};

/**
 * When the status moved to `status`. A move that time alone made — expiry, or the applied value going stale —
 * happened when the horizon passed, not when someone next looked, so it is dated to that instant (never
 * before the previous change, never after `now`); any other move happened now.
 */
const changedAt = (belief: Belief, status: BeliefStatus, now: Date, settings: LearningSettings): string => {
  const dated = (ms: number) =>
    new Date(Math.min(now.getTime(), Math.max(ms, Date.parse(belief.statusChangedAt)))).toISOString();
  const latest = (instants: readonly (string | undefined)[]) =>
    Math.max(...instants.filter((at): at is string => at !== undefined).map((at) => Date.parse(at)));
  if (status === 'expired') {
    const lastSignal = latest(belief.values.flatMap(({ lastSeen, lastRefuted }) => [lastSeen, lastRefuted]));
    if (Number.isFinite(lastSignal)) return dated(lastSignal + settings.expireAfterDays * DAY_MS);
  }
  if (status === 'provisional' && belief.status === 'mature') {
    const applied = appliedValuesOf(belief);
    const lastSeen = latest(
      belief.values.filter(({ value }) => applied.some((one) => sameValue(one, value))).map(({ lastSeen }) => lastSeen),
    );
    const staleSince = lastSeen + settings.decayAfterDays * DAY_MS;
    if (Number.isFinite(lastSeen) && staleSince < now.getTime()) return dated(staleSince);
  }
  return now.toISOString();
};

/**
 * Recomputes `belief` at `now`: each value's status and confidence, the applied value, the belief's status,
 * basis and confidence. `statusChangedAt` moves only when the status changes. For a single-valued key, when
 * the value applied until now loses to another value, the supersession is recorded (newest first, bounded).
 * Deterministic, and evaluating the result again at the same `now` changes nothing.
 */
export const evaluateBelief = (belief: Belief, now: Date, settings: LearningSettings): Belief => {
  const assessments = assessBelief(belief, now, settings);
  const synthesis =
    belief.cardinality === 'multi'
      ? synthesizeMulti(assessments, settings)
      : synthesizeSingle(belief.values, assessments, settings);
  const values = belief.values.map((entry, index) => {
    const outcome = synthesis.outcomes[index] as Outcome;
    return entry.status === outcome.status && entry.confidence === outcome.confidence
      ? entry
      : { ...entry, status: outcome.status, confidence: outcome.confidence };
  });
  const applied = belief.values.filter((_, index) => synthesis.outcomes[index]?.applied).map(({ value }) => value);
  const appliedValue: RuleValue | RuleValue[] | undefined =
    applied.length === 0 ? undefined : belief.cardinality === 'multi' ? applied : applied[0];
  const status: BeliefStatus =
    appliedValue !== undefined
      ? 'mature'
      : values.length > 0 && values.every((entry) => entry.status === 'expired')
        ? 'expired'
        : 'provisional';

  const nowIso = now.toISOString();
  const previous = belief.cardinality === 'single' ? belief.appliedValue : undefined;
  const supersededBy =
    previous !== undefined &&
    !Array.isArray(previous) &&
    synthesis.winner !== undefined &&
    !sameValue(previous, synthesis.winner)
      ? synthesis.winner
      : undefined;
  const superseded =
    previous !== undefined && !Array.isArray(previous) && supersededBy !== undefined
      ? [{ value: previous, by: supersededBy, at: nowIso }, ...belief.superseded].slice(0, MAX_SUPERSESSIONS)
      : belief.superseded;

  return {
    key: belief.key,
    kind: belief.kind,
    basis: synthesis.onDeclaration ? 'declarative' : 'behavioral',
    cardinality: belief.cardinality,
    ...(belief.agent !== undefined && { agent: belief.agent }),
    values,
    status,
    ...(appliedValue !== undefined && { appliedValue }),
    confidence: synthesis.confidence,
    statusChangedAt: status === belief.status ? belief.statusChangedAt : changedAt(belief, status, now, settings),
    superseded,
    ...(belief.forgotten !== undefined && { forgotten: belief.forgotten }),
  };
};

/** The applied values of a belief as a list, whatever its cardinality. */
export const appliedValuesOf = (belief: Belief): RuleValue[] =>
  belief.appliedValue === undefined
    ? []
    : Array.isArray(belief.appliedValue)
      ? belief.appliedValue
      : [belief.appliedValue];
