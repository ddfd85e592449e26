import { beforeAll, describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../../bench/bench-options.ts';
import { buildRetrievalSet, QUERY_CATEGORIES, type RetrievalSet } from '../../../bench/retrieval-quality/dataset.ts';
import type { QualityReport } from '../../../bench/retrieval-quality/metrics.ts';
import { measureRetrievalQuality } from '../../../bench/scenarios/retrieval-quality.ts';
import {
  hybridGainOverKeyword,
  type QualityMeasurement,
  retrievalQualityReport,
} from '../../../bench/scenarios/retrieval-quality-report.ts';
import { RetrievalQualityService } from '../../../bench/scenarios/retrieval-quality-service.ts';
import { SEARCH_STRATEGIES } from '../../../lambdas/capabilities/retrieval/search.schema.ts';

const quick = parseBenchOptions(['--quick', '--stdout']);

/** The labelled part with little background around it: the smallest set the generator makes. */
const SMALL = { seed: 12, memories: 3000 };

const reportWith = (recallAt10: number): QualityReport => {
  const figures = { queries: 2, recall: { 5: recallAt10 / 2, 10: recallAt10 }, ndcg: { 5: 0.4, 10: 0.45 } };
  return {
    overall: figures,
    categories: Object.fromEntries(QUERY_CATEGORIES.map((category) => [category, { ...figures, queries: 1 }])),
  };
};

const measurementWith = (recallAt10: Readonly<Record<string, number>>): QualityMeasurement => ({
  seed: 12,
  memories: 6000,
  queries: 268,
  indexSeconds: 1.5,
  strategies: SEARCH_STRATEGIES.map((strategy) => ({
    strategy,
    report: reportWith(recallAt10[strategy] ?? 0),
    seconds: 0.1,
  })),
});

describe('Class: RetrievalQualityService', () => {
  let set: RetrievalSet;
  let service: RetrievalQualityService;

  beforeAll(async () => {
    set = buildRetrievalSet(SMALL);
    service = await RetrievalQualityService.index(set.memories);
  });

  describe('Method: index', () => {
    it('indexes every memory of the set, notes and beliefs alike', () => {
      // Assess
      expect(service.documents).toBe(set.memories.length);
      expect(set.memories.some((memory) => memory.kind === 'belief')).toBe(true);
    });
  });

  describe('Method: search', () => {
    it('finds the memories that hold an exact identifier by keyword, as /v1/search ranks them', async () => {
      // Prepare
      const query = set.queries.find((candidate) => candidate.category === 'exact-term');
      if (!query) throw new Error('The set has no exact-term query');

      // Act
      const hits = await service.search(query.text, 'keyword', 10);

      // Assess
      const answers = query.relevant.filter((label) => label.grade === 2).map((label) => label.id);
      expect(hits).toEqual(expect.arrayContaining(answers));
    });

    it('searches a belief through its rule kind’s projection (its statement and its key in words)', async () => {
      // Prepare
      const belief = set.memories.find((memory) => memory.kind === 'belief');
      if (!belief) throw new Error('The set has no belief');

      // Act
      const [byStatement] = await service.search(belief.text, 'keyword', 5);
      const byKey = await service.search(
        `${belief.ruleKey?.replace(/[._]/g, ' ')} ${belief.text.split(' ').slice(0, 2).join(' ')}`,
        'hybrid',
        10,
      );

      // Assess
      expect(byStatement).toBe(belief.id);
      expect(byKey).toContain(belief.id);
    });

    it('answers every strategy with at most k memory ids of the set', async () => {
      // Prepare
      const ids = new Set(set.memories.map((memory) => memory.id));
      const query = set.queries[0]?.text ?? '';

      // Act
      const answers = await Promise.all(SEARCH_STRATEGIES.map((strategy) => service.search(query, strategy, 10)));

      // Assess
      for (const hits of answers) {
        expect(hits.length).toBeLessThanOrEqual(10);
        expect(hits.every((id) => ids.has(id))).toBe(true);
      }
      expect(answers[0]).toHaveLength(10);
    });
  });
});

describe('Function: measureRetrievalQuality', () => {
  it('evaluates each strategy asked for over every query, overall and per category', async () => {
    // Act
    const measurement = await measureRetrievalQuality({ ...SMALL, strategies: ['keyword', 'semantic'] });

    // Assess
    expect(measurement.strategies.map((entry) => entry.strategy)).toEqual(['keyword', 'semantic']);
    expect(measurement.queries).toBe(buildRetrievalSet(SMALL).queries.length);
    for (const { report } of measurement.strategies) {
      expect(report.overall.queries).toBe(measurement.queries);
      expect(Object.keys(report.categories)).toEqual(expect.arrayContaining([...QUERY_CATEGORIES]));
      for (const k of [5, 10]) {
        expect(report.overall.recall[k]).toBeGreaterThan(0);
        expect(report.overall.recall[k]).toBeLessThanOrEqual(1);
      }
    }
  }, 60_000);
});

describe('Function: retrievalQualityReport', () => {
  it('passes the hybrid headline at +10 % relative Recall@10 over keyword and fails it below', () => {
    // Prepare
    const enough = measurementWith({ keyword: 0.5, hybrid: 0.55 });
    const short = measurementWith({ keyword: 0.5, hybrid: 0.54 });

    // Act
    const [passed] = retrievalQualityReport(quick, enough).headline;
    const [failed] = retrievalQualityReport(quick, short).headline;

    // Assess
    expect(hybridGainOverKeyword(enough)).toBeCloseTo(0.1, 12);
    expect(passed).toMatchObject({ pass: true, value: '+10.0 % (hybrid 0.550, keyword 0.500)' });
    expect(failed).toMatchObject({ pass: false, value: '+8.0 % (hybrid 0.540, keyword 0.500)' });
  });

  it('writes a negative change with a minus sign and has no verdict without a keyword figure', () => {
    // Prepare
    const worse = measurementWith({ keyword: 0.5, hybrid: 0.45 });
    const noKeyword = measurementWith({ keyword: 0, hybrid: 0.45 });

    // Act
    const [negative] = retrievalQualityReport(quick, worse).headline;
    const [none] = retrievalQualityReport(quick, noKeyword).headline;

    // Assess
    expect(negative?.value).toMatch(/^−10\.0 %/u);
    expect(none?.pass).toBeUndefined();
  });

  it('tables every strategy overall and every category by strategy', () => {
    // Act
    const { sections, methodNotes } = retrievalQualityReport(quick, measurementWith({ keyword: 0.5 }));

    // Assess
    const [overall, byCategory] = sections;
    for (const strategy of SEARCH_STRATEGIES) expect(overall?.body).toMatch(new RegExp(`^\\| ${strategy} `, 'mu'));
    for (const category of QUERY_CATEGORIES)
      expect(byCategory?.body.split('\n').filter((row) => row.startsWith(`| ${category} `))).toHaveLength(
        SEARCH_STRATEGIES.length,
      );
    expect(methodNotes.join(' ')).toMatch(/verification/u);
  });
});
