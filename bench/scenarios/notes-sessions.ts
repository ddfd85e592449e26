/**
 * A session is one fresh local server with the notes workload on it: data folder (issuer copied from the
 * template the tokens were minted in), server child process, keep-alive client, seeded notes and warm-up.
 */
import type { BenchOptions } from '../bench-options.ts';
import { HttpClient } from '../load/http-client.ts';
import { NOTE_OPERATIONS, type NoteOperation, NotesWorkload, type PrincipalIdentity } from '../load/notes-workload.ts';
import { type PhaseResult, runOpenLoop } from '../load/open-loop-driver.ts';
import { analysePhase, type PhaseAnalysis } from '../load/phase-analysis.ts';
import { busyCores, machineCpu } from '../machine-info.ts';
import {
  type CostReport,
  cpuShare,
  createDataDir,
  removeDataDir,
  ServerProcess,
  type ServerStartOptions,
} from '../server-process.ts';
import { monotonicMicros } from '../server-profile.ts';

export interface SessionSetup {
  options: BenchOptions;
  identities: readonly PrincipalIdentity[];
  /** Folder holding the issuer the tokens were minted with. */
  issuerTemplate: string;
  log: (line: string) => void;
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((total, value) => total + value, 0) / values.length;

export interface MeasuredPhase {
  phase: PhaseResult;
  analysis: PhaseAnalysis;
  /** Server process CPU as a share of one core. */
  serverCpuShare: number | undefined;
  /** Cores kept busy by everything else on the machine (not the server, not the load generator). */
  otherCpuCores: number | undefined;
  /** How long the phase waited for the machine to quieten before it started, s. */
  quietWaitSeconds: number;
  /** CLOCK_MONOTONIC µs at the first arrival and after the last answer (comparable with a V8 profile). */
  windowMicros: { from: number; to: number };
  /** Notes returned per list call, on average (lists get dearer as the table fills). */
  meanListedItems: number;
}

/** Before a phase, wait for other load on the machine to drop below this many cores… */
const QUIET_MACHINE_CORES = 0.3;
/** …but no longer than this. */
const QUIET_MACHINE_MAX_WAIT_MS = 15_000;

export class NotesSession {
  readonly server: ServerProcess;
  readonly workload: NotesWorkload;
  /** Requests per operation answered before the measured phases (seeding and warm-up). */
  readonly unmeasured: Record<string, number>;
  readonly setupSeconds: number;
  #client: HttpClient;

  private constructor(
    server: ServerProcess,
    client: HttpClient,
    workload: NotesWorkload,
    unmeasured: Record<string, number>,
    setupSeconds: number,
  ) {
    this.server = server;
    this.#client = client;
    this.workload = workload;
    this.unmeasured = unmeasured;
    this.setupSeconds = setupSeconds;
  }

  static async open(
    setup: SessionSetup,
    seedOffset: number,
    warmupRate: number,
    serverOptions: ServerStartOptions = {},
  ): Promise<NotesSession> {
    const { options, log } = setup;
    const started = performance.now();
    const dataDir = await createDataDir(setup.issuerTemplate);
    let server: ServerProcess;
    try {
      server = await ServerProcess.start(dataDir, serverOptions);
    } catch (error) {
      await removeDataDir(dataDir);
      throw error;
    }
    const client = new HttpClient(server.url);
    try {
      const workload = new NotesWorkload(setup.identities, options.workload, seedOffset);
      const seeded = await workload.seed(client);
      const unmeasured: Record<string, number> = { createNote: seeded.requests };
      if (options.load.warmupSeconds > 0) {
        const warmup = await runOpenLoop({
          ratePerSecond: warmupRate,
          durationSeconds: options.load.warmupSeconds,
          drainTimeoutMs: options.drainTimeoutMs,
          issue: () => workload.issue(client),
        });
        for (const sample of warmup.samples) unmeasured[sample.operation] = (unmeasured[sample.operation] ?? 0) + 1;
      }
      const setupSeconds = (performance.now() - started) / 1000;
      log(
        `  server ${server.url} (pid ${server.pid}): ${workload.principals.length} principals, ${seeded.requests} seed notes, ` +
          `${options.load.warmupSeconds} s warm-up; ready after ${setupSeconds.toFixed(1)} s`,
      );
      return new NotesSession(server, client, workload, unmeasured, setupSeconds);
    } catch (error) {
      client.close();
      server.kill();
      await removeDataDir(dataDir);
      throw error;
    }
  }

