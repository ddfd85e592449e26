/** Turns the raw samples of an open-loop phase into per-operation figures, error counts and a verdict. */
import { groupBy, type LatencySummary, mean, percentile, summarize } from '../stats.ts';
import type { PhaseResult, Sample } from './open-loop-driver.ts';

export interface LatencyBudget {
  /** p95 ceilings, ms, by operation. */
  p95ByOperation: Readonly<Record<string, number>>;
  /** Achieved throughput must stay at or above this share of the offered rate. */
  minimumAchievedShare: number;
}

export interface PhaseAnalysis {
  offeredRatePerSecond: number;
  achievedRatePerSecond: number;
  scheduled: number;
  completed: number;
  byOperation: Record<string, LatencySummary & { errors: number }>;
  /** Non-2xx statuses, network errors and unanswered arrivals, by kind ("412", "ECONNRESET", "unanswered"). */
  errorsByKind: Record<string, number>;
  errors: number;
  sendLagP99: number;
  sendLagMax: number;
  generatorLoopDelayP99: number;
  generatorCpuShare: number;
}

export const isError = (sample: Sample): boolean => sample.status < 200 || sample.status > 299;

export const analysePhase = (phase: PhaseResult, operations: readonly string[]): PhaseAnalysis => {
  const byOperation: PhaseAnalysis['byOperation'] = {};
  const groups = groupBy(phase.samples, (sample) => sample.operation);
  for (const operation of new Set([...operations, ...groups.keys()])) {
    const samples = groups.get(operation) ?? [];
    byOperation[operation] = {
      ...summarize(samples.map((sample) => sample.latency)),
      errors: samples.filter(isError).length,
    };
  }
  const errorsByKind: Record<string, number> = {};
  for (const sample of phase.samples.filter(isError)) {
    const kind = sample.status === 0 ? (sample.error ?? 'no response') : String(sample.status);
    errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
  }
  if (phase.abandoned > 0) errorsByKind.unanswered = phase.abandoned;
  const lags = phase.samples.map((sample) => sample.sendLag);
  return {
    offeredRatePerSecond: phase.offeredRatePerSecond,
    achievedRatePerSecond: phase.achievedRatePerSecond,
    scheduled: phase.scheduled,
    completed: phase.samples.length,
    byOperation,
    errorsByKind,
    errors: Object.values(errorsByKind).reduce((total, count) => total + count, 0),
    sendLagP99: percentile(lags, 99),
    sendLagMax: Math.max(0, ...lags),
    generatorLoopDelayP99: phase.generatorLoopDelayP99,
    generatorCpuShare: phase.generatorCpuShare,
  };
};

/** The mean of a figure the workload read off responses (`Outcome.observed`), over the samples that carry it. */
export const meanObserved = (samples: readonly Sample[], name: string): number =>
  mean(samples.flatMap((sample) => sample.observed?.[name] ?? []));

export interface Verdict {
  held: boolean;
  reasons: string[];
}

/** Whether a phase held: every budgeted p95 met, no errors, and throughput kept up with the offer. */
export const judgePhase = (analysis: PhaseAnalysis, budget: LatencyBudget): Verdict => {
  const reasons: string[] = [];
  for (const [operation, limit] of Object.entries(budget.p95ByOperation)) {
    const p95 = analysis.byOperation[operation]?.p95;
    if (p95 !== undefined && p95 > limit) reasons.push(`${operation} p95 ${p95.toFixed(0)} ms > ${limit} ms`);
  }
  if (analysis.errors > 0) reasons.push(`${analysis.errors} errors`);
  const share = analysis.achievedRatePerSecond / analysis.offeredRatePerSecond;
  if (share < budget.minimumAchievedShare)
    reasons.push(
      `achieved ${analysis.achievedRatePerSecond.toFixed(0)}/s < ${(budget.minimumAchievedShare * 100).toFixed(0)}% of offered`,
    );
  return { held: reasons.length === 0, reasons };
};
