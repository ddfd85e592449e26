/** The search-load scenario's figures as report sections and headline figures, with its budgets. */
import { SEARCH_INDEX_CONSUMER } from '../../lambdas/capabilities/retrieval/search-index.consumer.ts';
import type { BenchOptions } from '../bench-options.ts';
import {
  DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS,
  DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS,
} from '../cost-model.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import { NOTE_OPERATIONS } from '../load/notes-workload.ts';
import type { LatencyBudget, PhaseAnalysis, Verdict } from '../load/phase-analysis.ts';
import {
  type ProcessMemory,
  SEARCH_OPERATION,
  SEARCH_STRATEGIES,
  type SearchMixOperation,
  type SearchStrategy,
} from '../load/search-workload.ts';
import { type CostFigures, costSection } from '../report/cost-tables.ts';
import { dollars, fixed, ms, passFail, percent, table } from '../report/markdown.ts';
import type { HeadlineFigure, ReportSection, ScenarioResult } from '../scenario.ts';
import { median, percentile, summarize } from '../stats.ts';
import { budgetOf, MINIMUM_ACHIEVED_SHARE } from './notes-budget.ts';

/** Issue 12: search p95 ≤ 40 ms at 10k records and under the 120/s mixed workload, ≤ 100 ms at 100k. */
export const SEARCH_P95_BUDGET_MS: Readonly<Record<number, number>> = { 10000: 40, 100000: 100 };
export const MIXED_SEARCH_P95_BUDGET_MS = 40;
/** Share of the mixed workload's arrivals that are searches. */
export const MIXED_SEARCH_SHARE = 0.1;

export const SEARCH_BUDGET: { mixed: LatencyBudget } = {
  mixed: {
    p95ByOperation: {
      ...Object.fromEntries(NOTE_OPERATIONS.map((operation) => [operation, budgetOf(operation)])),
      [SEARCH_OPERATION]: MIXED_SEARCH_P95_BUDGET_MS,
    },
    minimumAchievedShare: MINIMUM_ACHIEVED_SHARE,
  },
};

export interface SearchLoadPlan {
  /** The namespace's sizes, ascending: it grows from one to the next. */
  sizes: readonly number[];
  searchesPerStrategy: number;
  warmupPerStrategy: number;
  lagSamples: number;
  lagIntervalMs: number;
  /** The size at which the mixed workload runs, and the one the lag is sampled at. */
  mixedSize: number;
  lagSize: number;
  seedConcurrency: number;
  k: number;
  filteredShare: number;
  /** After the mixed phases, searches of each strategy one at a time (the Lambda duration the cost model reads). */
  serviceTimePerStrategy: number;
  /** Longest a size may take to write; a size not reached by then is measured where it got to, and growth stops. */
  seedMinutesPerSize: number;
}

export interface StrategyLatencies {
  latencies: number[];
  errors: number;
  meanHits: number;
}

export interface ColdSearch {
  /** Server start (engine journal replayed, modules built) until it listened, s. */
  restartSeconds: number;
  firstStrategy: SearchStrategy;
  /** Client-side latency of the first search of each strategy after the restart, in the order searched. */
  firstByStrategy: Record<SearchStrategy, number>;
  errors: number;
  memoryBefore: ProcessMemory | undefined;
  memoryAfter: ProcessMemory | undefined;
}

export interface SegmentCost {
  creates: number;
  adds: number;
  /** Per create, what the relay and the consumers (head projection, audit, search index) did after the answer. */
  causedWriteUnits: number;
  causedFailedConditionUnits: number;
  causedIndexWriteUnits: number;
  causedReadUnits: number;
  causedRequests: number;
  eventMillisecondsP50: number;
  eventMillisecondsTotal: number;
}

export interface GrowthPoint {
  /** Notes in the namespace when measured. */
  size: number;
  /** The size this step aimed at (the budget's). */
  target: number;
  seedSeconds: number;
  catchUpSeconds: number;
  failures: number;
  byStrategy: Record<SearchStrategy, StrategyLatencies>;
  /** The server after the searches at this size (warm): what it holds. */
  memory: ProcessMemory | undefined;
  cold: ColdSearch;
  /** The creates of this segment, from the cost report of the server life that wrote them. */
  cost: SegmentCost;
}