  /** One open-loop phase, with the server's CPU use alongside. */
  async phase(ratePerSecond: number, durationSeconds: number, drainTimeoutMs: number): Promise<MeasuredPhase> {
    const quietWaitSeconds = await this.waitForQuietMachine();
    const machineBefore = await machineCpu();
    const before = await this.server.cpu();
    const client = this.#client;
    const listedBefore = this.workload.listedItems.length;
    const from = monotonicMicros();
    const phase = await runOpenLoop({
      ratePerSecond,
      durationSeconds,
      drainTimeoutMs,
      issue: () => this.workload.issue(client),
    });
    const to = monotonicMicros();
    const after = await this.server.cpu();
    const machineAfter = await machineCpu();
    if (phase.abandoned > 0) {
      // Drop the connections of the unanswered requests and let the server finish what it had queued,
      // so the next phase starts from an idle server.
      client.close();
      this.#client = new HttpClient(this.server.url);
      await this.server.waitForIdle();
    }
    const serverCpuShare = cpuShare(before, after);
    const machine = busyCores(machineBefore, machineAfter);
    return {
      phase,
      analysis: analysePhase(phase, NOTE_OPERATIONS),
      serverCpuShare,
      otherCpuCores:
        machine === undefined || serverCpuShare === undefined
          ? undefined
          : Math.max(0, machine - serverCpuShare - phase.generatorCpuShare),
      quietWaitSeconds,
      windowMicros: { from, to },
      meanListedItems: mean(this.workload.listedItems.slice(listedBefore)),
    };
  }

  /**
   * Waits, in one-second looks, until everything else on the machine (other processes, hypervisor steal)
   * keeps fewer than QUIET_MACHINE_CORES busy, or QUIET_MACHINE_MAX_WAIT_MS has passed. Returns seconds waited.
   */
  async waitForQuietMachine(): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < QUIET_MACHINE_MAX_WAIT_MS) {
      const machineBefore = await machineCpu();
      const serverBefore = await this.server.cpu();
      const selfBefore = process.cpuUsage();
      const lookStarted = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const self = process.cpuUsage(selfBefore);
      const machine = busyCores(machineBefore, await machineCpu());
      const server = cpuShare(serverBefore, await this.server.cpu());
      if (machine === undefined || server === undefined) break;
      const other = machine - server - (self.user + self.system) / 1000 / (performance.now() - lookStarted);
      if (other < QUIET_MACHINE_CORES) break;
    }
    return (performance.now() - started) / 1000;
  }

  /** `requests` of each operation, one at a time: latency with no queueing anywhere. */
  async serviceTime(requests: number): Promise<Record<NoteOperation, { latencies: number[]; errors: number }>> {
    const result = Object.fromEntries(
      NOTE_OPERATIONS.map((operation) => [operation, { latencies: [] as number[], errors: 0 }]),
    ) as Record<NoteOperation, { latencies: number[]; errors: number }>;
    for (const operation of NOTE_OPERATIONS) {
      for (let index = 0; index < requests; index++) {
        const started = performance.now();
        const outcome = await this.workload.issueOperation(this.#client, operation);
        const entry = result[outcome.operation as NoteOperation];
        entry.latencies.push(performance.now() - started);
        if (outcome.status < 200 || outcome.status > 299) entry.errors += 1;
      }
    }
    return result;
  }

  /** Stops the server and returns its cost report; the data folder is removed. */
  async close(): Promise<CostReport> {
    this.#client.close();
    try {
      return await this.server.stop();
    } finally {
      this.server.kill();
      await removeDataDir(this.server.dataDir);
    }
  }
}
