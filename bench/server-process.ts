/**
 * The local server as a child process (`bin/local-server.ts` on this Node), so the load generator never
 * shares the server's event loop. Fresh data folder, free port, quiet logs, and the per-operation cost
 * report that the server writes when it is stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { OperationCost } from '../lambdas/local/request-cost-meter.ts';

export type CostReport = Record<string, OperationCost>;

const STARTUP_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const LISTENING = /Memory Hub listening on (http:\/\/\S+)/;
/**
 * The bench's configuration: the load generator's one app client may make 5000 requests a second (the default is
 * 100), so the 120/s runs and the ceiling search measure the service rather than the per-client throttle. Leases
 * keep their default size, so their writes stay in the figures.
 */
const BENCH_SERVER_CONFIG = resolve('bench/server-config.json');

/**
 * A fresh data folder. With `issuerFrom`, the local issuer (signing key, JWKS, registered clients) is
 * copied from that folder, so tokens minted there are accepted by a server on the new one.
 */
export const createDataDir = async (issuerFrom?: string): Promise<string> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-bench-'));
  if (issuerFrom) await cp(join(issuerFrom, 'issuer'), join(dataDir, 'issuer'), { recursive: true });
  return dataDir;
};

export const removeDataDir = (dataDir: string): Promise<void> => rm(dataDir, { recursive: true, force: true });

export interface CpuSample {
  /** User + system CPU time of the whole process (all threads), milliseconds. */
  cpuMilliseconds: number;
  /**
   * Of it, the main thread's: the one event loop that parses every request, runs every handler and consumer and
   * ranks every search (the engine has a thread of its own). Near a whole core, requests queue for it.
   */
  mainThreadCpuMilliseconds?: number;
  at: number;
}

export interface ServerStartOptions {
  /** Run under `--cpu-prof`, writing the profile here when the server exits. */
  cpuProfileDir?: string;
  /** Sampling interval of the profiler, µs (Node's default is 1000). */
  cpuProfileIntervalMicros?: number;
  /**
   * Have the server's cost meter read every engine request and answer (index writes, key caches, the events each
   * operation caused): the cost runs do; the latency runs do not, since no function in AWS pays for that parse.
   */
  meterEngineWork?: boolean;
  /** How long the start may take: a large data folder's journal takes a while to replay. */
  startupTimeoutMs?: number;
}

export class ServerProcess {
  /** `[applied at (epoch ms), commit → last consumer applied (ms)]` per event, read when the server stops. */
  relayLagSamples: readonly [number, number][] = [];
  readonly url: string;
  readonly dataDir: string;
  readonly #child: ChildProcess;
  readonly #costReportPath: string;
  readonly #exited: Promise<number | null>;
  #output = '';