export interface LagFigures {
  lags: number[];
  timeouts: number;
  intervalMs: number;
  polls: number;
}

export interface MixedRun {
  analysis: PhaseAnalysis;
  verdict: Verdict;
  serverCpuShare: number | undefined;
  /** Of it, the main thread's (every request, handler, consumer and search runs there). */
  mainThreadCpuShare: number | undefined;
  searchLatencyByStrategy: Record<SearchStrategy, number[]>;
  lag: LagFigures;
  /** Notes per list page answered in the run (the list's cost grows with it). */
  listedPerPage: number;
}

export interface SearchLoadFigures {
  points: readonly GrowthPoint[];
  lag: LagFigures | undefined;
  mixed: readonly MixedRun[];
  costs: { run: FixedRateRun<SearchMixOperation>; figures: CostFigures } | undefined;
  /** Events each consumer gave up on over the whole scenario (from the engine's journal). */
  deadLetters: Readonly<Record<string, number>>;
  /** Where and why the growth stopped short of the last size, if it did. */
  stopped: { size: number; reason: string } | undefined;
}

const mib = (bytes: number | undefined): string => (bytes === undefined ? '—' : `${(bytes / 2 ** 20).toFixed(0)} MiB`);
const sizeLabel = (size: number): string => (size >= 1000 ? `${size / 1000}k` : String(size));

/** The worst strategy's p95 at a size, and which strategy it was. */
export const worstStrategyP95 = (
  byStrategy: Readonly<Record<SearchStrategy, { latencies: readonly number[] }>>,
): { strategy: SearchStrategy; p95: number } =>
  SEARCH_STRATEGIES.map((strategy) => ({ strategy, p95: percentile(byStrategy[strategy].latencies, 95) })).reduce(
    (worst, each) => (Number.isNaN(worst.p95) || each.p95 > worst.p95 ? each : worst),
  );

const growthSection = (plan: SearchLoadPlan, points: readonly GrowthPoint[]): ReportSection => ({
  title: 'Search: growth curve (one namespace)',
  body: [
    `One principal's namespace filled with the retrieval-quality set's memories as notes, through \`POST /v1/notes\` ` +
      `(${plan.seedConcurrency} at a time), to ${points.map((point) => sizeLabel(point.size)).join(', then ')} notes; at each size, once ` +
      `the index had caught up, ${plan.searchesPerStrategy} searches of each strategy one at a time (after ${plan.warmupPerStrategy} ` +
      `unmeasured ones), k = ${plan.k}, queries drawn from the set's labelled questions, ${percent(plan.filteredShare)} of them with a ` +
      'tag or `since` filter. Latency is client-side, request to last byte, with nothing else running.',
    '',
    table(
      [
        'Notes',
        'Strategy',
        'Searches',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'Max ms',
        'Errors',
        'Hits / search',
        'p95 budget',
      ],
      points.flatMap((point) =>
        SEARCH_STRATEGIES.map((strategy) => {
          const figures = point.byStrategy[strategy];
          const summary = summarize(figures.latencies);
          const budget = SEARCH_P95_BUDGET_MS[point.target];
          return [
            sizeLabel(point.size),
            strategy,
            summary.count,
            ms(summary.p50),
            ms(summary.p95),
            ms(summary.p99),
            ms(summary.max),
            figures.errors,
            fixed(figures.meanHits, 1),
            budget === undefined ? '—' : `≤ ${budget} ms ${passFail(summary.p95 <= budget)}`,
          ];
        }),
      ),
    ),
    '',
    'Seeding, catching up and the memory the server holds (resident set of the server process, read from /proc after the ' +
      "searches at that size: the engine's data, the index of the namespace held warm, the caches):",
    '',
    table(
      ['Notes', 'Seed s', 'Creates / s', 'Catch-up s', 'RSS warm', 'Peak RSS', 'Failed creates'],
      points.map((point, index) => {
        const adds = point.size - (points[index - 1]?.size ?? 0);
        return [
          sizeLabel(point.size),
          fixed(point.seedSeconds, 0),
          fixed(adds / point.seedSeconds, 0),
          fixed(point.catchUpSeconds, 0),
          mib(point.memory?.rssBytes),
          mib(point.memory?.peakRssBytes),
          point.failures,
        ];
      }),
    ),
  ].join('\n'),
});

