/**
 * Notes under load: the mixed create / get / list / patch workload at a fixed arrival rate against the
 * local server (independent runs, each on a fresh server), the throughput ceiling, where the server's CPU
 * goes, and what each operation costs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from '../bench-options.ts';
import { describePhase, formatCores, formatShare, runFixedRates } from '../load/fixed-rate-run.ts';
import { LoadSession, type MeasuredPhase, type SessionSetup, withSessionSetup } from '../load/load-session.ts';
import { LISTED_ITEMS, NOTE_OPERATIONS, NotesWorkload } from '../load/notes-workload.ts';
import { judgePhase, meanObserved } from '../load/phase-analysis.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import { cpuProfilesIn, type ServerStartOptions } from '../server-process.ts';
import { analyseCpuProfile } from '../server-profile.ts';
import { NOTES_BUDGET } from './notes-budget.ts';
import {
  type CeilingResult,
  type CeilingStep,
  type LoadRun,
  notesLoadReport,
  type ProfileResult,
} from './notes-report.ts';

const openSession = (
  setup: SessionSetup,
  seedOffset: number,
  warmupRate: number,
  serverOptions?: ServerStartOptions,
): Promise<LoadSession<NotesWorkload>> =>
  LoadSession.open(
    setup,
    new NotesWorkload(setup.identities, setup.options.workload, seedOffset),
    warmupRate,
    serverOptions,
  );

/** Notes returned per list call in a phase, on average (lists get dearer as the table fills). */
const meanListedItems = (measured: MeasuredPhase): number => meanObserved(measured.phase.samples, LISTED_ITEMS);

/** Other load above this many cores makes a failed ceiling step worth repeating. */
const BUSY_MACHINE_CORES = 0.5;

const findCeiling = async (setup: SessionSetup): Promise<CeilingResult> => {
  const { options, log } = setup;
  const { ceiling } = options;
  log(
    `notes-load ceiling: ${ceiling.stepSeconds} s steps from ${ceiling.startRatePerSecond}/s by ${ceiling.stepRatePerSecond}/s`,
  );
  const session = await openSession(setup, 100, ceiling.startRatePerSecond);
  const started = performance.now();
  const steps: CeilingStep[] = [];
  const timeLeft = () => ceiling.timeBudgetSeconds - (performance.now() - started) / 1000 >= ceiling.stepSeconds;
  const attempt = async (rate: number, retry = false): Promise<boolean> => {
    const measured = await session.phase(rate, ceiling.stepSeconds, options.drainTimeoutMs);
    const verdict = judgePhase(measured.analysis, NOTES_BUDGET);
    // A step that failed while other work took a large share of the machine says little about the server:
    // run it once more.
    const discarded = !verdict.held && !retry && (measured.otherCpuCores ?? 0) > BUSY_MACHINE_CORES && timeLeft();
    steps.push({
      ratePerSecond: rate,
      analysis: measured.analysis,
      verdict,
      serverCpuShare: measured.serverCpuShare,
      otherCpuCores: measured.otherCpuCores,
      meanListedItems: meanListedItems(measured),
      discarded,
    });
    log(
      `  ${rate}/s ${verdict.held ? 'held' : `did not hold (${verdict.reasons.join('; ')})`}: ` +
        `${describePhase(measured.analysis, NOTE_OPERATIONS)}; server CPU ${formatShare(measured.serverCpuShare)}; ` +
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
    // Bisect between the last rate that held (or zero) and the first that did not, to the nearest 10/s.
    for (let refine = 0; refine < ceiling.refineSteps && lowestFailed !== undefined && timeLeft(); refine++) {
      const rate = Math.round((highestHeld + lowestFailed) / 2 / 10) * 10;
      if (rate <= highestHeld || rate >= lowestFailed) break;
      if (await attempt(rate)) highestHeld = rate;
      else lowestFailed = rate;
    }
  } finally {
    await session.close().catch((error: unknown) => log(`  stopping the ceiling server failed: ${String(error)}`));
  }
  return { steps, sustainable: highestHeld, lowestFailed };
};

/**
 * One more server, run under `--cpu-prof`, at half the fixed rate: the profiler slows the server down, and a
 * saturated server would spend the window on its backlog. The profile gives the shares; the CPU per request
 * comes from the unprofiled runs.
 */
const PROFILE_INTERVAL_MICROS = 2000;

const profileServer = async (setup: SessionSetup): Promise<ProfileResult | undefined> => {
  const { options, log } = setup;
  const { profileSeconds } = options.load;
  if (profileSeconds <= 0) return undefined;
  const rate = Math.max(10, Math.round(options.load.ratePerSecond / 2));
  log(`notes-load profile: ${rate}/s for ${profileSeconds} s under --cpu-prof`);
  const profileDir = await mkdtemp(join(tmpdir(), 'memory-hub-bench-profile-'));
  try {
    const session = await openSession(setup, 200, rate, {
      cpuProfileDir: profileDir,
      cpuProfileIntervalMicros: PROFILE_INTERVAL_MICROS,
    });
    let measured: MeasuredPhase;
    try {
      measured = await session.phase(rate, profileSeconds, options.drainTimeoutMs);
    } finally {
      await session.close();
    }
    const [file] = await cpuProfilesIn(profileDir);
    if (!file) throw new Error('The profiled server wrote no .cpuprofile');
    const breakdown = await analyseCpuProfile(file, measured.windowMicros.from, measured.windowMicros.to);
    log(
      `  main thread busy ${((breakdown.busyMilliseconds / breakdown.windowMilliseconds) * 100).toFixed(0)}% under the profiler; ` +
        `server CPU ${formatShare(measured.serverCpuShare)}`,
    );
    return {
      breakdown,
      requests: measured.analysis.scheduled,
      analysis: measured.analysis,
      serverCpuShare: measured.serverCpuShare,
      intervalMicros: PROFILE_INTERVAL_MICROS,
    };
  } finally {
    await rm(profileDir, { recursive: true, force: true });
  }
};

export const notesLoadScenario: Scenario = {
  name: 'notes-load',
  run: (options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> =>
    withSessionSetup(options, log, async (setup) => {
      const runs = await runFixedRates(setup, {
        name: 'notes-load',
        budget: NOTES_BUDGET,
        open: (index) => openSession(setup, index, options.load.ratePerSecond),
        complete: (run, measured, workload): LoadRun => ({
          ...run,
          meanListedItems: meanListedItems(measured),
          patchFallbacks: workload.patchFallbacks,
        }),
      });
      const ceiling = await findCeiling(setup);
      // The profile only explains the figures; a failure there must not lose them.
      const profile = await profileServer(setup).catch((error: unknown) => {
        log(`  the profiled run failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      return notesLoadReport(options, runs, ceiling, profile);
    }),
};
