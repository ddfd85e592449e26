/**
 * Open-loop load: arrivals are scheduled by the wall clock at a fixed rate and sent whether or not earlier
 * requests have been answered. Latency runs from the *scheduled* arrival time to the last byte of the
 * response, so queueing anywhere (generator, sockets, server) is counted and nothing is coordinated away.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface Outcome {
  operation: string;
  /** HTTP status; 0 when no response came back. */
  status: number;
  /** Network error or timeout message when status is 0. */
  error?: string;
  /** Figures the workload read off the response for the report (notes listed, beliefs touched), by name. */
  observed?: Readonly<Record<string, number>>;
}

export interface Sample extends Outcome {
  /** Milliseconds from the phase start. */
  scheduledAt: number;
  /** How late the generator was in sending it, ms. */
  sendLag: number;
  /** Scheduled arrival to response end, ms. */
  latency: number;
}

export interface PhaseResult {
  offeredRatePerSecond: number;
  durationSeconds: number;
  scheduled: number;
  samples: Sample[];
  /** Arrivals with no answer when the drain timeout ran out. */
  abandoned: number;
  /** Completed responses per second over the phase (first arrival to last response, at least the duration). */
  achievedRatePerSecond: number;
  /** The generator's own event-loop delay, ms (p99, max): high values mean the generator lagged. */
  generatorLoopDelayP99: number;
  generatorLoopDelayMax: number;
  /** Generator CPU use as a share of one core. */
  generatorCpuShare: number;
}

export interface OpenLoopOptions {
  ratePerSecond: number;
  durationSeconds: number;
  drainTimeoutMs: number;
  /** Issues one arrival; called at (or just after) its scheduled time. */
  issue: (index: number) => Promise<Outcome>;
}

/** Longest the scheduler sleeps between checks, ms; arrivals due meanwhile are sent together. */
const MAX_TICK_MS = 4;

export const runOpenLoop = async (options: OpenLoopOptions): Promise<PhaseResult> => {
  const { ratePerSecond, durationSeconds } = options;
  const total = Math.round(ratePerSecond * durationSeconds);
  const interval = 1000 / ratePerSecond;
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  const cpuBefore = process.cpuUsage();
  loopDelay.enable();

  const start = performance.now() + 20;
  let lastCompletion = start;
  let next = 0;

  const fire = (index: number, scheduledAbs: number) => {
    const sentAbs = performance.now();
    const task = options
      .issue(index)
      .catch((error: unknown): Outcome => ({ operation: 'unknown', status: 0, error: String(error) }))
      .then((outcome) => {
        const completedAbs = performance.now();
        lastCompletion = Math.max(lastCompletion, completedAbs);
        samples.push({
          ...outcome,
          scheduledAt: scheduledAbs - start,
          sendLag: sentAbs - scheduledAbs,
          latency: completedAbs - scheduledAbs,
        });
      });
    pending.add(task);
    void task.finally(() => pending.delete(task));
  };

  await new Promise<void>((resolveSchedule) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        fire(next, start + next * interval);
        next += 1;
      }
      if (next >= total) {
        resolveSchedule();
        return;
      }
      const wait = start + next * interval - performance.now();
      setTimeout(tick, Math.max(0, Math.min(wait, MAX_TICK_MS)));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });

  const scheduleEnd = start + total * interval;
  const drained = Promise.all(pending).then(() => 'drained' as const);
  const timedOut = new Promise<'timeout'>((resolveTimeout) =>
    setTimeout(() => resolveTimeout('timeout'), options.drainTimeoutMs).unref(),
  );
  await Promise.race([drained, timedOut]);
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = Math.max(scheduleEnd, lastCompletion) - start;
  const completed = samples.length;
  return {
    offeredRatePerSecond: ratePerSecond,
    durationSeconds,
    scheduled: total,
    samples: [...samples],
    abandoned: total - completed,
    achievedRatePerSecond: (completed * 1000) / Math.max(elapsed, durationSeconds * 1000),
    generatorLoopDelayP99: loopDelay.percentile(99) / 1e6,
    generatorLoopDelayMax: loopDelay.max / 1e6,
    generatorCpuShare: (cpu.user + cpu.system) / 1000 / elapsed,
  };
};