const coldSection = (points: readonly GrowthPoint[]): ReportSection => ({
  title: 'Search: first search after a restart',
  body: [
    'After the seed of each size the server is stopped and started again on the same data: the first search ' +
      '(hybrid) finds no index in memory and loads the namespace’s newest snapshot and the log after it (decrypted) ' +
      "before it ranks; the first search of each other strategy follows, on the loaded index, then the growth curve's warm searches in the same server life. One sample each per size.",
    '',
    table(
      [
        'Notes',
        'Restart s',
        'First search ms (hybrid)',
        ...SEARCH_STRATEGIES.filter((s) => s !== 'hybrid').map((s) => `then ${s} ms`),
        'RSS before',
        'RSS after',
      ],
      points.map((point) => [
        sizeLabel(point.size),
        fixed(point.cold.restartSeconds, 1),
        ms(point.cold.firstByStrategy.hybrid),
        ...SEARCH_STRATEGIES.filter((s) => s !== 'hybrid').map((s) => ms(point.cold.firstByStrategy[s])),
        mib(point.cold.memoryBefore?.rssBytes),
        mib(point.cold.memoryAfter?.rssBytes),
      ]),
    ),
  ].join('\n'),
});

const lagRow = (label: string, lag: LagFigures): (string | number)[] => {
  const summary = summarize(lag.lags);
  return [
    label,
    summary.count,
    ms(summary.p50),
    ms(summary.p95),
    ms(summary.p99),
    ms(summary.max),
    lag.timeouts,
    lag.intervalMs,
  ];
};

const lagSection = (plan: SearchLoadPlan, lag: LagFigures | undefined, mixed: readonly MixedRun[]): ReportSection => ({
  title: 'Search: index lag, commit → searchable',
  body: [
    'A note holding a unique word is created, then searched for by keyword every poll interval until it is listed; the lag ' +
      'runs from the create’s 201 (the commit is just before it) to the answer of the first search that listed it, so it ' +
      'resolves to about one poll and leaves out the create itself. It covers the relay, the bus, the search-index consumer ' +
      '(head read, log append) and the search’s revalidation of its warm index.',
    '',
    table(
      ['Where', 'Samples', 'p50 ms', 'p95 ms', 'p99 ms', 'Max ms', 'Timeouts (30 s)', 'Poll ms'],
      [
        ...(lag ? [lagRow(`${sizeLabel(plan.lagSize)} notes, nothing else running`, lag)] : []),
        ...mixed.map((run, index) =>
          lagRow(`${sizeLabel(plan.mixedSize)} notes, inside mixed run ${index + 1}`, run.lag),
        ),
      ],
    ),
  ].join('\n'),
});

