import type { Belief, CandidateRule, RuleValue } from '../../../lambdas/capabilities/learning/belief.schema.ts';
import { DAY_MS, type LearningSettings } from '../../../lambdas/capabilities/learning/learning-settings.ts';
import { mergeObservation } from '../../../lambdas/capabilities/learning/merge-rule.ts';

/** The defaults of `learning` in the configuration, spelled out so a test reads on its own. */
export const DEFAULT_LEARNING: LearningSettings = {
  minOccurrences: 3,
  windowDays: 90,
  minDistinctSessions: 2,
  decayAfterDays: 60,
  expireAfterDays: 180,
};

export const EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

/** The instant `days` (may be fractional) after the epoch. */
export const day = (days: number): Date => new Date(EPOCH + days * DAY_MS);

export const rule = (overrides: Partial<CandidateRule> = {}): CandidateRule => ({
  key: 'style.tone',
  value: 'concise',
  kind: 'preference',
  basis: 'behavioral',
  cardinality: 'single',
  polarity: 'confirm',
  ...overrides,
});

/** One observation to fold: the value (or a whole candidate), its session, its day and optionally its event. */
export interface Sighting {
  readonly value?: RuleValue;
  readonly session: string;
  readonly day: number;
  readonly event?: string;
  readonly basis?: CandidateRule['basis'];
  readonly polarity?: CandidateRule['polarity'];
}

/** Folds sightings of one rule in order; events are numbered when not given. */
export const foldSightings = (
  sightings: readonly Sighting[],
  base: Partial<CandidateRule> = {},
  settings: LearningSettings = DEFAULT_LEARNING,
  start: Belief | undefined = undefined,
): Belief => {
  let belief = start;
  sightings.forEach((sighting, index) => {
    const candidate = rule({
      ...base,
      ...(sighting.value !== undefined && { value: sighting.value }),
      ...(sighting.basis !== undefined && { basis: sighting.basis }),
      ...(sighting.polarity !== undefined && { polarity: sighting.polarity }),
    });
    const observation = {
      eventId: sighting.event ?? `evt-${index}-${sighting.session}-${sighting.day}`.replace(/\./g, '_'),
      session: sighting.session,
      at: day(sighting.day).toISOString(),
    };
    belief = mergeObservation(belief, candidate, observation, settings);
  });
  if (belief === undefined) throw new Error('fold at least one sighting');
  return belief;
};

/** A belief's entry for `value`. */
export const entryOf = (belief: Belief, value: RuleValue) => {
  const entry = belief.values.find((candidate) => candidate.value === value);
  if (entry === undefined) throw new Error(`no entry for ${String(value)}`);
  return entry;
};
