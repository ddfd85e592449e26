/** The notes-load scenario's figures as report sections and headline figures. */
import { availableParallelism } from 'node:os';
import type { BenchOptions } from '../bench-options.ts';
import type { CostBaseline } from '../cost-baseline.ts';
import type { CeilingResult, CeilingStep } from '../load/ceiling-search.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import { NOTE_OPERATIONS, type NoteOperation, OPERATION_KIND, OPERATION_LABELS } from '../load/notes-workload.ts';
import type { PhaseAnalysis } from '../load/phase-analysis.ts';
import { type CostFigures, type CostWorkload, costHeadline, costSection } from '../report/cost-tables.ts';
import {
  ceilingProcedure,
  ceilingTable,
  ceilingText,
  cpuPerRequest,
  latencyTable,
  medianOfRuns,
  perRunSection,
  pooled,
  type ReportedOperation,
  rawRun,
  runsIntro,
  runsSummary,
  totalErrors,
} from '../report/load-tables.ts';
import { fixed, ms, percent, table } from '../report/markdown.ts';
import type { HeadlineFigure, ReportSection, ScenarioResult } from '../scenario.ts';
import { COMPONENTS, type Component, type CpuBreakdown } from '../server-profile.ts';
import { median, percentile } from '../stats.ts';
import { budgetOf, MINIMUM_ACHIEVED_SHARE, READ_P95_BUDGET_MS, WRITE_P95_BUDGET_MS } from './notes-budget.ts';

export interface LoadRun extends FixedRateRun<NoteOperation> {
  /** Notes returned per list call in the measured phase, on average. */
  meanListedItems: number;
  patchFallbacks: number;
}

/** A ceiling step, with the notes returned per list call on average. */
export type NotesCeilingStep = CeilingStep & { meanListedItems: number };

export interface ProfileResult {
  breakdown: CpuBreakdown;
  requests: number;
  analysis: PhaseAnalysis;
  serverCpuShare: number | undefined;
  intervalMicros: number;
}

const NOTES_REPORTED: readonly ReportedOperation[] = NOTE_OPERATIONS.map((operation) => ({
  id: operation,
  label: OPERATION_LABELS[operation],
  kind: OPERATION_KIND[operation],
  p95BudgetMs: budgetOf(operation),
}));

const loadSection = (options: BenchOptions, runs: readonly LoadRun[]): ReportSection => {
  const { ratePerSecond } = options.load;
  const { mix } = options.workload;
  return {
    title: `Notes load at ${ratePerSecond}/s`,
    body: [
      `${runsIntro(options, runs)}; mix create ${mix.create}% / get ${mix.get}% / list ${mix.list}% / patch ${mix.patch}%. ` +
        'Latency is client-side, from the scheduled arrival to the last byte of the response. ' +
        `Percentiles are the median across runs of each run's figure; "worst-run p95" is the highest run's. ` +
        'The server handler time (pooled over runs) is measured inside the server around the handler; it includes waiting for the event loop while other requests run.',
      '',
      latencyTable(runs, NOTES_REPORTED),
      '',
      runsSummary(runs, ratePerSecond),
    ].join('\n'),
  };
};

const ceilingSection = (
  options: BenchOptions,
  result: CeilingResult<NotesCeilingStep>,
  runs: readonly LoadRun[],
): ReportSection => {
  // Lists return every note of the principal up to the page size, so they get dearer as the table fills;
  // short steps on a fresh table see smaller pages than the end of a 60 s run.
  const stepPages = median(result.steps.map((step) => step.meanListedItems));
  const runPages = median(runs.map((run) => run.meanListedItems));
  const pageNote =
    stepPages < runPages * 0.8
      ? ` Caveat: list pages here held ${fixed(stepPages, 1)} notes on average against ${fixed(runPages, 1)} in the ` +
        `${options.load.durationSeconds} s runs (a list decrypts every note it returns), so a rate that holds here can still miss ` +
        'the list budget in the longer runs above.'
      : '';
  return {
    title: 'Throughput ceiling',
    body: [
      ceilingProcedure(
        options.ceiling,
        `reads ≤ ${READ_P95_BUDGET_MS} ms, writes ≤ ${WRITE_P95_BUDGET_MS} ms`,
        MINIMUM_ACHIEVED_SHARE,
      ),
      '',
      `Highest sustainable rate: **${ceilingText(result)}**.${pageNote}`,
      '',
      ceilingTable(result.steps, NOTE_OPERATIONS, [
        { header: 'Notes / list page', cell: (step) => fixed(step.meanListedItems, 1) },
      ]),
    ].join('\n'),
  };
};

