import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../lambdas/app/service-tables.ts';
import { Belief, type CandidateRule } from '../../../lambdas/capabilities/learning/belief.schema.ts';
import {
  appliedValuesOf,
  assessBelief,
  evaluateBelief,
  recencyWeight,
} from '../../../lambdas/capabilities/learning/maturation-gate.ts';
import { mergeAndEvaluate } from '../../../lambdas/capabilities/learning/merge-rule.ts';
import { DEFAULT_LEARNING, day, entryOf, foldSightings, rule, type Sighting } from './learning-fixtures.ts';

/** Folds and evaluates each sighting at its own instant, as the append path does. */
const learn = (sightings: readonly Sighting[], base: Partial<CandidateRule> = {}, start?: Belief): Belief => {
  let belief = start;
  sightings.forEach((sighting, index) => {
    belief = mergeAndEvaluate(
      belief,
      rule({
        ...base,
        ...(sighting.value !== undefined && { value: sighting.value }),
        ...(sighting.basis !== undefined && { basis: sighting.basis }),
        ...(sighting.polarity !== undefined && { polarity: sighting.polarity }),
      }),
      {
        eventId: sighting.event ?? `learn-${index}-${sighting.day}`.replace('.', '_'),
        session: sighting.session,
        at: day(sighting.day).toISOString(),
      },
      day(sighting.day),
      DEFAULT_LEARNING,
    );
  });
  if (belief === undefined) throw new Error('learn at least one sighting');
  return belief;
};

const matureTone = (): Belief =>
  learn([
    { session: 's1', day: 0 },
    { session: 's1', day: 1 },
    { session: 's2', day: 2 },
  ]);

