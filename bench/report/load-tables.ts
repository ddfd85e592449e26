/**
 * What every load scenario reports the same way: latency by operation across runs against its budget, the
 * detail of each run, and what each operation costs. The scenarios add their own words around these.
 */
import { availableParallelism } from 'node:os';
import type { BenchOptions, CeilingOptions } from '../bench-options.ts';
import type { CeilingResult, CeilingStep } from '../load/ceiling-search.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import type { ReportSection } from '../scenario.ts';
import { median, percentile } from '../stats.ts';
import { type Align, bullets, type Cell, fixed, ms, passFail, percent, table } from './markdown.ts';

/** An operation as the report names and judges it. */
export interface ReportedOperation {
  /** The API's operationId (the key of the server's cost report). */
  id: string;
  /** What the reader sees ("create — POST /v1/notes"). */
  label: string;
  kind: 'read' | 'write';
  p95BudgetMs: number;
}

/** Server process CPU (all threads, unprofiled) per request of a fixed-rate run, ms. */
export const cpuPerRequest = (run: FixedRateRun): number =>
  run.serverCpuShare === undefined ? Number.NaN : (run.serverCpuShare * 1000) / run.analysis.achievedRatePerSecond;

/** Per operation: the median across runs of each run's p50 / p95 / p99. */
export const medianOfRuns = (runs: readonly FixedRateRun[], operation: string) => {
  const figures = runs.map((run) => run.analysis.byOperation[operation]);
  const pick = (key: 'p50' | 'p95' | 'p99') => median(figures.map((figure) => figure?.[key] ?? Number.NaN));
  return {
    count: figures.reduce((total, figure) => total + (figure?.count ?? 0), 0),
    p50: pick('p50'),
    p95: pick('p95'),
    p99: pick('p99'),
    worstP95: Math.max(...figures.map((figure) => figure?.p95 ?? Number.NaN)),
  };
};

export const pooled = <Run extends FixedRateRun>(
  runs: readonly Run[],
  pick: (run: Run) => number[] | undefined,
): number[] => runs.flatMap((run) => pick(run) ?? []);

export const totalErrors = (runs: readonly FixedRateRun[]): number =>
  runs.reduce((total, run) => total + run.analysis.errors, 0);

const errorKinds = (errors: Record<string, number>): string =>
  Object.keys(errors).length === 0
    ? 'none'
    : Object.entries(errors)
        .map(([kind, count]) => `${kind} × ${count}`)
        .join(', ');

/** Latency by operation, median across runs, against each operation's budget. */
export const latencyTable = (runs: readonly FixedRateRun[], operations: readonly ReportedOperation[]): string =>
  table(
    [
      'Operation',
      'Kind',
      'Requests',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'Worst-run p95',
      'p95 budget',
      'Result',
      'Server handler p50 / p95 ms',
    ],
    operations.map((operation) => {
      const figures = medianOfRuns(runs, operation.id);
      const handler = pooled(runs, (run) => run.handlerUnderLoad[operation.id]);
      return [
        operation.label,
        operation.kind,
        figures.count,
        ms(figures.p50),
        ms(figures.p95),
        ms(figures.p99),
        ms(figures.worstP95),
        `≤ ${operation.p95BudgetMs}`,
        passFail(figures.p95 <= operation.p95BudgetMs),
        `${ms(percentile(handler, 50))} / ${ms(percentile(handler, 95))}`,
      ];
    }),
    ['left', 'left'],
  );

/** The paragraph under the latency table: errors, throughput, server CPU and other load, run by run. */
export const runsSummary = (runs: readonly FixedRateRun[], ratePerSecond: number): string => {
  const allErrors: Record<string, number> = {};
  for (const run of runs)
    for (const [kind, count] of Object.entries(run.analysis.errorsByKind))
      allErrors[kind] = (allErrors[kind] ?? 0) + count;
  return (
    `Errors: **${totalErrors(runs)}** (${errorKinds(allErrors)}). Achieved throughput per run: ` +
    `${runs.map((run) => `${run.analysis.achievedRatePerSecond.toFixed(1)}/s`).join(', ')} of ${ratePerSecond}/s offered; ` +
    `server process CPU per run: ${runs.map((run) => percent(run.serverCpuShare)).join(', ')} of one core; ` +
    `other load on the machine (other processes, hypervisor steal) kept ${runs.map((run) => fixed(run.otherCpuCores)).join(', ')} of its ` +
    `${availableParallelism()} cores busy.`
  );
};

/**
 * "N runs × D s at R arrivals/s (open loop), each on a fresh server; P principals over T tenants": how a load
 * section's opening sentence starts.
 */
export const runsIntro = (options: BenchOptions, runs: readonly FixedRateRun[]): string =>
  `${runs.length} run${runs.length === 1 ? '' : 's'} × ${options.load.durationSeconds} s at ${options.load.ratePerSecond} arrivals/s (open loop), each on a fresh server; ` +
  `${options.workload.principals} principals over ${options.workload.tenants} tenants`;

/** Each run in turn: its verdict, its figures by operation, how the machine and the generator fared, and `moreFacts`. */
export const perRunSection = <Run extends FixedRateRun>(
  title: string,
  runs: readonly Run[],
  operations: readonly string[],
  moreFacts: (run: Run) => string,
): ReportSection => ({ title, body: runs.map((run) => runDetail(run, operations, moreFacts(run))).join('\n\n') });