const whereTimeGoesSection = (runs: readonly LoadRun[], profile: ProfileResult | undefined): ReportSection => {
  const serviceRows = NOTE_OPERATIONS.map((operation) => {
    const latencies = pooled(runs, (run) => run.serviceTime[operation].latencies);
    const handler = pooled(runs, (run) => run.handlerAlone[operation]);
    return [
      operation,
      latencies.length,
      ms(percentile(latencies, 50)),
      ms(percentile(latencies, 95)),
      ms(percentile(handler, 50)),
      runs.reduce((total, run) => total + run.serviceTime[operation].errors, 0),
    ];
  });
  const parts = [
    'Service time: after each run, every operation again one request at a time (nothing queued anywhere), pooled over runs. ' +
      'This is the floor under the loaded latencies above.',
    '',
    table(['Operation', 'Requests', 'Alone p50 ms', 'Alone p95 ms', 'Server handler p50 ms', 'Errors'], serviceRows),
  ];
  const perRequest = median(runs.map(cpuPerRequest));
  parts.push(
    '',
    `Under load the server process (all its threads, read from /proc) used **${ms(perRequest)} ms of CPU per request** ` +
      `(runs: ${runs.map((run) => ms(cpuPerRequest(run))).join(', ')} ms), ${percent(median(runs.map((run) => run.serverCpuShare ?? Number.NaN)))} ` +
      `of a core at ${runs[0]?.analysis.offeredRatePerSecond ?? '—'}/s, on a ${availableParallelism()}-core machine it shares with the load generator. ` +
      'The handlers and the local gateway run on one event loop, so requests wait behind one another well before the process runs out of CPU.',
  );
  if (profile) {
    const { breakdown } = profile;
    const components = (Object.keys(COMPONENTS) as Component[])
      .map((component) => ({ component, milliseconds: breakdown.byComponent[component] }))
      .filter((entry) => entry.milliseconds > 0)
      .sort((a, b) => b.milliseconds - a.milliseconds);
    const share = (milliseconds: number) => milliseconds / breakdown.busyMilliseconds;
    const engineNote =
      share(breakdown.byComponent.engine) < 0.01
        ? 'the embedded engine (not on the main thread: its CPU is in the process total above, not in this profile)'
        : `the embedded engine (${percent(share(breakdown.byComponent.engine))})`;
    parts.push(
      '',
      `CPU profile of the server's main thread: one more fresh server under \`node --cpu-prof\` (sampling every ${profile.intervalMicros} µs), ` +
        `seeded and warmed up, then the same workload at half the rate (${profile.analysis.offeredRatePerSecond}/s for ` +
        `${(breakdown.windowMilliseconds / 1000).toFixed(0)} s; the profiler itself slows the server, and a saturated server would spend the ` +
        `window on its backlog). The main thread was busy ${percent(breakdown.busyMilliseconds / breakdown.windowMilliseconds)} of the window. ` +
        'Each sample is charged to the nearest non-Node frame on its stack, so crypto, streams and buffers count against the package that ' +
        'called them; "ms per request" is main-thread time under the profiler, which inflates it.' +
        (breakdown.windowed
          ? ''
          : ' (The profile could not be cut to the measured window; it covers the whole server life.)'),
      '',
      table(
        ['Component', 'Share of main-thread CPU', 'ms per request (profiled)'],
        components.map((entry) => [
          COMPONENTS[entry.component],
          percent(share(entry.milliseconds)),
          fixed(entry.milliseconds / profile.requests),
        ]),
        ['left', 'right', 'right'],
      ),
      '',
      `Busiest packages / files: ${breakdown.topOwners
        .map((owner) => `${owner.owner} ${percent(share(owner.milliseconds))}`)
        .join(', ')}.`,
      '',
      `Local mode only: the local gateway and JWT verification (${percent(share(breakdown.byComponent.gateway))}), ${engineNote}, ` +
        'and the messages to and from the engine thread have no counterpart inside a Lambda function: in AWS, ' +
        'API Gateway verifies the token, DynamoDB is a remote service, and each sandbox serves one request at a time instead of sharing an event loop.',
    );
  }
  return { title: 'Where the time goes', body: parts.join('\n') };
};

