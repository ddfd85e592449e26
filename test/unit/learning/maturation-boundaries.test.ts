import { describe, expect, it } from 'vitest';
import { assessBelief, evaluateBelief } from '../../../lambdas/capabilities/learning/maturation-gate.ts';
import { DEFAULT_LEARNING, day, entryOf, foldSightings, type Sighting } from './learning-fixtures.ts';

/** Folds the sightings and evaluates the belief on `atDay`, as the append path and the periodic synthesis do. */
const believedOn = (atDay: number, sightings: readonly Sighting[], cardinality: 'single' | 'multi' = 'single') =>
  evaluateBelief(foldSightings(sightings, { cardinality }), day(atDay), DEFAULT_LEARNING);

/** The same sightings in the order given and in the reverse order: a merge must not depend on arrival order. */
const bothOrders = (sightings: readonly Sighting[]): readonly (readonly Sighting[])[] => [
  sightings,
  [...sightings].reverse(),
];

describe('Function: evaluateBelief', () => {
  describe('Gate: distinct sessions are counted inside the window only', () => {
    it('does not count a session seen only outside the window towards the distinct sessions', () => {
      // Prepare: three confirmations inside the window, all from s2; s1 was seen once, 95 days before.
      const sightings = [
        { session: 's1', day: 0 },
        { session: 's2', day: 50 },
        { session: 's2', day: 60 },
        { session: 's2', day: 95 },
      ];

      // Act
      const belief = believedOn(95, sightings);

      // Assess
      expect(assessBelief(belief, day(95), DEFAULT_LEARNING)[0]).toMatchObject({
        confirmationsInWindow: 3,
        sessionsInWindow: 1,
      });
      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
    });

    it('counts a session last seen exactly one window ago, and matures on it', () => {
      const belief = believedOn(95, [
        { session: 's1', day: 5 },
        { session: 's2', day: 50 },
        { session: 's2', day: 95 },
      ]);

      expect(assessBelief(belief, day(95), DEFAULT_LEARNING)[0]).toMatchObject({
        confirmationsInWindow: 3,
        sessionsInWindow: 2,
      });
      expect(belief).toMatchObject({ status: 'mature', appliedValue: 'concise' });
    });

    it('stops counting that session a moment later', () => {
      const belief = believedOn(95, [
        { session: 's1', day: 5 - 1 / 86_400_000 },
        { session: 's2', day: 50 },
        { session: 's2', day: 60 },
        { session: 's2', day: 95 },
      ]);

      expect(assessBelief(belief, day(95), DEFAULT_LEARNING)[0]).toMatchObject({ sessionsInWindow: 1 });
      expect(belief.status).toBe('provisional');
    });
  });

  describe('Gate: a declarative refutation at the same instant as the last confirmation wins', () => {
    it.each(
      bothOrders([
        { session: 's1', day: 0 },
        { session: 's1', day: 1 },
        { session: 's2', day: 2 },
        { session: 's2', day: 2, basis: 'declarative', polarity: 'refute', event: 'retraction' },
      ]),
    )('keeps a trait that had recurred from applying (sightings %#)', (...sightings) => {
      // Act
      const belief = believedOn(2, sightings);

      // Assess: without the retraction the same three confirmations from two sessions would be applied
      const confirmations = sightings.filter((sighting) => sighting.event !== 'retraction');
      expect(believedOn(2, confirmations)).toMatchObject({ status: 'mature', appliedValue: 'concise' });
      expect(assessBelief(belief, day(2), DEFAULT_LEARNING)[0]).toMatchObject({ retracted: true, recurs: false });
      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
    });

    it.each(
      bothOrders([
        { session: 's1', day: 3, basis: 'declarative', event: 'statement' },
        { session: 's1', day: 3, basis: 'declarative', polarity: 'refute', event: 'retraction' },
      ]),
    )('lets a retraction outweigh a statement of the same instant, single-valued (sightings %#)', (...sightings) => {
      const belief = believedOn(3, sightings);

      expect(assessBelief(belief, day(3), DEFAULT_LEARNING)[0]).toMatchObject({ declared: false, retracted: true });
      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
      expect(entryOf(belief, 'concise').status).toBe('provisional');
    });

    it.each(
      bothOrders([
        { session: 's1', day: 3, basis: 'declarative', event: 'statement' },
        { session: 's1', day: 3, basis: 'declarative', polarity: 'refute', event: 'retraction' },
      ]),
    )('lets a retraction outweigh a statement of the same instant, multi-valued (sightings %#)', (...sightings) => {
      const belief = believedOn(3, sightings, 'multi');

      expect(belief.status).toBe('provisional');
      expect(belief.appliedValue).toBeUndefined();
    });

    it('applies a statement made a moment after the retraction', () => {
      const belief = believedOn(3, [
        { session: 's1', day: 3 - 1 / 86_400_000, basis: 'declarative', polarity: 'refute' },
        { session: 's1', day: 3, basis: 'declarative' },
      ]);

      expect(belief).toMatchObject({ status: 'mature', appliedValue: 'concise', basis: 'declarative' });
    });
  });
});
