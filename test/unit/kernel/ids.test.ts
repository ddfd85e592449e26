import { describe, expect, it } from 'vitest';
import { createUlidGenerator, pooledRandomFraction, ULID_PATTERN } from '../../../lambdas/kernel/time/ids.ts';

describe('Function: createUlidGenerator', () => {
  it('hands out well-formed ids in strictly increasing order, never twice, across many pool refills', () => {
    const ids = createUlidGenerator();
    const issued = Array.from({ length: 5000 }, () => ids.next());

    expect(issued.every((id) => ULID_PATTERN.test(id))).toBe(true);
    expect(new Set(issued).size).toBe(issued.length);
    expect([...issued].sort()).toEqual(issued);
  });

  it('draws every letter of the random part about equally often', () => {
    const counts = new Map<string, number>();
    // Separate generators restart the monotonic increment, so each id's random part is freshly drawn.
    for (let index = 0; index < 2000; index++)
      for (const letter of createUlidGenerator().next().slice(10)) counts.set(letter, (counts.get(letter) ?? 0) + 1);

    expect(counts.size).toBe(32);
    // 32,000 letters: 1,000 expected each, standard deviation ≈ 31.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(800);
      expect(count).toBeLessThan(1200);
    }
  });
});

describe('Function: pooledRandomFraction', () => {
  it('returns fractions in [0, 1) in steps of 1/256, refilling its pool as it empties', () => {
    const next = pooledRandomFraction();
    const drawn = Array.from({ length: 10_000 }, next);

    expect(drawn.every((value) => value >= 0 && value < 1 && Number.isInteger(value * 256))).toBe(true);
    expect(new Set(drawn).size).toBeGreaterThan(250);
  });
});