/** The notes workload as the cost section and the headline name it. */
const costWorkload = (options: BenchOptions): CostWorkload => {
  const { mix } = options.workload;
  return {
    key: 'notes',
    label: `Notes mix at ${options.load.ratePerSecond}/s`,
    mix: `create ${mix.create}% / get ${mix.get}% / list ${mix.list}% / patch ${mix.patch}%`,
    ratePerSecond: options.load.ratePerSecond,
  };
};

const methodNotes = (options: BenchOptions): string[] => [
  'The server runs as a child process (`bin/local-server.ts` on the same Node, `PORT=0`, quiet logs, a fresh temporary data ' +
    'folder) so the load generator never shares its event loop; the embedded DynamoDB-compatible engine runs inside the server process, ' +
    "as in `npm start`. The generator and the server share the machine's cores with whatever else runs on it.",
  'Each fixed-rate run gets its own fresh server, so runs are independent repeats from the same starting state rather than one ' +
    'long run whose table keeps growing. Tokens (one per principal) are minted once with the local issuer and its folder is copied ' +
    'into each fresh data folder. Every principal is seeded with one or two notes (8 requests at a time), then ' +
    `${options.load.warmupSeconds} s of unmeasured traffic at the same rate warms the JIT and the connection pool.`,
  'Open loop: arrivals are scheduled at fixed intervals by the wall clock and sent without waiting for earlier responses; latency is ' +
    'measured from the scheduled time, so any queueing (in the generator, on sockets or in the server) counts. Send lag and the ' +
    "generator's event-loop delay are reported per run to show the generator kept up.",
  'HTTP/1.1 keep-alive connections (node:http Agent, FIFO socket reuse, up to 256 sockets). Create and patch send JSON bodies of ' +
    '20–80 words with 0–3 tags; creates carry no Idempotency-Key. Each principal has at most one patch in flight and patches with the ' +
    'ETag it last received from a create or patch, so a 412 can only mean a bug; any non-2xx or unanswered request is an error.',
  `Requests still unanswered ${options.drainTimeoutMs / 1000} s after the last arrival count as errors ("unanswered"). ` +
    'Server CPU is read from /proc for the server process (all its threads) as a share of one core; "other load" is the ' +
    "machine's busy CPU (/proc/stat, hypervisor steal included) minus the server and the load generator — other work competing " +
    `for the same cores during the phase. Before each phase the bench waits (up to 15 s) for other load to drop below 0.3 cores.`,
  'Latency, CPU, the ceiling and the profile are measured with the cost meter keeping timings only; the costs come from one more ' +
    'run at the same rate whose meter also reads every engine request and answer (a JSON parse of each, which no function in AWS ' +
    'does, and which is not in the latency figures).',
];

/** Median across runs of each run's relay-lag percentiles (events applied during the measured phase). */
const relayLagFigures = (runs: readonly LoadRun[]) => {
  const measured = runs.filter((run) => run.relayLag.length > 0);
  if (measured.length === 0) return undefined;
  const of = (p: number) => median(measured.map((run) => percentile(run.relayLag, p)));
  return {
    p50: of(50),
    p95: of(95),
    p99: of(99),
    events: measured.reduce((total, run) => total + run.relayLag.length, 0),
  };
};

