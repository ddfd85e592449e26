/**
 * The throughput ceiling of a load scenario: the highest arrival rate at which its budget still holds. One
 * fresh session (seeded and warmed up like the fixed-rate runs), then short phases at rising rates until one
 * does not hold, then a bisection between the last rate that held and the first that did not.
 */
import type { CeilingOptions } from '../bench-options.ts';
import { describePhase, formatCores, formatShare } from './fixed-rate-run.ts';
import type { LoadSession, MeasuredPhase, SessionSetup, SessionWorkload } from './load-session.ts';
import { judgePhase, type LatencyBudget, type PhaseAnalysis, type Verdict } from './phase-analysis.ts';

export interface CeilingStep {
  ratePerSecond: number;
  analysis: PhaseAnalysis;
  verdict: Verdict;
  serverCpuShare: number | undefined;
  otherCpuCores: number | undefined;
  /** Failed while the machine was busy with other work, and was run again. */
  discarded: boolean;
}

export interface CeilingResult<Step extends CeilingStep = CeilingStep> {
  steps: Step[];
  /** Highest offered rate that held; 0 when none did. */
  sustainable: number;
  /** Lowest offered rate that did not hold; undefined when the search ran out of steps first. */
  lowestFailed: number | undefined;
}

export interface CeilingSearch<Workload extends SessionWorkload, Extra extends object> {
  /** For the log. */
  name: string;
  budget: LatencyBudget;
  ceiling: CeilingOptions;
  /** A fresh, seeded session, warmed up at `warmupRate` (the search's starting rate). */
  open(warmupRate: number): Promise<LoadSession<Workload>>;
  /** The scenario's own figures added to a step: what it read off the phase's responses. */
  figures(measured: MeasuredPhase): Extra;
}

/** Other load above this many cores makes a failed ceiling step worth repeating. */
const BUSY_MACHINE_CORES = 0.5;

/** Runs the search on one fresh session, stopping once `ceiling.timeBudgetSeconds` is used up. */
export const findCeiling = async <Workload extends SessionWorkload, Extra extends object>(
  { options, log }: SessionSetup,
  search: CeilingSearch<Workload, Extra>,
): Promise<CeilingResult<CeilingStep & Extra>> => {
  const { ceiling } = search;
  log(
    `${search.name} ceiling: ${ceiling.stepSeconds} s steps from ${ceiling.startRatePerSecond}/s by ${ceiling.stepRatePerSecond}/s`,
  );
  const session = await search.open(ceiling.startRatePerSecond);
  const started = performance.now();
  const steps: (CeilingStep & Extra)[] = [];
  const timeLeft = () => ceiling.timeBudgetSeconds - (performance.now() - started) / 1000 >= ceiling.stepSeconds;
  const attempt = async (rate: number, retry = false): Promise<boolean> => {
    const measured = await session.phase(rate, ceiling.stepSeconds, options.drainTimeoutMs);
    const verdict = judgePhase(measured.analysis, search.budget);
    // A step that failed while other work took a large share of the machine says little about the server:
    // run it once more.
    const discarded = !verdict.held && !retry && (measured.otherCpuCores ?? 0) > BUSY_MACHINE_CORES && timeLeft();
    steps.push({
      ratePerSecond: rate,
      analysis: measured.analysis,
      verdict,
      serverCpuShare: measured.serverCpuShare,
      otherCpuCores: measured.otherCpuCores,
      ...search.figures(measured),
      discarded,
    });
    log(
      `  ${rate}/s ${verdict.held ? 'held' : `did not hold (${verdict.reasons.join('; ')})`}: ` +
        `${describePhase(measured.analysis, session.workload.operations)}; server CPU ${formatShare(measured.serverCpuShare)}; ` +
        `other load ${formatCores(measured.otherCpuCores)}${discarded ? ' — machine busy, running the step again' : ''}`,
    );
    // Let the server settle before the next step.
    await session.server.waitForIdle({ timeoutMs: 10_000 });
    return discarded ? attempt(rate, true) : verdict.held;
  };
  let highestHeld = 0;
  let lowestFailed: number | undefined;
  try {
    for (let step = 0; step < ceiling.maxSteps && timeLeft(); step++) {
      const rate = ceiling.startRatePerSecond + step * ceiling.stepRatePerSecond;
      if (await attempt(rate)) highestHeld = rate;
      else {
        lowestFailed = rate;
        break;
      }
    }
    // Bisect between the last rate that held (or zero) and the first that did not, to the nearest
    // `refineResolutionPerSecond`.
    const resolution = ceiling.refineResolutionPerSecond;
    for (let refine = 0; refine < ceiling.refineSteps && lowestFailed !== undefined && timeLeft(); refine++) {
      const rate = Math.round((highestHeld + lowestFailed) / 2 / resolution) * resolution;
      if (rate <= highestHeld || rate >= lowestFailed) break;
      if (await attempt(rate)) highestHeld = rate;
      else lowestFailed = rate;
    }
  } finally {
    await session.close().catch((error: unknown) => log(`  stopping the ceiling server failed: ${String(error)}`));
  }
  return { steps, sustainable: highestHeld, lowestFailed };
};
