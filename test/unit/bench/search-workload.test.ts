import { describe, expect, it } from 'vitest';
import {
  frequentTags,
  growthSegments,
  hitIdsOf,
  interleave,
  parseProcStatus,
  planSearches,
  SEARCH_STRATEGIES,
  uniqueTerm,
} from '../../../bench/load/search-workload.ts';
import { worstStrategyP95 } from '../../../bench/scenarios/search-report.ts';
import { seededRandom } from '../../../bench/stats.ts';
import { analyze } from '../../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';

const PLAN = {
  queries: ['Where does Opal keep its data?', 'Who leads the platform team?', 'When is the Falcon launch?'],
  tags: ['architecture', 'project:opal'],
  since: '2026-01-01T00:00:00.000Z',
  filteredShare: 0.2,
  k: 10,
  seed: 5,
};

describe('Function: growthSegments', () => {
  it('writes each size’s notes on top of the previous size', () => {
    // Act
    const segments = growthSegments([1_000, 10_000, 100_000]);

    // Assess
    expect(segments).toEqual([
      { size: 1_000, adds: 1_000, from: 0 },
      { size: 10_000, adds: 9_000, from: 1_000 },
      { size: 100_000, adds: 90_000, from: 10_000 },
    ]);
  });

  it('refuses sizes that do not ascend', () => {
    // Act / Assess
    expect(() => growthSegments([10_000, 1_000])).toThrow(RangeError);
  });
});

describe('Function: planSearches', () => {
  it('draws the same searches from the same seed, of the strategy asked for', () => {
    // Act
    const first = planSearches('hybrid', 200, PLAN);
    const second = planSearches('hybrid', 200, PLAN);

    // Assess
    expect(first).toEqual(second);
    expect(first.every((body) => body.strategy === 'hybrid' && body.k === 10)).toBe(true);
    expect(first.every((body) => PLAN.queries.includes(body.query))).toBe(true);
  });

  it('filters about the share asked for, half by tag and half by since', () => {
    // Act
    const bodies = planSearches('keyword', 2_000, PLAN);

    // Assess
    const tagged = bodies.filter((body) => body.filters?.tags !== undefined);
    const since = bodies.filter((body) => body.filters?.since === PLAN.since);
    expect(tagged.length / bodies.length).toBeCloseTo(0.1, 1);
    expect(since.length / bodies.length).toBeCloseTo(0.1, 1);
    expect(tagged.every((body) => body.filters?.tags?.every((tag) => PLAN.tags.includes(tag)))).toBe(true);
  });

  it('refuses to plan without queries', () => {
    // Act / Assess
    expect(() => planSearches('recency', 1, { ...PLAN, queries: [] })).toThrow(RangeError);
  });
});

describe('Function: interleave', () => {
  it('takes one of each list in turn, the longer lists’ rest at the end', () => {
    // Act / Assess
    expect(interleave<number | string>([[1, 2, 3], ['a'], [10, 20]])).toEqual([1, 'a', 10, 2, 20, 3]);
  });

  it('spreads a mixed stream of searches evenly over the strategies', () => {
    // Prepare
    const plans = SEARCH_STRATEGIES.map((strategy) => planSearches(strategy, 4, PLAN));

    // Act
    const stream = interleave(plans);

    // Assess
    expect(stream.slice(0, 5).map((body) => body.strategy)).toEqual([...SEARCH_STRATEGIES]);
  });
});

describe('Function: frequentTags', () => {
  it('orders tags by how many notes carry them, ties by name', () => {
    // Prepare
    const notes = [
      { text: 'a', tags: ['ops', 'plan'] },
      { text: 'b', tags: ['plan'] },
      { text: 'c', tags: ['risk', 'ops'] },
      { text: 'd', tags: ['plan', 'alpha'] },
    ];

    // Act / Assess
    expect(frequentTags(notes, 3)).toEqual(['plan', 'ops', 'alpha']);
  });
});

describe('Function: uniqueTerm', () => {
  it('survives analysis as one token of its own, so a keyword search finds exactly it', () => {
    // Prepare
    const random = seededRandom(3);

    // Act
    const terms = Array.from({ length: 50 }, () => uniqueTerm(random));

    // Assess
    expect(new Set(terms).size).toBe(terms.length);
    for (const term of terms) expect(analyze(`the code word is ${term}.`)).toContain(analyze(term)[0]);
    for (const term of terms) expect(analyze(term)).toHaveLength(1);
  });
});

describe('Function: hitIdsOf', () => {
  it('lists the hits of a search response, best first', () => {
    // Prepare
    const body = JSON.stringify({ hits: [{ id: 'b' }, { id: 'a' }], strategy: 'keyword', limitations: [] });

    // Act / Assess
    expect(hitIdsOf({ status: 200, headers: {}, body })).toEqual(['b', 'a']);
  });

  it('lists nothing for an error or an unreadable body', () => {
    // Act / Assess
    expect(hitIdsOf({ status: 422, headers: {}, body: '{"hits":[{"id":"a"}]}' })).toEqual([]);
    expect(hitIdsOf({ status: 200, headers: {}, body: 'not json' })).toEqual([]);
  });
});

describe('Function: parseProcStatus', () => {
  it('reads the resident set and its peak in bytes', () => {
    // Prepare
    const status = 'Name:\tnode\nVmPeak:\t 9000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t12\n';

    // Act / Assess
    expect(parseProcStatus(status)).toEqual({ rssBytes: 100 * 2 ** 20, peakRssBytes: 200 * 2 ** 20 });
  });

  it('gives nothing when a field is missing', () => {
    // Act / Assess
    expect(parseProcStatus('Name:\tnode\nVmRSS:\t 1 kB\n')).toBeUndefined();
  });
});

describe('Function: worstStrategyP95', () => {
  it('names the strategy with the highest p95', () => {
    // Prepare
    const byStrategy = Object.fromEntries(
      SEARCH_STRATEGIES.map((strategy, index) => [
        strategy,
        { latencies: [index, index + 1, strategy === 'graph' ? 99 : 2] },
      ]),
    ) as unknown as Parameters<typeof worstStrategyP95>[0];

    // Act / Assess
    expect(worstStrategyP95(byStrategy)).toEqual({ strategy: 'graph', p95: 99 });
  });
});
