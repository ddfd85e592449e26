/**
 * Cost figures measured at earlier revisions, committed so the report can set each operation's cost per million
 * beside them, oldest first (like `bundle-baseline.ts` for bundles). A baseline is written by
 * `npm run bench -- --scenario notes-load --scenario learning-load --save-cost-baseline NAME` and never edited by
 * hand. The corrected model needs the meter of `lambdas/local/request-cost-meter.ts` in the server it measures, so a
 * baseline of a revision older than the meter is measured with this revision's bench and meter laid over that
 * revision's service (its `command` and `harness` say so).
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';

export const COST_BASELINE_DIR = 'bench/baselines';
const FILE_PREFIX = 'cost-per-million.';

const Breakdown = z.object({
  apiGateway: z.number(),
  lambda: z.number(),
  dynamoDb: z.number(),
  kms: z.number(),
  eventBridge: z.number(),
  eventFunctions: z.number(),
  logs: z.number(),
  xray: z.number(),
  total: z.number(),
});
export type CostBreakdown = z.infer<typeof Breakdown>;

export const CostBaseline = z.object({
  /** What the baseline stands for, e.g. "before issue 11". */
  name: z.string(),
  revision: z.string(),
  measuredAt: z.string(),
  command: z.string(),
  /** How the measuring bench and meter came to the revision (when they are not that revision's own). */
  harness: z.string().optional(),
  /** By operation: today's model's total and the corrected model's breakdown, US dollars per million. */
  operations: z.record(z.string(), z.object({ today: z.number(), corrected: Breakdown })),
  /** By workload (`notes`, `learning`): the mixed workload's cost per million requests. */
  workloads: z.record(z.string(), z.object({ today: z.number(), corrected: z.number() })),
});
export type CostBaseline = z.infer<typeof CostBaseline>;

/** `bench/baselines/cost-per-million.<name as a slug>.json`. */
export const costBaselinePath = (name: string): string =>
  join(
    COST_BASELINE_DIR,
    `${FILE_PREFIX}${
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'baseline'
    }.json`,
  );

/** Every committed cost baseline, in the order of the revisions they were measured at (oldest first). */
export const readCostBaselines = async (dir = COST_BASELINE_DIR): Promise<CostBaseline[]> => {
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (name) => name.startsWith(FILE_PREFIX) && name.endsWith('.json'),
  );
  const baselines = await Promise.all(
    names.map(async (name) => CostBaseline.parse(JSON.parse(await readFile(join(dir, name), 'utf8')))),
  );
  const committedAt = (revision: string) => {
    try {
      return Number(execFileSync('git', ['show', '-s', '--format=%ct', revision], { encoding: 'utf8' }).trim());
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  };
  return baselines
    .map((baseline) => ({ baseline, at: committedAt(baseline.revision) }))
    .sort((a, b) => a.at - b.at)
    .map(({ baseline }) => baseline);
};

/**
 * Adds one scenario's figures to the baseline of this name (the notes and learning scenarios each write theirs
 * into the same file), replacing that scenario's earlier figures; returns its path.
 */
export const writeCostBaseline = async (
  header: Omit<CostBaseline, 'operations' | 'workloads'>,
  figures: Pick<CostBaseline, 'operations' | 'workloads'>,
): Promise<string> => {
  const path = costBaselinePath(header.name);
  const earlier = await readFile(path, 'utf8')
    .then((text) => CostBaseline.parse(JSON.parse(text)))
    .catch(() => undefined);
  const baseline = CostBaseline.parse({
    ...header,
    operations: { ...(earlier?.operations ?? {}), ...round(figures.operations) },
    workloads: { ...(earlier?.workloads ?? {}), ...round(figures.workloads) },
  });
  await writeFile(path, `${JSON.stringify(baseline, null, 2)}\n`);
  // Committed, so laid out the way the project's formatter checks it.
  execFileSync('npx', ['biome', 'format', '--write', path], { stdio: 'ignore' });
  return path;
};

/** Figures to five significant decimals: what a cost per million needs, without float noise in the diff. */
const round = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value, (_, each) => (typeof each === 'number' ? Math.round(each * 1e5) / 1e5 : each)));