describe('Function: evaluateBelief', () => {
  it('reads the same thresholds as the configuration defaults', () => {
    const { minOccurrences, windowDays, minDistinctSessions, decayAfterDays, expireAfterDays } =
      DEFAULT_CONFIG.learning;

    expect({ minOccurrences, windowDays, minDistinctSessions, decayAfterDays, expireAfterDays }).toEqual(
      DEFAULT_LEARNING,
    );
  });

  describe('Gate: behavioral traits must recur', () => {
    it('keeps one signal provisional: stored, not applied', () => {
      const belief = learn([{ session: 's1', day: 0 }]);

      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
      expect(entryOf(belief, 'concise')).toMatchObject({ status: 'provisional', support: 1 });
      // share 1 × strength (1/3 × 1/2) × 0.5 for not applied
      expect(belief.confidence).toBe(0.083);
    });

    it('keeps three signals from one session provisional', () => {
      const belief = learn([
        { session: 's1', day: 0 },
        { session: 's1', day: 1 },
        { session: 's1', day: 2 },
      ]);

      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
      expect(belief.confidence).toBe(0.25);
    });

    it('matures three signals from two sessions within 90 days', () => {
      const belief = learn([
        { session: 's1', day: 0 },
        { session: 's1', day: 40 },
        { session: 's2', day: 89 },
      ]);

      expect(belief).toMatchObject({
        status: 'mature',
        appliedValue: 'concise',
        basis: 'behavioral',
        confidence: 1,
        statusChangedAt: day(89).toISOString(),
      });
      expect(entryOf(belief, 'concise').status).toBe('mature');
    });

    it('does not count signals older than the window', () => {
      const belief = learn([
        { session: 's1', day: 0 },
        { session: 's1', day: 40 },
        { session: 's2', day: 91 },
      ]);

      expect(belief.status).toBe('provisional');
      expect(assessBelief(belief, day(91), DEFAULT_LEARNING)[0]).toMatchObject({
        confirmationsInWindow: 2,
        sessionsInWindow: 2,
      });
    });

    it('honours thresholds overridden for an agent', () => {
      const stricter = { ...DEFAULT_LEARNING, minOccurrences: 4, minDistinctSessions: 3 };
      const belief = foldSightings([
        { session: 's1', day: 0 },
        { session: 's2', day: 1 },
        { session: 's3', day: 2 },
      ]);

      expect(evaluateBelief(belief, day(2), DEFAULT_LEARNING).status).toBe('mature');
      expect(evaluateBelief(belief, day(2), stricter).status).toBe('provisional');
    });
  });

  describe('Gate: declarative facts mature at once', () => {
    it('applies a fact the principal states once', () => {
      const belief = learn([{ session: 's1', day: 0, basis: 'declarative' }]);

      expect(belief).toMatchObject({ status: 'mature', appliedValue: 'concise', basis: 'declarative', confidence: 1 });
      expect(entryOf(belief, 'concise').declaredAt).toBe(day(0).toISOString());
    });

    it('lets a newer statement of another value supersede an older one, however often that was stated', () => {
      const belief = learn([
        { session: 's1', day: 0, basis: 'declarative' },
        { session: 's2', day: 5, basis: 'declarative' },
        { session: 's3', day: 10, basis: 'declarative' },
        { value: 'detailed', session: 's4', day: 20, basis: 'declarative' },
      ]);

      expect(belief).toMatchObject({ status: 'mature', appliedValue: 'detailed', basis: 'declarative' });
      expect(entryOf(belief, 'concise').status).toBe('superseded');
      expect(belief.superseded).toEqual([{ value: 'concise', by: 'detailed', at: day(20).toISOString() }]);
    });

    it('keeps a stated fact applied against contrary behaviour until it decays', () => {
      const stated = learn([
        { session: 's1', day: 0, basis: 'declarative' },
        { value: 'detailed', session: 's2', day: 1 },
        { value: 'detailed', session: 's3', day: 3 },
        { value: 'detailed', session: 's2', day: 5 },
      ]);

      expect(stated).toMatchObject({ appliedValue: 'concise', basis: 'declarative' });
      expect(entryOf(stated, 'detailed').status).toBe('superseded');
      // the contrary evidence shows in the confidence: 1 / (1 + Σ weights of 'detailed')
      expect(stated.confidence).toBeLessThan(0.3);

      const later = evaluateBelief(stated, day(61), DEFAULT_LEARNING);
      expect(later).toMatchObject({ appliedValue: 'detailed', basis: 'behavioral' });
      expect(later.superseded[0]).toEqual({ value: 'concise', by: 'detailed', at: day(61).toISOString() });
    });

    it('stops applying a fact the principal retracts', () => {
      const belief = learn([
        { session: 's1', day: 0, basis: 'declarative' },
        { session: 's1', day: 1, basis: 'declarative', polarity: 'refute' },
      ]);

      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
      expect(entryOf(belief, 'concise')).toMatchObject({ support: 1, refuted: 1, status: 'provisional' });
      expect(belief.superseded).toEqual([]);
    });

    it('lets behaviour re-establish a retracted value only with confirmations after the retraction', () => {
      const retracted = learn([
        { session: 's1', day: 0 },
        { session: 's2', day: 1 },
        { session: 's2', day: 2 },
        { session: 's1', day: 3, basis: 'declarative', polarity: 'refute' },
      ]);
      expect(retracted.status).toBe('provisional');

      const again = learn([{ session: 's3', day: 4 }], {}, retracted);
      expect(again.status).toBe('mature');
    });
  });

  describe('Gate: decay and expiry', () => {
    it('keeps a mature value applied for 60 days without confirmation, and makes it provisional on day 61', () => {
      const belief = matureTone();

      expect(evaluateBelief(belief, day(2 + 60), DEFAULT_LEARNING).status).toBe('mature');
      const decayed = evaluateBelief(belief, day(2 + 61), DEFAULT_LEARNING);
      expect(decayed.status).toBe('provisional');
      expect(decayed.appliedValue).toBeUndefined();
      // Dated to when the value went stale (last confirmation on day 2, plus 60 days), not to when it was read.
      expect(decayed.statusChangedAt).toBe(day(62).toISOString());
      expect(evaluateBelief(belief, day(2 + 75), DEFAULT_LEARNING).statusChangedAt).toBe(day(62).toISOString());
      expect(decayed.confidence).toBeLessThanOrEqual(0.5);
    });

    it('expires a value after 181 days without confirmation', () => {
      const belief = matureTone();

      expect(evaluateBelief(belief, day(2 + 180), DEFAULT_LEARNING).status).toBe('provisional');
      const expired = evaluateBelief(belief, day(2 + 181), DEFAULT_LEARNING);
      expect(expired).toMatchObject({ status: 'expired', confidence: 0 });
      expect(entryOf(expired, 'concise')).toMatchObject({ status: 'expired', confidence: 0, support: 3 });
    });

    it('brings a decayed value back with fresh confirmations', () => {
      const decayed = evaluateBelief(matureTone(), day(100), DEFAULT_LEARNING);

      const renewed = learn(
        [
          { session: 's5', day: 100 },
          { session: 's6', day: 101 },
          { session: 's6', day: 102 },
        ],
        {},
        decayed,
      );

      expect(renewed.status).toBe('mature');
      expect(entryOf(renewed, 'concise').support).toBe(6);
    });

    it('moves statusChangedAt only when the status changes', () => {
      const belief = matureTone();

      expect(evaluateBelief(belief, day(30), DEFAULT_LEARNING).statusChangedAt).toBe(day(2).toISOString());
    });
  });

  describe('Competition: single-valued keys', () => {
    it('lets a newer value with greater recency-weighted support supersede; both stay visible', () => {
      const mature = matureTone();
      const stronger = learn(
        [
          { value: 'detailed', session: 's3', day: 40 },
          { value: 'detailed', session: 's4', day: 42 },
          { value: 'detailed', session: 's3', day: 45 },
        ],
        {},
        mature,
      );

      expect(stronger).toMatchObject({ status: 'mature', appliedValue: 'detailed' });
      expect(entryOf(stronger, 'concise')).toMatchObject({ status: 'superseded', support: 3 });
      expect(entryOf(stronger, 'detailed')).toMatchObject({ status: 'mature', support: 3 });
      expect(stronger.superseded).toHaveLength(1);
      expect(stronger.superseded[0]).toMatchObject({ value: 'concise', by: 'detailed' });
    });

    it('does not let a weaker writer clobber a stronger belief', () => {
      const belief = learn(
        [
          { value: 'detailed', session: 's3', day: 3 },
          { value: 'detailed', session: 's4', day: 4 },
        ],
        {},
        matureTone(),
      );

      expect(belief).toMatchObject({ status: 'mature', appliedValue: 'concise' });
      expect(entryOf(belief, 'detailed').status).toBe('provisional');
      expect(belief.superseded).toEqual([]);
    });

    it('un-applies a value outweighed by a competitor that has not yet matured itself', () => {
      // 'concise': 3 sightings 38-40 days old; 'detailed': 2 fresh ones from 2 sessions weigh more
      const belief = learn(
        [
          { value: 'detailed', session: 's3', day: 41 },
          { value: 'detailed', session: 's4', day: 42 },
        ],
        {},
        matureTone(),
      );

      expect(belief.status).toBe('provisional');
      expect(entryOf(belief, 'concise').status).toBe('superseded');
      expect(entryOf(belief, 'detailed').status).toBe('provisional');
      expect(belief.superseded[0]).toEqual({ value: 'concise', by: 'detailed', at: day(42).toISOString() });
    });

    it('weighs recent observations more: 0.5 ^ (age / 30 days)', () => {
      expect(recencyWeight(0, 30)).toBe(1);
      expect(recencyWeight(30, 30)).toBe(0.5);
      expect(recencyWeight(60, 30)).toBe(0.25);
      expect(recencyWeight(-1, 30)).toBe(1);
    });

    it('takes the half-life from the settings when given', () => {
      const belief = foldSightings([{ session: 's1', day: 0 }]);

      const [assessment] = assessBelief(belief, day(10), { ...DEFAULT_LEARNING, recencyHalfLifeDays: 10 });
      expect(assessment?.weightedConfirmations).toBe(0.5);
    });

    it('lets refutations outweigh confirmations', () => {
      const belief = learn(
        [
          { session: 's3', day: 2, polarity: 'refute' },
          { session: 's3', day: 2.1, polarity: 'refute' },
          { session: 's4', day: 2.2, polarity: 'refute' },
        ],
        {},
        matureTone(),
      );

      expect(belief.status).toBe('provisional');
      expect(entryOf(belief, 'concise')).toMatchObject({ support: 3, refuted: 3 });
    });
  });

  describe('Coexistence: multi-valued keys', () => {
    it('applies every value that passes the gate, in canonical order', () => {
      const belief = learn(
        [
          { value: 'typescript', session: 's1', day: 0, basis: 'declarative' },
          { value: 'go', session: 's1', day: 1 },
          { value: 'go', session: 's2', day: 2 },
          { value: 'go', session: 's2', day: 3 },
          { value: 'rust', session: 's3', day: 3 },
        ],
        { key: 'languages', cardinality: 'multi', kind: 'profile' },
      );

      expect(belief).toMatchObject({ status: 'mature', appliedValue: ['go', 'typescript'], basis: 'declarative' });
      expect(entryOf(belief, 'rust').status).toBe('provisional');
      expect(belief.superseded).toEqual([]);
      expect(appliedValuesOf(belief)).toEqual(['go', 'typescript']);
    });

    it('lets values decay on their own', () => {
      const belief = learn(
        [
          { value: 'typescript', session: 's1', day: 0, basis: 'declarative' },
          { value: 'go', session: 's1', day: 50 },
          { value: 'go', session: 's2', day: 51 },
          { value: 'go', session: 's2', day: 52 },
        ],
        { key: 'languages', cardinality: 'multi', kind: 'profile' },
      );

      expect(evaluateBelief(belief, day(61), DEFAULT_LEARNING).appliedValue).toEqual(['go']);
    });
  });

  describe('Determinism', () => {
    it('changes nothing when evaluated again at the same instant', () => {
      const belief = learn(
        [
          { value: 'detailed', session: 's3', day: 41 },
          { value: 'detailed', session: 's4', day: 42 },
        ],
        {},
        matureTone(),
      );

      expect(evaluateBelief(belief, day(42), DEFAULT_LEARNING)).toEqual(belief);
    });

    it('produces content the stored schema accepts, unchanged by a JSON round trip', () => {
      const belief = learn(
        [
          { value: 'detailed', session: 's3', day: 41 },
          { value: 'detailed', session: 's4', day: 42, polarity: 'refute' },
        ],
        {},
        matureTone(),
      );

      expect(Belief.parse(JSON.parse(JSON.stringify(belief)))).toStrictEqual(belief);
    });
  });
});