const mixedSection = (options: BenchOptions, plan: SearchLoadPlan, mixed: readonly MixedRun[]): ReportSection => {
  const { mix } = options.workload;
  const rows = mixed.flatMap((run, index) => {
    const search = run.analysis.byOperation[SEARCH_OPERATION];
    return [
      [
        `${index + 1}`,
        'search (all strategies)',
        search?.count ?? 0,
        ms(search?.p50),
        ms(search?.p95),
        ms(search?.p99),
        search?.errors ?? 0,
        `≤ ${MIXED_SEARCH_P95_BUDGET_MS} ms ${passFail((search?.p95 ?? Number.NaN) <= MIXED_SEARCH_P95_BUDGET_MS)}`,
      ],
      ...SEARCH_STRATEGIES.map((strategy) => {
        const summary = summarize(run.searchLatencyByStrategy[strategy]);
        return [
          `${index + 1}`,
          `  search: ${strategy}`,
          summary.count,
          ms(summary.p50),
          ms(summary.p95),
          ms(summary.p99),
          '',
          '',
        ];
      }),
      ...NOTE_OPERATIONS.map((operation) => {
        const figures = run.analysis.byOperation[operation];
        return [
          `${index + 1}`,
          operation,
          figures?.count ?? 0,
          ms(figures?.p50),
          ms(figures?.p95),
          ms(figures?.p99),
          figures?.errors ?? 0,
          `≤ ${budgetOf(operation)} ms ${passFail((figures?.p95 ?? Number.NaN) <= budgetOf(operation))}`,
        ];
      }),
    ];
  });
  return {
    title: `Search inside the ${options.load.ratePerSecond}/s notes mix`,
    body: [
      `The notes mix (create ${mix.create}% / get ${mix.get}% / list ${mix.list}% / patch ${mix.patch}%, the notes-load workload's ` +
        `other principals) at ${options.load.ratePerSecond} arrivals/s, open loop, with ${percent(MIXED_SEARCH_SHARE)} of the arrivals ` +
        `searches by the growth curve's principal in its ${sizeLabel(plan.mixedSize)} namespace (the five strategies in turn, the same ` +
        `queries and filters), on the server that ran the growth curve's searches at that size: ${mixed.length} run(s) of ` +
        `${options.load.durationSeconds} s one after the other, each with principals of its own for the notes mix, seeded as ` +
        `notes-load seeds them and warmed up for ${options.load.warmupSeconds} s unmeasured (notes-load runs each on a fresh ` +
        'server: carried over, the principals’ notes would fill every list page run by run). One index lag probe at a time runs alongside ' +
        `(a create and a keyword search every ${MIXED_LAG_NOTE}), so the searched namespace also takes writes. Latency from the ` +
        'scheduled arrival to the last byte.',
      '',
      table(['Run', 'Operation', 'Requests', 'p50 ms', 'p95 ms', 'p99 ms', 'Errors', 'p95 budget'], rows),
      '',
      mixed
        .map(
          (run, index) =>
            `Run ${index + 1}: achieved ${fixed(run.analysis.achievedRatePerSecond, 1)}/s of ${run.analysis.offeredRatePerSecond}/s, ` +
            `server CPU ${percent(run.serverCpuShare)} of a core (its main thread ${percent(run.mainThreadCpuShare)}), ${fixed(run.listedPerPage, 1)} notes per list page, ${run.verdict.held ? 'every budget held' : `missed: ${run.verdict.reasons.join('; ')}`}.`,
        )
        .join(' '),
    ].join('\n'),
  };
};
const MIXED_LAG_NOTE = '20 ms until listed, then a 500 ms pause';

const indexingCostSection = (points: readonly GrowthPoint[]): ReportSection => ({
  title: 'Search: indexing cost per note created',
  body: [
    'What each create caused after its answer — the relay (with its head projection check) and every consumer of its ' +
      'event (audit, search index), measured by the local server on its way to the engine — for the creates of each growth step (from ' +
      'the cost report of the server life that wrote them, its meter reading every engine request and answer). The search-index consumer reads the head, appends one sealed ' +
      'log entry and, once the log since the last snapshot is a quarter of the namespace (at least 64 entries), writes a ' +
      'snapshot of the whole namespace index: what grows with the namespace. DynamoDB dollars at on-demand prices (writes and refused conditions at ' +
      `$${DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS}, reads at $${DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS} per million units); ` +
      'the consumers’ Lambda time and the rest of an event’s cost are in the cost section of the mix.',
    '',
    table(
      [
        'Notes written',
        'Creates',
        'Caused requests / create',
        'Write units / create',
        'of them refused conditions',
        'Index write units / create',
        'Read units / create',
        'DynamoDB $ per million creates (caused)',
        'Event work p50 ms',
      ],
      points.map((point, index) => {
        const { cost } = point;
        const writes = cost.causedWriteUnits + cost.causedFailedConditionUnits + cost.causedIndexWriteUnits;
        return [
          `${sizeLabel(points[index - 1]?.size ?? 0)}–${sizeLabel(point.size)}`,
          cost.creates,
          fixed(cost.causedRequests, 1),
          fixed(cost.causedWriteUnits + cost.causedFailedConditionUnits, 1),
          fixed(cost.causedFailedConditionUnits, 1),
          fixed(cost.causedIndexWriteUnits, 1),
          fixed(cost.causedReadUnits, 1),
          dollars(
            writes * DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS +
              cost.causedReadUnits * DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS,
          ),
          ms(cost.eventMillisecondsP50),
        ];
      }),
    ),
  ].join('\n'),
});

