import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Belief,
  type CandidateRule,
  MAX_EVIDENCE_PER_VALUE,
  MAX_RECENT_CONFIRMATIONS,
  MAX_RECENT_REFUTATIONS,
  MAX_SESSIONS_PER_VALUE,
  MAX_VALUES_PER_BELIEF,
  type RuleObservation,
} from '../../lambdas/capabilities/learning/belief.schema.ts';
import { appliedValuesOf, evaluateBelief } from '../../lambdas/capabilities/learning/maturation-gate.ts';
import { mergeAndEvaluate, mergeObservation } from '../../lambdas/capabilities/learning/merge-rule.ts';
import { DEFAULT_LEARNING, day } from '../unit/learning/learning-fixtures.ts';

interface Step {
  readonly candidate: CandidateRule;
  readonly observation: RuleObservation;
}

interface Shape {
  readonly values: number;
  readonly sessions: number;
  readonly firstDay: number;
  readonly lastDay: number;
  readonly refuteEvery?: number;
}

/** Observations of one key with distinct event ids, in the order they were generated. */
const history = (
  cardinality: CandidateRule['cardinality'],
  shape: Shape,
  length: { minLength?: number; maxLength: number },
) =>
  fc
    .array(
      fc.record({
        value: fc.nat({ max: shape.values - 1 }),
        session: fc.nat({ max: shape.sessions - 1 }),
        hour: fc.integer({ min: shape.firstDay * 24, max: shape.lastDay * 24 }),
        declarative: fc.nat({ max: 9 }).map((roll) => roll === 0),
        refute: fc.nat({ max: (shape.refuteEvery ?? 5) - 1 }).map((roll) => roll === 0),
      }),
      length,
    )
    .map((drafts) =>
      drafts.map(
        (draft, index): Step => ({
          candidate: {
            key: 'style.tone',
            value: `v${draft.value}`,
            kind: 'preference',
            basis: draft.declarative ? 'declarative' : 'behavioral',
            cardinality,
            polarity: draft.refute ? 'refute' : 'confirm',
          },
          observation: { eventId: `e${index}`, session: `s${draft.session}`, at: day(draft.hour / 24).toISOString() },
        }),
      ),
    );

const fold = (steps: readonly Step[], start?: Belief): Belief | undefined =>
  steps.reduce<Belief | undefined>(
    (belief, { candidate, observation }) => mergeObservation(belief, candidate, observation, DEFAULT_LEARNING),
    start,
  );

const foldEvaluating = (steps: readonly Step[]): Belief | undefined =>
  steps.reduce<Belief | undefined>(
    (belief, { candidate, observation }) =>
      mergeAndEvaluate(belief, candidate, observation, new Date(observation.at), DEFAULT_LEARNING),
    undefined,
  );

const cardinality = fc.constantFrom<CandidateRule['cardinality']>('single', 'multi');

/** A history with one of its permutations. */
const permuted = (steps: fc.Arbitrary<Step[]>) =>
  steps.chain((list) =>
    fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length })),
  );

/** What must not depend on arrival order: everything but when statuses changed and the supersession log. */
const essence = (belief: Belief | undefined) => {
  if (belief === undefined) return undefined;
  const { statusChangedAt: _changed, superseded: _superseded, ...rest } = belief;
  return rest;
};

const NOW = day(400);

