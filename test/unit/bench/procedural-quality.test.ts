import { describe, expect, it } from 'vitest';
import {
  goalCases,
  planCases,
  promotionCases,
  rankingCases,
  stateCases,
} from '../../../bench/procedural-quality/cases.ts';
import { evaluateProceduralQuality } from '../../../bench/procedural-quality/evaluate.ts';

describe('Bench: the procedural-memory set', () => {
  it('holds both labels of every binary part, and every case once', () => {
    for (const cases of [
      goalCases().map((c) => c.diverged),
      planCases().map((c) => c.diverged),
      promotionCases().map((c) => c.accept),
    ]) {
      expect(cases).toContain(true);
      expect(cases).toContain(false);
    }
    expect(new Set(planCases().map((c) => c.name)).size).toBe(planCases().length);
    expect(new Set(stateCases().map((c) => c.name)).size).toBe(stateCases().length);
    expect(rankingCases().length).toBeGreaterThanOrEqual(20);
  });

  it('scores the domain code on it: state resolution and promotion as labelled, misses named', async () => {
    const quality = await evaluateProceduralQuality();
    expect(quality.stateResolution).toEqual({ cases: stateCases().length, accuracy: 1, misses: [] });
    expect(quality.promotion.misses).toEqual([]);
    expect(quality.goal.cases).toBe(goalCases().length);
    expect(quality.plan.misses.length).toBe(Math.round((1 - quality.plan.accuracy) * quality.plan.cases));
    expect(quality.ranking.adaptive.filtersHeld).toBe(quality.ranking.adaptive.filterCases);
    expect(quality.ranking.adaptive.ndcgAt3).toBeGreaterThan(0.8);
  });
});