const runDetail = (run: FixedRateRun, operations: readonly string[], moreFacts: string): string => {
  const rows = operations.map((operation) => {
    const figures = run.analysis.byOperation[operation];
    return [
      operation,
      figures?.count ?? 0,
      ms(figures?.p50),
      ms(figures?.p95),
      ms(figures?.p99),
      ms(figures?.max),
      figures?.errors ?? 0,
    ];
  });
  const { analysis } = run;
  return [
    `### Run ${run.index + 1} — ${run.verdict.held ? 'within budget' : `outside budget (${run.verdict.reasons.join('; ')})`}`,
    '',
    table(['Operation', 'Requests', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'Errors'], rows),
    '',
    bullets([
      `Achieved ${analysis.achievedRatePerSecond.toFixed(1)}/s (${analysis.completed} of ${analysis.scheduled} answered); errors ${analysis.errors} (${errorKinds(analysis.errorsByKind)})`,
      `Server process CPU ${percent(run.serverCpuShare)} of one core (its main thread ${percent(run.mainThreadCpuShare)}); other load ${fixed(run.otherCpuCores)} cores (after waiting ${run.quietWaitSeconds.toFixed(0)} s for a quiet machine); load generator CPU ${percent(analysis.generatorCpuShare)}, ` +
        `event-loop delay p99 ${ms(analysis.generatorLoopDelayP99)} ms, send lag p99 ${ms(analysis.sendLagP99)} ms (max ${ms(analysis.sendLagMax)} ms)`,
      moreFacts,
    ]),
  ].join('\n');
};

/** How a ceiling search went, for a section's opening paragraph; `budget` names the p95 budgets ("reads ≤ 40 ms, …"). */
export const ceilingProcedure = (ceiling: CeilingOptions, budget: string, minimumAchievedShare: number): string =>
  `One fresh server, seeded and warmed up, then ${ceiling.stepSeconds} s steps from ${ceiling.startRatePerSecond}/s ` +
  `up by ${ceiling.stepRatePerSecond}/s until one does not hold, then up to ${ceiling.refineSteps} bisection step(s) ` +
  `between the last rate that held (or 0) and the first that did not. A step holds when every p95 is within budget ` +
  `(${budget}), there are no errors and achieved throughput is ≥ ${minimumAchievedShare * 100}% of offered. ` +
  'A step that fails while other load takes more than half a core is run once more and the first attempt marked ' +
  'discarded. Steps are listed in the order they ran.';

/** The outcome of a ceiling search: "240/s (360/s did not hold)". */
export const ceilingText = (result: CeilingResult): string => {
  if (result.lowestFailed === undefined) return `≥ ${result.sustainable}/s (the search stopped before any rate failed)`;
  if (result.sustainable === 0) return `below ${result.lowestFailed}/s (no rate tried held)`;
  return `${result.sustainable}/s (${result.lowestFailed}/s did not hold)`;
};

/** A column a scenario adds to the ceiling table (after the p95s). */
export interface CeilingColumn<Step extends CeilingStep> {
  header: string;
  cell: (step: Step) => Cell;
}

/** Each ceiling step in the order it ran: offered and achieved rate, errors, p95 by operation, CPU and verdict. */
export const ceilingTable = <Step extends CeilingStep>(
  steps: readonly Step[],
  operations: readonly string[],
  columns: readonly CeilingColumn<Step>[] = [],
): string => {
  const headers = [
    'Offered /s',
    'Achieved /s',
    'Errors',
    ...operations.map((operation) => `${operation} p95 ms`),
    ...columns.map((column) => column.header),
    'Server CPU',
    'Other load (cores)',
    'Held',
  ];
  const rows = steps.map((step) => [
    step.ratePerSecond,
    step.analysis.achievedRatePerSecond.toFixed(1),
    step.analysis.errors,
    ...operations.map((operation) => ms(step.analysis.byOperation[operation]?.p95)),
    ...columns.map((column) => column.cell(step)),
    percent(step.serverCpuShare),
    fixed(step.otherCpuCores),
    step.discarded
      ? `discarded, machine busy (${step.verdict.reasons.join('; ')}); run again`
      : step.verdict.held
        ? 'held'
        : `no — ${step.verdict.reasons.join('; ')}`,
  ]);
  const align: Align[] = headers.map((_, index) => (index === headers.length - 1 ? 'left' : 'right'));
  return table(headers, rows, align);
};

/** A run's figures for `history.jsonl`: counts and medians instead of every sample. */
export const rawRun = ({ costReport, handlerUnderLoad, handlerAlone, serviceTime, ...run }: FixedRateRun) => ({
  ...run,
  // Counts only: the per-request and per-event timings stay out of history.jsonl.
  costs: Object.fromEntries(
    Object.entries(costReport).map(
      ([
        operation,
        {
          handlerMilliseconds: _handler,
          storageMilliseconds: _storage,
          storageRoundTrips: _roundTrips,
          caused: {
            eventMilliseconds: _event,
            eventStorageMilliseconds: _eventStorage,
            eventStorageRoundTrips: _eventRoundTrips,
            ...caused
          },
          ...counts
        },
      ]) => [operation, { ...counts, caused }],
    ),
  ),
  handlerP50UnderLoad: mapValues(handlerUnderLoad, (values) => percentile(values, 50)),
  handlerP50Alone: mapValues(handlerAlone, (values) => percentile(values, 50)),
  serviceTimeP50: mapValues(serviceTime, (entry) => percentile(entry.latencies, 50)),
});

const mapValues = <T, R>(record: Record<string, T>, map: (value: T) => R): Record<string, R> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
