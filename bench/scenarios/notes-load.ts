/**
 * Notes under load: the mixed create / get / list / patch workload at a fixed arrival rate against the
 * local server (independent runs, each on a fresh server), the throughput ceiling, where the server's CPU
 * goes, and what each operation costs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from '../bench-options.ts';
import { findCeiling } from '../load/ceiling-search.ts';
import { type FixedRateRun, formatShare, runCostMeasurement, runFixedRates } from '../load/fixed-rate-run.ts';
import { LoadSession, type MeasuredPhase, type SessionSetup, withSessionSetup } from '../load/load-session.ts';
import { LISTED_ITEMS, NOTE_OPERATIONS, type NoteOperation, NotesWorkload } from '../load/notes-workload.ts';
import { meanObserved } from '../load/phase-analysis.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import { cpuProfilesIn, type ServerStartOptions } from '../server-process.ts';
import { analyseCpuProfile } from '../server-profile.ts';
import { NOTES_BUDGET } from './notes-budget.ts';
import { type LoadRun, notesLoadReport, type ProfileResult } from './notes-report.ts';
import { priceRuns } from './scenario-costs.ts';

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
      const fixedRate = {
        name: 'notes-load',
        budget: NOTES_BUDGET,
        open: (index: number, serverOptions?: ServerStartOptions) =>
          openSession(setup, index, options.load.ratePerSecond, serverOptions),
        complete: (run: FixedRateRun<NoteOperation>, measured: MeasuredPhase, workload: NotesWorkload): LoadRun => ({
          ...run,
          meanListedItems: meanListedItems(measured),
          patchFallbacks: workload.patchFallbacks,
        }),
      };
      const runs = await runFixedRates(setup, fixedRate);
      const costRun = await runCostMeasurement(setup, fixedRate);
      const ceiling = await findCeiling(setup, {
        name: 'notes-load',
        budget: NOTES_BUDGET,
        ceiling: options.ceiling,
        open: (warmupRate) => openSession(setup, 100, warmupRate),
        figures: (measured) => ({ meanListedItems: meanListedItems(measured) }),
      });
      // The profile only explains the figures; a failure there must not lose them.
      const profile = await profileServer(setup).catch((error: unknown) => {
        log(`  the profiled run failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      const costs = await priceRuns(options, [costRun], NOTE_OPERATIONS, 'notes', log);
      return notesLoadReport(options, runs, ceiling, profile, { ...costs, run: costRun });
    }),
};