const methodNotes = (options: BenchOptions, plan: SearchLoadPlan): string[] => [
  `search-load runs the local server as a child process (as notes-load) on one data folder for the whole scenario: the ` +
    `namespace grows through ${plan.sizes.map(sizeLabel).join(', ')} notes. Each size has a seeding life (its cost meter reading every ` +
    'engine request and answer, for the indexing cost), then a measured life on the same data with the meter off (the cold ' +
    "first search, the warm searches, the lag, the mix), and at the mix's size a cost life (the mix once more, one run, " +
    'the meter on, then every operation one request at a time), as the other load scenarios separate latency and cost runs.' +
    (options.quick ? ' The quick run stops at 10k: seeding 100k notes takes most of an hour.' : ''),
  'Seeding goes through `POST /v1/notes` with the growth principal’s token, a few creates at a time: each note is encrypted ' +
    'in the engine and indexed by the search-index consumer from the relayed event, as in production; no other path. The texts ' +
    'and tags are the retrieval-quality set’s (bench/retrieval-quality/, beliefs written as notes too), its labelled questions ' +
    'the queries. "Caught up" is a note created after the seed listed by a keyword search (the relay takes its entries in order, a batch at a time), then up to 30 s for the server’s CPU to drop below 20% of a core. One create at a time: at three at a time into one namespace the search-index consumer’s appends contend for the log’s next sequence (2,000 notes: 204 s to catch up, 416 dead letters).',
  `A search is \`POST /v1/search\` with no \`kinds\` (every searchable kind: the note and belief namespaces of the principal), ` +
    `k = ${plan.k}; each strategy gets its own seeded draw of queries, ${percent(plan.filteredShare / 2)} with a tag filter ` +
    `(one of the 8 most frequent tags) and ${percent(plan.filteredShare / 2)} with a \`since\` filter (the scenario's start, ` +
    'so it keeps every note): filtered and unfiltered searches are pooled in the percentiles.',
  '"Memory held" is the resident set size (VmRSS) of the server process read from /proc after the searches at a size, with ' +
    'its peak (VmHWM); it holds the embedded engine and its data, the warm namespace index and the caches, not the index ' +
    'alone. The V8 heap is not read (the server exposes no inspector to the bench).',
  'The cost per search is priced as the other operations are (cost-tables.ts, the corrected model), from the cost report of ' +
    'the cost life: the search operation’s own engine reads (the index revalidation query and ' +
    'the canonical head reads of verification) and key work, its handler time one request at a time (searches of each strategy in ' +
    'turn) as the Lambda duration. The figure is for the strategies in equal shares.',
];

