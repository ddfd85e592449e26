/**
 * Notes under load: the mixed create / get / list / patch workload at a fixed arrival rate against the
 * local server (independent runs, each on a fresh server), the throughput ceiling, where the server's CPU
 * goes, and what each operation costs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from '../bench-options.ts';
import { mintIdentities, NOTE_OPERATIONS } from '../load/notes-workload.ts';
import { judgePhase } from '../load/phase-analysis.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import { cpuProfilesIn } from '../server-process.ts';
import { analyseCpuProfile } from '../server-profile.ts';
import { percentile } from '../stats.ts';
import { NOTES_BUDGET } from './notes-budget.ts';
import {
  type CeilingResult,
  type CeilingStep,
  type LoadRun,
  notesLoadReport,
  type ProfileResult,
} from './notes-report.ts';
import { type MeasuredPhase, NotesSession, type SessionSetup } from './notes-sessions.ts';

const runFixedRate = async (setup: SessionSetup, index: number): Promise<LoadRun> => {
  const { options, log } = setup;
  const { ratePerSecond, durationSeconds, runs, serviceTimeRequests } = options.load;
  log(`notes-load run ${index + 1}/${runs}: ${ratePerSecond}/s for ${durationSeconds} s`);
  const session = await NotesSession.open(setup, index, ratePerSecond);
  let measured: MeasuredPhase;
  let serviceTime: Awaited<ReturnType<NotesSession['serviceTime']>>;
  const phaseStart = Date.now();
  let phaseEnd = phaseStart;
  try {
    measured = await session.phase(ratePerSecond, durationSeconds, options.drainTimeoutMs);
    phaseEnd = Date.now();
    serviceTime = await session.serviceTime(serviceTimeRequests);
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
  for (const operation of NOTE_OPERATIONS) {
    const entries = costReport[operation]?.handlerMilliseconds ?? [];
    const alone = serviceTime[operation].latencies.length;
    handlerUnderLoad[operation] = entries.slice(session.unmeasured[operation] ?? 0, entries.length - alone);
    handlerAlone[operation] = entries.slice(entries.length - alone);
  }
  const run: LoadRun = {
    index,
    analysis: measured.analysis,
    verdict: judgePhase(measured.analysis, NOTES_BUDGET),
    serverCpuShare: measured.serverCpuShare,
    otherCpuCores: measured.otherCpuCores,
    quietWaitSeconds: measured.quietWaitSeconds,
    setupSeconds: session.setupSeconds,
    costReport,
    handlerUnderLoad,
    handlerAlone,
    serviceTime,
    meanListedItems: measured.meanListedItems,
    patchFallbacks: session.workload.patchFallbacks,
    relayLag,
  };
  log(
    `  ${describePhase(run.analysis)}; server CPU ${formatShare(run.serverCpuShare)}; other load ${formatCores(run.otherCpuCores)}`,
  );
  log(
    `  one at a time: ${NOTE_OPERATIONS.map((operation) => `${operation} ${percentile(serviceTime[operation].latencies, 50).toFixed(1)}`).join(', ')} ms (p50)`,
  );
  return run;
};

const formatShare = (share: number | undefined): string =>
  share === undefined ? '—' : `${(share * 100).toFixed(0)}% of a core`;

const formatCores = (cores: number | undefined): string => (cores === undefined ? '—' : `${cores.toFixed(2)} cores`);

const describePhase = (analysis: LoadRun['analysis']): string =>
  `achieved ${analysis.achievedRatePerSecond.toFixed(1)}/s, errors ${analysis.errors}, p95 ` +
  NOTE_OPERATIONS.map((operation) => `${operation} ${analysis.byOperation[operation]?.p95.toFixed(1)}`).join(', ');

/** Other load above this many cores makes a failed ceiling step worth repeating. */
const BUSY_MACHINE_CORES = 0.5;

const findCeiling = async (setup: SessionSetup): Promise<CeilingResult> => {
  const { options, log } = setup;
  const { ceiling } = options;
  log(
    `notes-load ceiling: ${ceiling.stepSeconds} s steps from ${ceiling.startRatePerSecond}/s by ${ceiling.stepRatePerSecond}/s`,
  );
  const session = await NotesSession.open(setup, 100, ceiling.startRatePerSecond);
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
      meanListedItems: measured.meanListedItems,
      discarded,
    });
    log(
      `  ${rate}/s ${verdict.held ? 'held' : `did not hold (${verdict.reasons.join('; ')})`}: ` +
        `${describePhase(measured.analysis)}; server CPU ${formatShare(measured.serverCpuShare)}; ` +
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
    const session = await NotesSession.open(setup, 200, rate, {
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
  async run(options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> {
    const issuerTemplate = await mkdtemp(join(tmpdir(), 'memory-hub-bench-issuer-'));
    try {
      const minting = performance.now();
      const identities = await mintIdentities(issuerTemplate, options.workload);
      log(`minted ${identities.length} tokens in ${((performance.now() - minting) / 1000).toFixed(1)} s`);
      const setup: SessionSetup = { options, identities, issuerTemplate, log };
      const runs: LoadRun[] = [];
      for (let index = 0; index < options.load.runs; index++) runs.push(await runFixedRate(setup, index));
      const ceiling = await findCeiling(setup);
      // The profile only explains the figures; a failure there must not lose them.
      const profile = await profileServer(setup).catch((error: unknown) => {
        log(`  the profiled run failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      return notesLoadReport(options, runs, ceiling, profile);
    } finally {
      await rm(issuerTemplate, { recursive: true, force: true });
    }
  },
};