const relayLagSection = (options: BenchOptions, runs: readonly LoadRun[]) => {
  const lag = relayLagFigures(runs);
  return {
    title: `Event relay lag at ${options.load.ratePerSecond}/s`,
    body: [
      'Every committed revision carries an outbox event; locally the store hands it to the relay (the stand-in for the ' +
        "table's stream), which checks the head projection and publishes it on the in-process bus to the search-index and audit consumers. Lag is from the " +
        "revision's commit time (`occurred_at`, taken just before the conditional put) to the moment the last consumer applied " +
        'it, for every event applied during the measured phase; percentiles are the median across runs.',
      '',
      lag
        ? table(
            ['Events', 'p50 ms', 'p95 ms', 'p99 ms', 'Per run (p50 / p95 ms)'],
            [
              [
                lag.events,
                ms(lag.p50),
                ms(lag.p95),
                ms(lag.p99),
                runs
                  .map((run) => `${ms(percentile(run.relayLag, 50))} / ${ms(percentile(run.relayLag, 95))}`)
                  .join('; '),
              ],
            ],
          )
        : 'No event was applied during the measured phase.',
    ].join('\n'),
  };
};

export const notesLoadReport = (
  options: BenchOptions,
  runs: readonly LoadRun[],
  ceiling: CeilingResult<NotesCeilingStep>,
  profile: ProfileResult | undefined,
  costs: { figures: CostFigures; baselines: readonly CostBaseline[]; run: LoadRun },
): ScenarioResult => {
  const { figures } = costs;
  const headline: HeadlineFigure[] = NOTE_OPERATIONS.map((operation) => {
    const { p95 } = medianOfRuns(runs, operation);
    return {
      label: `${operation} p95 at ${options.load.ratePerSecond}/s (${OPERATION_KIND[operation]}, ≤ ${budgetOf(operation)} ms)`,
      value: `${ms(p95)} ms`,
      pass: p95 <= budgetOf(operation),
    };
  });
  const errors = totalErrors(runs);
  headline.push({
    label: `Errors at ${options.load.ratePerSecond}/s (all runs)`,
    value: String(errors),
    pass: errors === 0,
  });
  headline.push({
    label: 'Highest sustainable rate',
    value: ceilingText(ceiling),
    pass: ceiling.sustainable >= options.load.ratePerSecond,
  });
  const lag = relayLagFigures(runs);
  headline.push({
    label: `Event relay lag at ${options.load.ratePerSecond}/s, commit → consumers applied (p50 / p95)`,
    value: lag ? `${ms(lag.p50)} / ${ms(lag.p95)} ms` : 'no events',
  });
  headline.push({
    label: `Server process CPU per request at ${options.load.ratePerSecond}/s`,
    value: `${ms(median(runs.map(cpuPerRequest)))} ms`,
  });
  headline.push(...costHeadline(figures, NOTE_OPERATIONS, costWorkload(options)));

  return {
    sections: [
      loadSection(options, runs),
      relayLagSection(options, runs),
      perRunSection(
        'Notes load — per-run detail',
        runs,
        NOTE_OPERATIONS,
        (run) =>
          `List pages held ${run.meanListedItems.toFixed(1)} notes on average; setup (server start, seeding, warm-up) ${run.setupSeconds.toFixed(1)} s` +
          (run.patchFallbacks > 0
            ? `; ${run.patchFallbacks} patches became gets (every principal tried was busy)`
            : ''),
      ),
      ceilingSection(options, ceiling, runs),
      whereTimeGoesSection(runs, profile),
      costSection({
        title: 'Cost per operation',
        runs: [costs.run],
        figures,
        baselines: costs.baselines,
        workload: costWorkload(options),
        beforeAfterHeading: '### Cost per million: before / after',
        extraNotes: [
          'List costs depend on page contents: the read units and the decryptions scale with the notes returned (see the per-run list page size).',
        ],
      }),
    ],
    headline,
    methodNotes: methodNotes(options),
    raw: {
      runs: runs.map(rawRun),
      costRun: rawRun(costs.run),
      ceiling,
      profile,
    },
  };
};