export const searchLoadReport = (
  options: BenchOptions,
  plan: SearchLoadPlan,
  figures: SearchLoadFigures,
): ScenarioResult => {
  const headline: HeadlineFigure[] = [];
  for (const point of figures.points) {
    const budget = SEARCH_P95_BUDGET_MS[point.target];
    const worst = worstStrategyP95(point.byStrategy);
    const reached = point.size === point.target ? '' : ` (reached ${point.size})`;
    headline.push({
      label: `Search p95 at ${sizeLabel(point.target)} notes${reached} in one namespace, slowest strategy (${worst.strategy})${budget === undefined ? '' : `, ≤ ${budget} ms`}`,
      value: `${ms(worst.p95)} ms`,
      ...(budget !== undefined && { pass: worst.p95 <= budget }),
    });
  }
  const searchP95s = figures.mixed.map((run) => run.analysis.byOperation[SEARCH_OPERATION]?.p95 ?? Number.NaN);
  if (figures.mixed.length > 0) {
    const p95 = median(searchP95s);
    headline.push({
      label: `Search p95 inside the ${options.load.ratePerSecond}/s notes mix (${percent(MIXED_SEARCH_SHARE)} searches, ${sizeLabel(plan.mixedSize)} namespace), ≤ ${MIXED_SEARCH_P95_BUDGET_MS} ms`,
      value: `${ms(p95)} ms`,
      pass: p95 <= MIXED_SEARCH_P95_BUDGET_MS,
    });
  }
  if (figures.lag) {
    headline.push({
      label: `Index lag at ${sizeLabel(plan.lagSize)} notes, commit → searchable (p50 / p95)`,
      value: `${ms(percentile(figures.lag.lags, 50))} / ${ms(percentile(figures.lag.lags, 95))} ms`,
    });
  }
  const search = figures.costs?.figures.corrected[SEARCH_OPERATION];
  if (search) {
    headline.push({
      label: `Search modelled AWS cost, everything counted (today's model)`,
      value: `${dollars(search.total)} (${dollars(figures.costs?.figures.today[SEARCH_OPERATION]?.total)}) per million`,
    });
  }
  for (const size of plan.sizes.filter((size) => !figures.points.some((point) => point.target === size))) {
    const budget = SEARCH_P95_BUDGET_MS[size];
    headline.push({
      label: `Search p95 at ${sizeLabel(size)} notes in one namespace${budget === undefined ? '' : `, ≤ ${budget} ms`}`,
      value: `not measured: ${figures.stopped?.reason ?? 'growth stopped before it'}`,
      ...(budget !== undefined && { pass: false }),
    });
  }
  const indexDeadLetters = figures.deadLetters[SEARCH_INDEX_CONSUMER] ?? 0;
  headline.push({
    label: 'Notes the search index never got (search-index dead letters over the scenario)',
    value: String(indexDeadLetters),
    pass: indexDeadLetters === 0,
  });
  const growth = growthSection(plan, figures.points);
  growth.body += `\n\nDead letters over the whole scenario, by consumer (events a consumer gave up on after the bus's retries; read from the engine's journal): ${
    Object.keys(figures.deadLetters).length === 0
      ? 'none'
      : Object.entries(figures.deadLetters)
          .map(([consumer, count]) => `${consumer} ${count}`)
          .join(', ')
  }.`;
  if (figures.stopped)
    growth.body += `\n\nThe growth stopped at the ${sizeLabel(figures.stopped.size)} step: ${figures.stopped.reason}.`;
  const sections: ReportSection[] = [
    growth,
    coldSection(figures.points),
    lagSection(plan, figures.lag, figures.mixed),
    ...(figures.mixed.length > 0 ? [mixedSection(options, plan, figures.mixed)] : []),
    indexingCostSection(figures.points),
  ];
  if (figures.costs) {
    sections.push(
      costSection({
        title: 'Search: cost per operation',
        runs: [figures.costs.run],
        figures: figures.costs.figures,
        baselines: [],
        workload: {
          key: 'search-mix',
          label: `Notes mix with ${percent(MIXED_SEARCH_SHARE)} searches at ${options.load.ratePerSecond}/s`,
          mix: `the notes mix, ${percent(MIXED_SEARCH_SHARE)} of it searches`,
          ratePerSecond: options.load.ratePerSecond,
        },
        beforeAfterHeading: '### Cost per million: before / after',
        extraNotes: [
          `Search is priced from the cost life (${plan.mixedSize} notes in the searched namespace); its reads grow with k and ` +
            'with the candidates verification drops, not with the namespace, while its handler time grows with the namespace.',
        ],
      }),
    );
  }
  return {
    sections,
    headline,
    methodNotes: methodNotes(options, plan),
    raw: {
      plan,
      points: figures.points,
      lag: figures.lag,
      mixed: figures.mixed.map(({ analysis, verdict, serverCpuShare, mainThreadCpuShare, lag }) => ({
        analysis,
        verdict,
        serverCpuShare,
        mainThreadCpuShare,
        lag,
      })),
      deadLetters: figures.deadLetters,
      stopped: figures.stopped,
      costs: figures.costs && { corrected: figures.costs.figures.corrected, today: figures.costs.figures.today },
    },
  };
};

/** For the log and the tests: the p95 of each strategy at a point. */
export const strategyP95s = (point: Pick<GrowthPoint, 'byStrategy'>): Record<SearchStrategy, number> =>
  Object.fromEntries(
    SEARCH_STRATEGIES.map((strategy) => [strategy, percentile(point.byStrategy[strategy].latencies, 95)]),
  ) as Record<SearchStrategy, number>;
