/** The retrieval-quality scenario's figures as report sections, headline figures and method notes. */
import type { SearchStrategy } from '../../lambdas/capabilities/retrieval/search.schema.ts';
import type { BenchOptions } from '../bench-options.ts';
import { fixed, table } from '../report/markdown.ts';
import { QUERY_CATEGORIES } from '../retrieval-quality/dataset.ts';
import type { QualityFigures, QualityReport } from '../retrieval-quality/metrics.ts';
import type { HeadlineFigure, ReportSection, ScenarioResult } from '../scenario.ts';

/** One measurement of the set: each strategy's figures, as the report renders them. */
export interface QualityMeasurement {
  readonly seed: number;
  readonly memories: number;
  readonly queries: number;
  readonly indexSeconds: number;
  /** By strategy, in `SEARCH_STRATEGIES` order. */
  readonly strategies: readonly {
    readonly strategy: SearchStrategy;
    readonly report: QualityReport;
    readonly seconds: number;
  }[];
}

/** The acceptance criterion: hybrid beats keyword alone by at least 10 % relative Recall@10. */
export const HYBRID_GAIN_TARGET = 0.1;

const METRIC_HEADERS = ['Recall@5', 'Recall@10', 'nDCG@5', 'nDCG@10'];

const metricCells = (figures: QualityFigures | undefined): string[] => [
  fixed(figures?.recall[5], 3),
  fixed(figures?.recall[10], 3),
  fixed(figures?.ndcg[5], 3),
  fixed(figures?.ndcg[10], 3),
];

const reportOf = (measurement: QualityMeasurement, strategy: SearchStrategy): QualityReport | undefined =>
  measurement.strategies.find((entry) => entry.strategy === strategy)?.report;

/** Hybrid's Recall@10 relative to keyword's: (hybrid − keyword) / keyword; undefined without both. */
export const hybridGainOverKeyword = (measurement: QualityMeasurement): number | undefined => {
  const keyword = reportOf(measurement, 'keyword')?.overall.recall[10];
  const hybrid = reportOf(measurement, 'hybrid')?.overall.recall[10];
  if (keyword === undefined || hybrid === undefined || keyword === 0) return undefined;
  return (hybrid - keyword) / keyword;
};

const signedPercent = (value: number | undefined): string =>
  value === undefined ? '—' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)} %`;

const overallSection = (measurement: QualityMeasurement): ReportSection => {
  const rows = measurement.strategies.map(({ strategy, report }) => [strategy, ...metricCells(report.overall)]);
  return {
    title: 'Retrieval quality on the labelled set',
    body: [
      `The project's labelled set (\`bench/retrieval-quality/\`, seed ${measurement.seed}): ${measurement.memories.toLocaleString('en')} ` +
        `memories (notes, conversation turns and beliefs), ${measurement.queries} queries with graded labels. Every memory ` +
        'is indexed as its kind\u2019s record by the embedded index (feature-hashing embedder) and every query is searched ' +
        'by the search service as `/v1/search` runs it, `k` = 10, with no filters; Recall counts the answering ' +
        '(grade 2) memories in the top k, nDCG both grades (see the set\u2019s README).',
      '',
      table(['Strategy', ...METRIC_HEADERS], rows),
    ].join('\n'),
  };
};

const categorySection = (measurement: QualityMeasurement): ReportSection => {
  const rows = QUERY_CATEGORIES.flatMap((category) =>
    measurement.strategies.map(({ strategy, report }) => [
      category,
      strategy,
      String(report.categories[category]?.queries ?? 0),
      ...metricCells(report.categories[category]),
    ]),
  );
  return {
    title: 'Retrieval quality by query category',
    body: table(['Category', 'Strategy', 'Queries', ...METRIC_HEADERS], rows, ['left', 'left']),
  };
};

const methodNotes = (options: BenchOptions, measurement: QualityMeasurement): string[] => [
  `Retrieval quality: the labelled set is generated in process (seed ${measurement.seed}, ${measurement.memories.toLocaleString('en')} memories, ` +
    `built and indexed in ${measurement.indexSeconds.toFixed(1)} s)` +
    (options.quick ? '; the quick run measures the whole set too, so its figures are those of the full run.' : '.'),
  'Retrieval quality: each memory is revision 1 of a record of its kind in one caller\u2019s namespaces (notes in the note ' +
    'namespace; each belief, with its statement as its one mature value, in its rule kind\u2019s namespace), its search ' +
    'document built by the kind\u2019s projection (`indexChangesOf`) and each namespace\u2019s embedded index rebuilt from ' +
    'those documents, as the reconciler does. Queries run through `SearchService.search`: the same legs, leg depths, ' +
    '`rankCandidates`, `rankVerified` and graph walk as `/v1/search`, without HTTP, storage or encryption. Canonical ' +
    'verification runs against the same heads and never drops anything, since every memory is current; the set ' +
    'holds one revision of each record, so it measures ranking, not staleness.',
  'Retrieval quality: the set pools many principals in one caller\u2019s space (beliefs name their principal in the text) ' +
    'and conversational questions search every memory, not only their own conversation. A real principal holds one ' +
    'belief per rule key; the set holds many, as one caller\u2019s records.',
];

export const retrievalQualityReport = (options: BenchOptions, measurement: QualityMeasurement): ScenarioResult => {
  const gain = hybridGainOverKeyword(measurement);
  const keyword = reportOf(measurement, 'keyword')?.overall.recall[10];
  const hybrid = reportOf(measurement, 'hybrid')?.overall.recall[10];
  const pass = gain === undefined ? undefined : gain >= HYBRID_GAIN_TARGET;
  const headline: HeadlineFigure[] = [
    {
      label: `Hybrid vs keyword, relative Recall@10 on the labelled set (≥ +${HYBRID_GAIN_TARGET * 100} %)`,
      value: `${signedPercent(gain)} (hybrid ${fixed(hybrid, 3)}, keyword ${fixed(keyword, 3)})`,
      ...(pass !== undefined && { pass }),
    },
  ];
  for (const { strategy, report } of measurement.strategies)
    headline.push({
      label: `Retrieval quality, ${strategy}: Recall@10 / nDCG@10`,
      value: `${fixed(report.overall.recall[10], 3)} / ${fixed(report.overall.ndcg[10], 3)}`,
    });
  return {
    sections: [overallSection(measurement), categorySection(measurement)],
    headline,
    raw: {
      seed: measurement.seed,
      memories: measurement.memories,
      queries: measurement.queries,
      indexSeconds: measurement.indexSeconds,
      hybridGainOverKeyword: gain,
      strategies: Object.fromEntries(
        measurement.strategies.map(({ strategy, report, seconds }) => [strategy, { ...report, seconds }]),
      ),
    },
    methodNotes: methodNotes(options, measurement),
  };
};
