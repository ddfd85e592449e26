/**
 * Cost figures measured at earlier revisions, committed so the report can set each operation's cost per million
 * beside them, oldest first (like `bundle-baseline.ts` for bundles). A baseline is written by
 * `npm run bench -- --scenario notes-load --scenario learning-load --save-cost-baseline NAME` and never edited by
 * hand. The corrected model needs the meter of `lambdas/local/request-cost-meter.ts` in the server it measures, so a
 * baseline of a revision older than the meter is measured with this revision's bench and meter laid over that
 * revision's service (its `command` and `harness` say so).
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { BASELINE_DIR, baselinePath, committedAt, readBaselines, writeBaselineFile } from './baseline-files.ts';

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

/**
 * Every committed cost baseline, in the order of the revisions they were measured at (oldest first); one of a
 * revision git does not know comes last.
 */
export const readCostBaselines = (dir = BASELINE_DIR): Promise<CostBaseline[]> =>
  readBaselines(dir, FILE_PREFIX, CostBaseline, (revision) => {
    try {
      return committedAt(revision);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  });

/**
 * Adds one scenario's figures to the baseline of this name (the notes and learning scenarios each write theirs
 * into the same file), replacing that scenario's earlier figures; returns its path.
 */
export const writeCostBaseline = async (
  header: Omit<CostBaseline, 'operations' | 'workloads'>,
  figures: Pick<CostBaseline, 'operations' | 'workloads'>,
): Promise<string> => {
  const path = baselinePath(FILE_PREFIX, header.name);
  const earlier = await readFile(path, 'utf8')
    .then((text) => CostBaseline.parse(JSON.parse(text)))
    .catch(() => undefined);
  const baseline = CostBaseline.parse({
    ...header,
    operations: { ...(earlier?.operations ?? {}), ...round(figures.operations) },
    workloads: { ...(earlier?.workloads ?? {}), ...round(figures.workloads) },
  });
  await writeBaselineFile(path, baseline);
  return path;
};

/** Figures to five significant decimals: what a cost per million needs, without float noise in the diff. */
const round = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value, (_, each) => (typeof each === 'number' ? Math.round(each * 1e5) / 1e5 : each)));
