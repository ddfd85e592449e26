/** What a benchmark run does, for the full run (`npm run bench`) and the development run (`-- --quick`). */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface LoadPhaseOptions {
  /** Arrivals per second, scheduled by wall clock (open loop). */
  ratePerSecond: number;
  durationSeconds: number;
  /** Unmeasured traffic at the same rate before each measured phase (JIT, connection pool, caches). */
  warmupSeconds: number;
  /** How many times the measured phase runs, each against a fresh server. */
  runs: number;
  /** After each run, requests per operation sent one at a time (no queueing): the service time. */
  serviceTimeRequests: number;
  /** Length of the extra, CPU-profiled phase at the same rate (0 = no profile). */
  profileSeconds: number;
}

export interface CeilingOptions {
  startRatePerSecond: number;
  stepRatePerSecond: number;
  stepSeconds: number;
  maxSteps: number;
  /** Bisection steps between the last rate that held and the first that did not. */
  refineSteps: number;
  /** Bisection rates are rounded to a multiple of this. */
  refineResolutionPerSecond: number;
  /** Stop climbing once the ceiling search has used this much time. */
  timeBudgetSeconds: number;
}

export interface WorkloadOptions {
  tenants: number;
  principals: number;
  /** Relative weights of the operations. */
  mix: { create: number; get: number; list: number; patch: number };
  listPageSize: number;
  seed: number;
}

export interface BenchOptions {
  quick: boolean;
  /** Where the Markdown report goes; undefined = stdout only. */
  reportPath: string | undefined;
  resultsDir: string;
  scenarios: readonly string[] | undefined;
  workload: WorkloadOptions;
  load: LoadPhaseOptions;
  /** The notes-load ceiling search. */
  ceiling: CeilingOptions;
  /** The learning-load ceiling search: its workload saturates this machine well below the notes rates. */
  learningCeiling: CeilingOptions;
  /** Fresh-process imports per bundle. */
  coldInitRuns: number;
  /** Also save the bundle figures as the committed baseline (`bench/baselines/`), under this name. */
  saveBundleBaseline: string | undefined;
  /** Also save the load scenarios' cost figures as the committed baseline (`bench/baselines/`), under this name. */
  saveCostBaseline: string | undefined;
  /** Said in the cost baseline: how this bench and meter came to the revision measured, when not its own. */
  costBaselineHarness: string | undefined;
  /** Requests still unanswered this long after the last arrival count as errors (timeout). */
  drainTimeoutMs: number;
}

const workload: WorkloadOptions = {
  tenants: 5,
  principals: 250,
  mix: { create: 25, get: 35, list: 25, patch: 15 },
  listPageSize: 20,
  seed: 20_241_101,
};

type RunChoices = 'reportPath' | 'scenarios' | 'saveBundleBaseline' | 'saveCostBaseline' | 'costBaselineHarness';

export const FULL: Omit<BenchOptions, RunChoices> = {
  quick: false,
  resultsDir: 'bench/.results',
  workload,
  load: {
    ratePerSecond: 120,
    durationSeconds: 60,
    warmupSeconds: 5,
    runs: 3,
    serviceTimeRequests: 100,
    profileSeconds: 10,
  },
  ceiling: {
    startRatePerSecond: 120,
    stepRatePerSecond: 120,
    stepSeconds: 15,
    maxSteps: 12,
    refineSteps: 3,
    refineResolutionPerSecond: 10,
    timeBudgetSeconds: 160,
  },
  learningCeiling: {
    startRatePerSecond: 30,
    stepRatePerSecond: 15,
    stepSeconds: 15,
    maxSteps: 10,
    refineSteps: 2,
    refineResolutionPerSecond: 5,
    timeBudgetSeconds: 180,
  },
  coldInitRuns: 7,
  drainTimeoutMs: 15_000,
};

export const QUICK: Omit<BenchOptions, RunChoices> = {
  ...FULL,
  quick: true,
  load: {
    ratePerSecond: 120,
    durationSeconds: 10,
    warmupSeconds: 2,
    runs: 1,
    serviceTimeRequests: 30,
    profileSeconds: 5,
  },
  ceiling: {
    startRatePerSecond: 120,
    stepRatePerSecond: 120,
    stepSeconds: 5,
    maxSteps: 3,
    refineSteps: 1,
    refineResolutionPerSecond: 10,
    timeBudgetSeconds: 30,
  },
  learningCeiling: {
    startRatePerSecond: 30,
    stepRatePerSecond: 15,
    stepSeconds: 5,
    maxSteps: 4,
    refineSteps: 1,
    refineResolutionPerSecond: 5,
    timeBudgetSeconds: 40,
  },
  coldInitRuns: 3,
  drainTimeoutMs: 5_000,
};

const USAGE = `Usage: npm run bench [-- --quick] [--out FILE] [--stdout] [--scenario NAME ...]
  --quick          10 s phases, one run, short ceiling; never writes BENCHMARKS.md
                   (report goes to bench/.results/BENCHMARKS.quick.md and stdout)
  --out FILE       write the Markdown report to FILE instead
  --stdout         print the report only
  --scenario NAME  run only this scenario (repeatable): notes-load, learning-load, lambda-bundles,
                   retrieval-quality; search-load (about half an hour) runs only when named
  --save-bundle-baseline NAME
                   also save the bundle figures as the committed baseline later reports compare with
  --save-cost-baseline NAME
                   also save the load scenarios' cost per million as a committed baseline
  --cost-baseline-harness TEXT
                   how the bench and meter came to the revision measured, said in that baseline`;

export const parseBenchOptions = (argv: readonly string[]): BenchOptions => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      stdout: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      'save-bundle-baseline': { type: 'string' },
      'save-cost-baseline': { type: 'string' },
      'cost-baseline-harness': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const base = values.quick ? QUICK : FULL;
  const defaultReport = values.quick ? `${base.resultsDir}/BENCHMARKS.quick.md` : 'BENCHMARKS.md';
  const reportPath = values.stdout ? undefined : (values.out ?? defaultReport);
  if (values.quick && reportPath !== undefined && resolve(reportPath) === resolve('BENCHMARKS.md'))
    throw new Error('--quick never overwrites BENCHMARKS.md; choose another --out');
  return {
    ...base,
    reportPath,
    scenarios: values.scenario,
    saveBundleBaseline: values['save-bundle-baseline'],
    saveCostBaseline: values['save-cost-baseline'],
    costBaselineHarness: values['cost-baseline-harness'],
  };
};
