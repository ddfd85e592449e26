import { describe, expect, it } from 'vitest';
import { selectBest } from '../../../lambdas/capabilities/retrieval/ranking/top-k.ts';

interface Scored {
  readonly id: string;
  readonly score: number;
}

const ranksBefore = (a: Scored, b: Scored) => a.score > b.score || (a.score === b.score && a.id < b.id);

const scored = (entries: readonly [string, number][]): Scored[] => entries.map(([id, score]) => ({ id, score }));

describe('Function: selectBest', () => {
  it('returns the best `limit` in order, equal scores by id', () => {
    // Prepare
    const candidates = scored([
      ['e', 1],
      ['b', 5],
      ['d', 3],
      ['a', 3],
      ['c', 9],
      ['f', 5],
    ]);

    // Act
    const best = selectBest(candidates, 4, ranksBefore);

    // Assess
    expect(best.map((entry) => entry.id)).toEqual(['c', 'b', 'f', 'a']);
  });

  it('returns everything sorted when the limit is at least the number of candidates, and nothing for limit 0', () => {
    // Prepare
    const candidates = scored([
      ['x', 2],
      ['y', 7],
      ['z', 2],
    ]);

    // Act and assess
    expect(selectBest(candidates, 10, ranksBefore).map((entry) => entry.id)).toEqual(['y', 'x', 'z']);
    expect(selectBest(candidates, 0, ranksBefore)).toEqual([]);
    expect(selectBest([], 3, ranksBefore)).toEqual([]);
  });

  it('agrees with a full sort on many candidates', () => {
    // Prepare: a fixed pseudo-random sequence with many ties
    let seed = 7;
    const candidates = Array.from({ length: 500 }, (_, number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return { id: `d${number}`, score: seed % 37 };
    });
    const sorted = [...candidates].sort((a, b) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0));

    // Act and assess
    for (const limit of [1, 2, 10, 99, 500, 600])
      expect(selectBest(candidates, limit, ranksBefore)).toEqual(sorted.slice(0, limit));
  });
});
