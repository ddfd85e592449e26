/**
 * A session is one fresh local server with a workload on it: data folder (issuer copied from the template
 * the tokens were minted in), server child process, keep-alive client, the workload's seed and a warm-up.
 * Every load scenario runs its phases on sessions; only the workload differs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from '../bench-options.ts';
import { busyCores, machineCpu } from '../machine-info.ts';
import {
  type CostReport,
  cpuShare,
  createDataDir,
  mainThreadShare,
  removeDataDir,
  ServerProcess,
  type ServerStartOptions,
} from '../server-process.ts';
import { monotonicMicros } from '../server-profile.ts';
import { HttpClient } from './http-client.ts';
import { mintIdentities, type PrincipalIdentity } from './identities.ts';
import { type Outcome, type PhaseResult, runOpenLoop } from './open-loop-driver.ts';
import { analysePhase, type PhaseAnalysis } from './phase-analysis.ts';

/** What a session drives: a starting state, and requests of a fixed set of operations. */
export interface SessionWorkload<Operation extends string = string> {
  /** The operationIds it sends, which are also the keys of the server's cost report. */
  readonly operations: readonly Operation[];
  /** Puts the starting state in place before any measured request. */
  seed(client: HttpClient): Promise<SeedResult>;
  /** Picks the next operation by weight and sends it. */
  issue(client: HttpClient): Promise<Outcome>;
  /** Sends one request of the given operation (or, when that is impossible just now, a stand-in it names). */
  issueOperation(client: HttpClient, operation: Operation): Promise<Outcome>;
}

export interface SeedResult {
  /** Requests sent, by operationId: the server books them before the measured ones. */
  requests: Readonly<Record<string, number>>;
  /** What was seeded, for the log ("380 seed notes"). */
  description: string;
}

type OperationOf<Workload extends SessionWorkload> = Workload['operations'][number];

/** Latency of requests sent one at a time, by operation. */
export type ServiceTime<Operation extends string> = Record<Operation, { latencies: number[]; errors: number }>;

export interface SessionSetup {
  options: BenchOptions;
  identities: readonly PrincipalIdentity[];
  /** Folder holding the issuer the tokens were minted with. */
  issuerTemplate: string;
  log: (line: string) => void;
}

/** Mints the workload's principals into a temporary issuer, runs `scenario` with them, and removes the issuer. */
export const withSessionSetup = async <T>(
  options: BenchOptions,
  log: (line: string) => void,
  scenario: (setup: SessionSetup) => Promise<T>,
): Promise<T> => {
  const issuerTemplate = await mkdtemp(join(tmpdir(), 'memory-hub-bench-issuer-'));
  try {
    const minting = performance.now();
    const identities = await mintIdentities(issuerTemplate, options.workload);
    log(`minted ${identities.length} tokens in ${((performance.now() - minting) / 1000).toFixed(1)} s`);
    return await scenario({ options, identities, issuerTemplate, log });
  } finally {
    await rm(issuerTemplate, { recursive: true, force: true });
  }
};

export interface MeasuredPhase {
  phase: PhaseResult;
  analysis: PhaseAnalysis;
  /** Server process CPU as a share of one core. */
  serverCpuShare: number | undefined;
  /** Of it, the main thread's, as a share of one core. */
  mainThreadCpuShare: number | undefined;
  /** Cores kept busy by everything else on the machine (not the server, not the load generator). */
  otherCpuCores: number | undefined;
  /** How long the phase waited for the machine to quieten before it started, s. */
  quietWaitSeconds: number;
  /** CLOCK_MONOTONIC µs at the first arrival and after the last answer (comparable with a V8 profile). */
  windowMicros: { from: number; to: number };
}

/** Before a phase, wait for other load on the machine to drop below this many cores… */
const QUIET_MACHINE_CORES = 0.3;
/** …but no longer than this. */
const QUIET_MACHINE_MAX_WAIT_MS = 15_000;

export class LoadSession<Workload extends SessionWorkload> {
  readonly server: ServerProcess;
  readonly workload: Workload;
  /** Requests per operation answered before the measured phases (seeding and warm-up). */
  readonly unmeasured: Record<string, number>;
  readonly setupSeconds: number;
  #client: HttpClient;

  private constructor(
    server: ServerProcess,
    client: HttpClient,
    workload: Workload,
    unmeasured: Record<string, number>,
    setupSeconds: number,
  ) {
    this.server = server;
    this.#client = client;
    this.workload = workload;
    this.unmeasured = unmeasured;
    this.setupSeconds = setupSeconds;
  }

  static async open<Workload extends SessionWorkload>(
    setup: SessionSetup,
    workload: Workload,
    warmupRate: number,
    serverOptions: ServerStartOptions = {},
  ): Promise<LoadSession<Workload>> {
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
      const seeded = await workload.seed(client);
      const unmeasured: Record<string, number> = { ...seeded.requests };
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
        `  server ${server.url} (pid ${server.pid}): ${seeded.description}, ` +
          `${options.load.warmupSeconds} s warm-up; ready after ${setupSeconds.toFixed(1)} s`,
      );
      return new LoadSession(server, client, workload, unmeasured, setupSeconds);
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
      analysis: analysePhase(phase, this.workload.operations),
      serverCpuShare,
      mainThreadCpuShare: mainThreadShare(before, after),
      otherCpuCores:
        machine === undefined || serverCpuShare === undefined
          ? undefined
          : Math.max(0, machine - serverCpuShare - phase.generatorCpuShare),
      quietWaitSeconds,
      windowMicros: { from, to },
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
  async serviceTime(requests: number): Promise<ServiceTime<OperationOf<Workload>>> {
    const operations: readonly OperationOf<Workload>[] = this.workload.operations;
    const result = Object.fromEntries(
      operations.map((operation) => [operation, { latencies: [] as number[], errors: 0 }]),
    ) as ServiceTime<OperationOf<Workload>>;
    for (const operation of operations) {
      for (let index = 0; index < requests; index++) {
        const started = performance.now();
        const outcome = await this.workload.issueOperation(this.#client, operation);
        const entry = result[outcome.operation as OperationOf<Workload>];
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
