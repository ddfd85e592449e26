/** A description of the machine a run was measured on, for the report header. */
import { readFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  logicalCpus: number;
  totalMemoryGiB: number;
  nodeVersion: string;
  platform: string;
  loadAverageAtStart: number[];
}

export const describeMachine = async (): Promise<MachineInfo> => {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const cpuinfo = await readFile('/proc/cpuinfo', 'utf8');
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux; os.cpus() is good enough
  }
  return {
    cpuModel,
    logicalCpus: availableParallelism(),
    totalMemoryGiB: totalmem() / 1024 ** 3,
    nodeVersion: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverageAtStart: loadavg(),
  };
};

export interface MachineCpuSample {
  /** Busy CPU time of the whole machine, all cores, ms (from /proc/stat). */
  busyMilliseconds: number;
  at: number;
}

/** The machine's busy CPU time so far (Linux only; undefined elsewhere). */
export const machineCpu = async (): Promise<MachineCpuSample | undefined> => {
  try {
    const stat = await readFile('/proc/stat', 'utf8');
    const fields = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...; busy = all but idle and iowait.
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return { busyMilliseconds: ((user + nice + system + irq + softirq + steal) * 1000) / 100, at: performance.now() };
  } catch {
    return undefined;
  }
};

/** Cores the machine kept busy between two samples. */
export const busyCores = (before: MachineCpuSample | undefined, after: MachineCpuSample | undefined) =>
  before && after && after.at > before.at
    ? (after.busyMilliseconds - before.busyMilliseconds) / (after.at - before.at)
    : undefined;
