/**
 * One measured run of a load scenario: a fresh session's phase at the fixed rate, then every operation one
 * request at a time, then the server's cost report, cut into the handler times of each part.
 */

import type { CostReport, ServerStartOptions } from '../server-process.ts';
import { percentile } from '../stats.ts';
import type { LoadSession, MeasuredPhase, ServiceTime, SessionSetup, SessionWorkload } from './load-session.ts';
import { judgePhase, type LatencyBudget, type PhaseAnalysis, type Verdict } from './phase-analysis.ts';

export interface FixedRateRun<Operation extends string = string> {
  index: number;
  analysis: PhaseAnalysis;
  verdict: Verdict;
  serverCpuShare: number | undefined;
  /** Of it, the main thread's (requests, handlers, consumers), as a share of one core. */
  mainThreadCpuShare: number | undefined;
  /** Cores kept busy by other processes (and hypervisor steal) during the measured phase. */
  otherCpuCores: number | undefined;
  /** Seconds the run waited for the machine to quieten before it started. */
  quietWaitSeconds: number;
  setupSeconds: number;
  costReport: CostReport;
  /** Server handler time in the measured phase, ms, by operation. */
  handlerUnderLoad: Record<string, number[]>;
  /** Server handler time of the one-at-a-time requests, ms, by operation. */
  handlerAlone: Record<string, number[]>;
  /** Client-side latency of the one-at-a-time requests. */
  serviceTime: ServiceTime<Operation>;
  /** Commit → last consumer applied, ms, for every event applied during the measured phase. */
  relayLag: number[];
}

export interface FixedRateScenario<Workload extends SessionWorkload, Run> {
  /** For the log. */
  name: string;
  budget: LatencyBudget;
  /** A fresh, seeded and warmed-up session for run `index`, on a server started with `serverOptions`. */
  open(index: number, serverOptions?: ServerStartOptions): Promise<LoadSession<Workload>>;
  /** The scenario's own figures added to a run: what it read off the phase's responses or its workload. */
  complete(run: FixedRateRun<Workload['operations'][number]>, measured: MeasuredPhase, workload: Workload): Run;
}

/** `options.load.runs` independent runs at the fixed rate, each on a fresh session. */
export const runFixedRates = async <Workload extends SessionWorkload, Run>(
  setup: SessionSetup,
  scenario: FixedRateScenario<Workload, Run>,
): Promise<Run[]> => {
  const { options, log } = setup;
  const { ratePerSecond, durationSeconds, runs } = options.load;
  const results: Run[] = [];
  for (let index = 0; index < runs; index++) {
    log(`${scenario.name} run ${index + 1}/${runs}: ${ratePerSecond}/s for ${durationSeconds} s`);
    const session = await scenario.open(index);
    const { run, measured } = await measureFixedRate(session, setup, index, scenario.budget);
    logRun(log, run, session.workload.operations);
    results.push(scenario.complete(run, measured, session.workload));
  }
  return results;
};

/**
 * One more run at the fixed rate, on a server whose cost meter reads every engine request and answer: what the
 * operations cost (index writes, key caches, the events each caused). Apart from the latency runs because that
 * reading is a JSON parse of every request and answer, work no function in AWS does; its time is in this run's
 * handler times, which only ever overstates the durations priced from them.
 */
export const runCostMeasurement = async <Workload extends SessionWorkload, Run>(
  setup: SessionSetup,
  scenario: FixedRateScenario<Workload, Run>,
): Promise<Run> => {
  const { options, log } = setup;
  const index = options.load.runs;
  log(`${scenario.name} cost run: ${options.load.ratePerSecond}/s for ${options.load.durationSeconds} s`);
  const session = await scenario.open(index, { meterEngineWork: true });
  const { run, measured } = await measureFixedRate(session, setup, index, scenario.budget);
  logRun(log, run, session.workload.operations);
  return scenario.complete(run, measured, session.workload);
};

/** Runs the measured phase and the one-at-a-time requests on `session`, then closes it. */
const measureFixedRate = async <Workload extends SessionWorkload>(
  session: LoadSession<Workload>,
  { options }: SessionSetup,
  index: number,
  budget: LatencyBudget,
): Promise<{ run: FixedRateRun<Workload['operations'][number]>; measured: MeasuredPhase }> => {
  let measured: MeasuredPhase;
  let serviceTime: ServiceTime<Workload['operations'][number]>;
  const phaseStart = Date.now();
  let phaseEnd = phaseStart;
  try {
    measured = await session.phase(options.load.ratePerSecond, options.load.durationSeconds, options.drainTimeoutMs);
    phaseEnd = Date.now();
    serviceTime = await session.serviceTime(options.load.serviceTimeRequests);
  } catch (error) {
    await session.close().catch(() => undefined);
    throw error;
  }
  const costReport = await session.close();
  // Events applied during the measured phase: commit → the last consumer (head projection, audit) applied.
  const relayLag = session.server.relayLagSamples
    .filter(([appliedAt]) => appliedAt >= phaseStart && appliedAt <= phaseEnd)
    .map(([, lag]) => lag);

  // The server books handler times in completion order: seeding and warm-up, the measured phase, then the
  // one-at-a-time requests.
  const handlerUnderLoad: Record<string, number[]> = {};
  const handlerAlone: Record<string, number[]> = {};
  const operations: readonly Workload['operations'][number][] = session.workload.operations;
  for (const operation of operations) {
    const entries = costReport[operation]?.handlerMilliseconds ?? [];
    const alone = serviceTime[operation].latencies.length;
    handlerUnderLoad[operation] = entries.slice(session.unmeasured[operation] ?? 0, entries.length - alone);
    handlerAlone[operation] = entries.slice(entries.length - alone);
  }
  return {
    measured,
    run: {
      index,
      analysis: measured.analysis,
      verdict: judgePhase(measured.analysis, budget),
      serverCpuShare: measured.serverCpuShare,
      mainThreadCpuShare: measured.mainThreadCpuShare,
      otherCpuCores: measured.otherCpuCores,
      quietWaitSeconds: measured.quietWaitSeconds,
      setupSeconds: session.setupSeconds,
      costReport,
      handlerUnderLoad,
      handlerAlone,
      serviceTime,
      relayLag,
    },
  };
};

/** For the log: a phase's throughput, errors and p95 by operation. */
export const describePhase = (analysis: PhaseAnalysis, operations: readonly string[]): string =>
  `achieved ${analysis.achievedRatePerSecond.toFixed(1)}/s, errors ${analysis.errors}, p95 ` +
  operations.map((operation) => `${operation} ${analysis.byOperation[operation]?.p95.toFixed(1)}`).join(', ');

export const formatShare = (share: number | undefined): string =>
  share === undefined ? '—' : `${(share * 100).toFixed(0)}% of a core`;

export const formatCores = (cores: number | undefined): string =>
  cores === undefined ? '—' : `${cores.toFixed(2)} cores`;

/** For the log: one run's phase, CPU and one-at-a-time medians. */
const logRun = (log: (line: string) => void, run: FixedRateRun, operations: readonly string[]): void => {
  log(
    `  ${describePhase(run.analysis, operations)}; server CPU ${formatShare(run.serverCpuShare)}; other load ${formatCores(run.otherCpuCores)}`,
  );
  log(
    `  one at a time: ${operations.map((operation) => `${operation} ${percentile(run.serviceTime[operation]?.latencies ?? [], 50).toFixed(1)}`).join(', ')} ms (p50)`,
  );
};
