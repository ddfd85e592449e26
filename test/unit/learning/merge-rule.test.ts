import { describe, expect, it } from 'vitest';
import {
  Belief,
  MAX_EVIDENCE_PER_VALUE,
  MAX_RECENT_CONFIRMATIONS,
  MAX_SESSIONS_PER_VALUE,
  MAX_VALUES_PER_BELIEF,
} from '../../../lambdas/capabilities/learning/belief.schema.ts';
import { RuleMismatchError } from '../../../lambdas/capabilities/learning/learning.errors.ts';
import { mergeAndEvaluate, mergeObservation } from '../../../lambdas/capabilities/learning/merge-rule.ts';
import { ValidationFailedError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { DEFAULT_LEARNING, day, entryOf, foldSightings, rule } from './learning-fixtures.ts';

const observation = (eventId: string, session: string, days: number) => ({
  eventId,
  session,
  at: day(days).toISOString(),
});

const thrownBy = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('Function: mergeObservation', () => {
  describe('Folding', () => {
    it('creates a provisional belief from the first candidate', () => {
      const belief = mergeObservation(
        undefined,
        rule({ agent: 'coder' }),
        observation('e1', 's1', 0),
        DEFAULT_LEARNING,
      );

      expect(belief).toEqual({
        key: 'style.tone',
        kind: 'preference',
        basis: 'behavioral',
        cardinality: 'single',
        agent: 'coder',
        values: [
          {
            value: 'concise',
            status: 'provisional',
            confidence: 0,
            support: 1,
            refuted: 0,
            firstSeen: day(0).toISOString(),
            lastSeen: day(0).toISOString(),
            sessions: [{ session: 's1', lastSeen: day(0).toISOString() }],
            evidence: [{ at: day(0).toISOString(), event: 'e1' }],
            recent: [{ at: day(0).toISOString(), event: 'e1' }],
            refutations: [],
          },
        ],
        status: 'provisional',
        confidence: 0,
        statusChangedAt: day(0).toISOString(),
        superseded: [],
      });
    });

    it('bumps support, first and last seen, and counts sessions once each', () => {
      const belief = foldSightings([
        { session: 's1', day: 5 },
        { session: 's2', day: 1 },
        { session: 's1', day: 9 },
      ]);

      expect(entryOf(belief, 'concise')).toMatchObject({
        support: 3,
        firstSeen: day(1).toISOString(),
        lastSeen: day(9).toISOString(),
        sessions: [
          { session: 's1', lastSeen: day(9).toISOString() },
          { session: 's2', lastSeen: day(1).toISOString() },
        ],
      });
      expect(entryOf(belief, 'concise').recent.map(({ at }) => at)).toEqual([9, 5, 1].map((d) => day(d).toISOString()));
    });

    it('changes nothing when the same event is folded again', () => {
      const once = foldSightings([{ session: 's1', day: 0, event: 'e1' }]);

      const twice = mergeObservation(once, rule(), observation('e1', 's1', 0), DEFAULT_LEARNING);

      expect(twice).toBe(once);
    });

    it('counts one event that drafts two values of a key once for each', () => {
      const belief = foldSightings(
        [
          { value: 'go', session: 's1', day: 0, event: 'e1' },
          { value: 'rust', session: 's1', day: 0, event: 'e1' },
        ],
        { key: 'languages', cardinality: 'multi' },
      );

      expect(belief.values.map(({ value, support }) => [value, support])).toEqual([
        ['go', 1],
        ['rust', 1],
      ]);
    });

    it('counts a refutation apart from support, without making the value seen', () => {
      const belief = foldSightings([{ session: 's1', day: 3, polarity: 'refute' }]);

      const entry = entryOf(belief, 'concise');
      expect(entry).toMatchObject({ support: 0, refuted: 1, lastRefuted: day(3).toISOString(), evidence: [] });
      expect(entry.firstSeen).toBeUndefined();
      expect(entry.refutations).toHaveLength(1);
    });

    it('records declarative statements and retractions as such', () => {
      const belief = foldSightings([
        { session: 's1', day: 1, basis: 'declarative' },
        { session: 's1', day: 2, basis: 'declarative', polarity: 'refute' },
        { session: 's1', day: 3 },
      ]);

      expect(entryOf(belief, 'concise')).toMatchObject({
        declaredAt: day(1).toISOString(),
        retractedAt: day(2).toISOString(),
        lastSeen: day(3).toISOString(),
      });
    });

    it('keeps values in canonical order: booleans, numbers, strings', () => {
      const belief = foldSightings([
        { value: 'b', session: 's1', day: 0 },
        { value: 10, session: 's1', day: 0 },
        { value: 'a', session: 's1', day: 0 },
        { value: 2, session: 's1', day: 0 },
        { value: true, session: 's1', day: 0 },
        { value: '10', session: 's1', day: 0 },
      ]);

      expect(belief.values.map(({ value }) => value)).toEqual([true, 2, 10, '10', 'a', 'b']);
    });

    it('stores instants in one canonical form', () => {
      const belief = mergeObservation(
        undefined,
        rule(),
        { eventId: 'e1', session: 's1', at: '2026-03-01T10:00:00+02:00' },
        DEFAULT_LEARNING,
      );

      expect(entryOf(belief, 'concise').lastSeen).toBe('2026-03-01T08:00:00.000Z');
    });
  });

  describe('Bounds', () => {
    it('keeps the newest observations, evidence and sessions only', () => {
      const sightings = Array.from({ length: 100 }, (_, index) => ({ session: `s${index % 40}`, day: index / 2 }));
      const belief = foldSightings(sightings);

      const entry = entryOf(belief, 'concise');
      expect(entry.support).toBe(100);
      expect(entry.recent).toHaveLength(MAX_RECENT_CONFIRMATIONS);
      expect(entry.recent[0]?.at).toBe(day(49.5).toISOString());
      expect(entry.evidence).toHaveLength(MAX_EVIDENCE_PER_VALUE);
      expect(entry.evidence).toEqual(entry.recent.slice(0, MAX_EVIDENCE_PER_VALUE));
      expect(entry.sessions).toHaveLength(MAX_SESSIONS_PER_VALUE);
      expect(entry.sessions[0]).toEqual({ session: 's19', lastSeen: day(49.5).toISOString() });
    });

    it('drops kept observations older than the horizon before the newest one, keeping the counts', () => {
      const belief = foldSightings([
        { session: 's1', day: 0 },
        { value: 'detailed', session: 's1', day: 10 },
        { session: 's2', day: 200 },
      ]);

      expect(entryOf(belief, 'concise')).toMatchObject({ support: 2, recent: [{ at: day(200).toISOString() }] });
      expect(entryOf(belief, 'concise').evidence).toHaveLength(2);
      expect(entryOf(belief, 'detailed')).toMatchObject({ support: 1, recent: [] });
    });

    it('keeps at most a fixed number of values, evicting the least recently seen value that is not applied', () => {
      const applied = mergeAndEvaluate(
        undefined,
        rule({ value: 'v0', basis: 'declarative' }),
        observation('d0', 's0', 0),
        day(0),
        DEFAULT_LEARNING,
      );
      const belief = foldSightings(
        Array.from({ length: MAX_VALUES_PER_BELIEF + 1 }, (_, index) => ({
          value: `v${index + 1}`,
          session: 's1',
          day: index + 1,
        })),
        {},
        DEFAULT_LEARNING,
        applied,
      );

      expect(belief.values.map(({ value }) => value)).toEqual(['v0', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9']);
    });
  });

  describe('Refusals', () => {
    it('refuses a candidate about another rule, naming the fields only', () => {
      const belief = foldSightings([{ session: 's1', day: 0 }]);

      expect(() =>
        mergeObservation(
          belief,
          rule({ kind: 'pattern', cardinality: 'multi' }),
          observation('e2', 's1', 1),
          DEFAULT_LEARNING,
        ),
      ).toThrow(RuleMismatchError);
      const error = thrownBy(() =>
        mergeObservation(
          belief,
          rule({ key: 'style.length', agent: 'x' }),
          observation('e2', 's1', 1),
          DEFAULT_LEARNING,
        ),
      );
      expect(error).toMatchObject({ code: 'learning.rule_mismatch', fields: ['key', 'agent'] });
      expect((error as Error).message).not.toMatch(/style|concise/);
    });

    it.each([
      ['a key out of shape', rule({ key: 'Style' }), observation('e1', 's1', 0), 'candidate.key'],
      ['a value too long', rule({ value: 'x'.repeat(257) }), observation('e1', 's1', 0), 'candidate.value'],
      ['a number that is not finite', rule({ value: Number.NaN }), observation('e1', 's1', 0), 'candidate.value'],
      ['an unsafe event id', rule(), { ...observation('e1', 's1', 0), eventId: 'a/b' }, 'observation.eventId'],
      ['an unsafe session', rule(), { ...observation('e1', 's1', 0), session: '' }, 'observation.session'],
      ['an instant that is not one', rule(), { ...observation('e1', 's1', 0), at: 'yesterday' }, 'observation.at'],
    ])('refuses %s', (_, candidate, seen, path) => {
      const thrown = thrownBy(() => mergeObservation(undefined, candidate, seen, DEFAULT_LEARNING));
      expect(thrown).toBeInstanceOf(ValidationFailedError);
      expect((thrown as ValidationFailedError).issues.map((issue) => issue.path)).toContain(path);
    });
  });

  it('produces content the stored schema accepts', () => {
    const belief = foldSightings([
      { session: 's1', day: 0, basis: 'declarative' },
      { session: 's2', day: 1, polarity: 'refute' },
      { value: 'detailed', session: 's3', day: 2 },
    ]);

    expect(Belief.safeParse(belief).success).toBe(true);
  });
});