describe('Property: merging observations into beliefs', () => {
  it('counts support, sessions and status the same whatever the arrival order', () => {
    fc.assert(
      fc.property(
        cardinality.chain((kind) =>
          permuted(history(kind, { values: 4, sessions: 40, firstDay: 0, lastDay: 400 }, { maxLength: 100 })),
        ),
        ([original, shuffled]) => {
          const inOrder = fold(original);
          const reordered = fold(shuffled);
          expect(essence(reordered)).toEqual(essence(inOrder));
          if (inOrder === undefined || reordered === undefined) return;
          expect(essence(evaluateBelief(reordered, NOW, DEFAULT_LEARNING))).toEqual(
            essence(evaluateBelief(inOrder, NOW, DEFAULT_LEARNING)),
          );
          // evaluating after every merge, as the append path does, ends in the same place too
          expect(essence(evaluateBelief(foldEvaluating(shuffled) as Belief, NOW, DEFAULT_LEARNING))).toEqual(
            essence(evaluateBelief(inOrder, NOW, DEFAULT_LEARNING)),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never turns an applied value provisional by adding a confirmation of it (same now)', () => {
    const extra = fc.record({
      session: fc.nat({ max: 7 }),
      hour: fc.integer({ min: 300 * 24, max: 400 * 24 }),
      declarative: fc.boolean(),
    });
    fc.assert(
      fc.property(
        cardinality.chain((kind) =>
          history(kind, { values: 3, sessions: 6, firstDay: 300, lastDay: 400, refuteEvery: 4 }, { maxLength: 40 }),
        ),
        extra,
        (steps, addition) => {
          const before = fold(steps);
          fc.pre(before !== undefined);
          const evaluated = evaluateBelief(before as Belief, NOW, DEFAULT_LEARNING);
          for (const value of appliedValuesOf(evaluated)) {
            const confirmed = mergeObservation(
              evaluated,
              {
                ...(steps[0] as Step).candidate,
                value,
                polarity: 'confirm',
                basis: addition.declarative ? 'declarative' : 'behavioral',
              },
              { eventId: 'extra', session: `s${addition.session}`, at: day(addition.hour / 24).toISOString() },
              DEFAULT_LEARNING,
            );
            const after = evaluateBelief(confirmed, NOW, DEFAULT_LEARNING);
            expect(appliedValuesOf(after)).toContain(value);
            expect(after.status).toBe('mature');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('counts 50 observations exactly', () => {
    fc.assert(
      fc.property(
        cardinality.chain((kind) =>
          history(kind, { values: 3, sessions: 10, firstDay: 0, lastDay: 400 }, { minLength: 50, maxLength: 50 }),
        ),
        (steps) => {
          const belief = fold(steps) as Belief;
          const confirmations = steps.filter(({ candidate }) => candidate.polarity === 'confirm').length;
          expect(belief.values.reduce((sum, { support }) => sum + support, 0)).toBe(confirmations);
          expect(belief.values.reduce((sum, { refuted }) => sum + refuted, 0)).toBe(50 - confirmations);
        },
      ),
      { numRuns: 40 },
    );
    const single = Array.from({ length: 50 }, (_, index) => ({
      candidate: {
        key: 'style.tone',
        value: 'concise',
        kind: 'preference',
        basis: 'behavioral',
        cardinality: 'single',
        polarity: 'confirm',
      } satisfies CandidateRule,
      observation: { eventId: `e${index}`, session: `s${index % 7}`, at: day(index).toISOString() },
    }));
    expect(fold(single)?.values[0]?.support).toBe(50);
  });

  it('changes nothing when events are replayed', () => {
    fc.assert(
      fc.property(
        cardinality.chain((kind) =>
          history(kind, { values: 3, sessions: 6, firstDay: 0, lastDay: 150 }, { minLength: 1, maxLength: 40 }),
        ),
        fc.array(fc.record({ after: fc.nat(), replay: fc.nat() }), { maxLength: 20 }),
        (steps, replays) => {
          // a value keeps its 16 newest refutations; a replay of one older than those is not recognised
          const refutationsPerValue = new Map<string, number>();
          for (const { candidate } of steps)
            if (candidate.polarity === 'refute')
              refutationsPerValue.set(
                String(candidate.value),
                (refutationsPerValue.get(String(candidate.value)) ?? 0) + 1,
              );
          fc.pre([...refutationsPerValue.values()].every((count) => count <= MAX_RECENT_REFUTATIONS));

          const withReplays: Step[] = [];
          steps.forEach((step, index) => {
            withReplays.push(step);
            for (const { after, replay } of replays)
              if (after % steps.length === index) withReplays.push(steps[replay % (index + 1)] as Step);
          });
          expect(fold(withReplays)).toEqual(fold(steps));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('evaluates to a fixed point: evaluating again at the same instant changes nothing', () => {
    fc.assert(
      fc.property(
        cardinality.chain((kind) =>
          history(kind, { values: 3, sessions: 5, firstDay: 0, lastDay: 200 }, { minLength: 1, maxLength: 40 }),
        ),
        fc.integer({ min: 0, max: 400 }),
        (steps, days) => {
          const once = evaluateBelief(foldEvaluating(steps) as Belief, day(days), DEFAULT_LEARNING);
          expect(evaluateBelief(once, day(days), DEFAULT_LEARNING)).toEqual(once);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a belief bounded after 1,000 observations', () => {
    const longId = (prefix: string, index: number) => `${prefix}${String(index).padStart(63, '0')}`;
    fc.assert(
      fc.property(
        cardinality.chain((kind) =>
          history(
            kind,
            { values: 20, sessions: 200, firstDay: 0, lastDay: 400, refuteEvery: 3 },
            {
              minLength: 1000,
              maxLength: 1000,
            },
          ),
        ),
        (steps) => {
          const worstCaseIds = steps.map(({ candidate, observation }, index) => ({
            candidate,
            observation: {
              ...observation,
              eventId: longId('e', index),
              session: longId('s', Number(observation.session.slice(1))),
            },
          }));
          const belief = evaluateBelief(fold(worstCaseIds) as Belief, NOW, DEFAULT_LEARNING);

          expect(Belief.safeParse(belief).success).toBe(true);
          expect(belief.values.length).toBeLessThanOrEqual(MAX_VALUES_PER_BELIEF);
          for (const entry of belief.values) {
            expect(entry.recent.length).toBeLessThanOrEqual(MAX_RECENT_CONFIRMATIONS);
            expect(entry.refutations.length).toBeLessThanOrEqual(MAX_RECENT_REFUTATIONS);
            expect(entry.sessions.length).toBeLessThanOrEqual(MAX_SESSIONS_PER_VALUE);
            expect(entry.evidence.length).toBeLessThanOrEqual(MAX_EVIDENCE_PER_VALUE);
          }
          expect(JSON.stringify(belief).length).toBeLessThan(128 * 1024);
        },
      ),
      { numRuns: 4 },
    );
  });
});