  private constructor(child: ChildProcess, url: string, dataDir: string, costReportPath: string, output: string) {
    this.#child = child;
    this.url = url;
    this.dataDir = dataDir;
    this.#costReportPath = costReportPath;
    this.#output = output;
    this.#exited = new Promise((resolveExit) => {
      if (child.exitCode !== null) resolveExit(child.exitCode);
      else child.once('exit', (code) => resolveExit(code));
    });
    child.stdout?.on('data', (chunk: Buffer) => this.#remember(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#remember(chunk));
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Starts `bin/local-server.ts`; with `cpuProfileDir`, under `--cpu-prof` (the profile is written on exit). */
  static async start(dataDir: string, options: ServerStartOptions = {}): Promise<ServerProcess> {
    const costReportPath = join(dataDir, 'cost-report.json');
    const profiling = options.cpuProfileDir
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${options.cpuProfileDir}`,
          `--cpu-prof-interval=${options.cpuProfileIntervalMicros ?? 1000}`,
        ]
      : [];
    const child = spawn(process.execPath, [...profiling, resolve('bin/local-server.ts')], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        PORT: '0',
        MEMORY_HUB_DATA_DIR: dataDir,
        MEMORY_HUB_CONFIG: BENCH_SERVER_CONFIG,
        MEMORY_HUB_LOG: 'quiet',
        MEMORY_HUB_COST_REPORT: costReportPath,
        MEMORY_HUB_RELAY_LAG_REPORT: join(dataDir, RELAY_LAG_FILE),
        ...(options.meterEngineWork && { MEMORY_HUB_METER_ENGINE_WORK: '1' }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      const startupTimeoutMs = options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`The local server did not start within ${startupTimeoutMs} ms:\n${output}`));
      }, startupTimeoutMs);
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = LISTENING.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          child.stderr?.off('data', onData);
          resolveUrl(match[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`The local server exited with ${code} before listening:\n${output}`));
      });
    });
    return new ServerProcess(child, url, dataDir, costReportPath, output);
  }

  /** CPU time the server process has used so far (Linux /proc; undefined elsewhere). */
  async cpu(): Promise<CpuSample | undefined> {
    if (this.#child.pid === undefined) return undefined;
    try {
      const pid = this.#child.pid;
      const [process, mainThread] = await Promise.all([
        readFile(`/proc/${pid}/stat`, 'utf8'),
        // The main thread's id is the process id.
        readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8').catch(() => undefined),
      ]);
      return {
        cpuMilliseconds: cpuMillisecondsOf(process),
        ...(mainThread !== undefined && { mainThreadCpuMilliseconds: cpuMillisecondsOf(mainThread) }),
        at: performance.now(),
      };
    } catch {
      return undefined;
    }
  }

  /** SIGTERM, wait for the exit, and read the cost report the server wrote on the way out. */
  async stop(): Promise<CostReport> {
    if (this.#child.exitCode === null) this.#child.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((resolveTimeout) =>
      setTimeout(() => resolveTimeout('timeout'), STOP_TIMEOUT_MS).unref(),
    );
    const code = await Promise.race([this.#exited, timeout]);
    if (code === 'timeout') {
      this.#child.kill('SIGKILL');
      throw new Error(`The local server did not stop within ${STOP_TIMEOUT_MS} ms:\n${this.#output}`);
    }
    if (code !== 0) throw new Error(`The local server exited with ${code}:\n${this.#output}`);
    this.relayLagSamples = JSON.parse(await readFile(join(this.dataDir, RELAY_LAG_FILE), 'utf8')) as [number, number][];
    return JSON.parse(await readFile(this.#costReportPath, 'utf8')) as CostReport;
  }

  /**
   * Waits until the server has (almost) stopped using CPU — after a phase that left requests unanswered,
   * the server is still working through them. Gives up after `timeoutMs`.
   */
  async waitForIdle(options: { belowShare?: number; windowMs?: number; timeoutMs?: number } = {}): Promise<boolean> {
    const { belowShare = 0.1, windowMs = 500, timeoutMs = 30_000 } = options;
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const before = await this.cpu();
      await new Promise((resolveWait) => setTimeout(resolveWait, windowMs));
      const share = cpuShare(before, await this.cpu());
      if (share === undefined || share < belowShare) return true;
    }
    return false;
  }

  /** Last resort when a scenario fails: make sure the child does not outlive the bench. */
  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }

  #remember(chunk: Buffer): void {
    this.#output = (this.#output + chunk.toString('utf8')).slice(-8_000);
  }
}

const RELAY_LAG_FILE = 'relay-lag.json';

/** USER_HZ; 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a /proc `stat` line (fields 14 and 15, after the parenthesised command name), in ms. */
const cpuMillisecondsOf = (stat: string): number => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
};

/** CPU use between two samples as a share of one core. */
export const cpuShare = (before: CpuSample | undefined, after: CpuSample | undefined): number | undefined =>
  shareBetween(before, after, (sample) => sample.cpuMilliseconds);

/** The main thread's CPU between two samples as a share of one core (undefined where /proc has no tasks). */
export const mainThreadShare = (before: CpuSample | undefined, after: CpuSample | undefined): number | undefined =>
  shareBetween(before, after, (sample) => sample.mainThreadCpuMilliseconds);

const shareBetween = (
  before: CpuSample | undefined,
  after: CpuSample | undefined,
  milliseconds: (sample: CpuSample) => number | undefined,
): number | undefined => {
  const from = before && milliseconds(before);
  const to = after && milliseconds(after);
  if (!before || !after || from === undefined || to === undefined || after.at <= before.at) return undefined;
  return (to - from) / (after.at - before.at);
};

/** The `.cpuprofile` files a profiled server wrote into `directory`. */
export const cpuProfilesIn = async (directory: string): Promise<string[]> =>
  (await readdir(directory)).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(directory, name));
