/**
 * Bundle figures measured at earlier revisions, committed so the report can set each entry's figures beside
 * them, oldest first. A baseline is written by `npm run bench -- --scenario lambda-bundles
 * --save-bundle-baseline NAME` (at the revision it stands for) and never edited by hand.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { BundleMeasurement } from './lambda-bundles.ts';

export const BUNDLE_BASELINE_DIR = 'bench/baselines';
const FILE_PREFIX = 'lambda-bundles.';

/** `bench/baselines/lambda-bundles.<name as a slug>.json`. */
export const bundleBaselinePath = (name: string): string =>
  join(
    BUNDLE_BASELINE_DIR,
    `${FILE_PREFIX}${
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'baseline'
    }.json`,
  );

const BaselineBundle = z.object({
  entry: z.string(),
  handlers: z.array(z.string()),
  bytes: z.number(),
  gzipBytes: z.number(),
  importMilliseconds: z.array(z.number()),
  importMedian: z.number(),
  processMedian: z.number(),
});

export const BundleBaseline = z.object({
  /** What the baseline stands for, e.g. "before capability modules". */
  name: z.string(),
  revision: z.string(),
  measuredAt: z.string(),
  command: z.string(),
  bundles: z.array(BaselineBundle),
});
export type BundleBaseline = z.infer<typeof BundleBaseline>;
export type BaselineBundle = z.infer<typeof BaselineBundle>;

/** Every committed baseline, in the order of the revisions they were measured at (oldest first). */
export const readBundleBaselines = async (dir = BUNDLE_BASELINE_DIR): Promise<BundleBaseline[]> => {
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (name) => name.startsWith(FILE_PREFIX) && name.endsWith('.json'),
  );
  const baselines = await Promise.all(
    names.map(async (name) => BundleBaseline.parse(JSON.parse(await readFile(join(dir, name), 'utf8')))),
  );
  const committedAt = (revision: string) =>
    Number(execFileSync('git', ['show', '-s', '--format=%ct', revision], { encoding: 'utf8' }).trim());
  return baselines
    .map((baseline) => ({ baseline, at: committedAt(baseline.revision) }))
    .sort((a, b) => a.at - b.at)
    .map(({ baseline }) => baseline);
};

/** Writes the figures as the baseline of this name, replacing an earlier one of the same name; returns its path. */
export const writeBundleBaseline = async (
  baseline: Omit<BundleBaseline, 'bundles'>,
  measured: readonly BundleMeasurement[],
): Promise<string> => {
  const path = bundleBaselinePath(baseline.name);
  const bundles = measured
    .filter((bundle) => bundle.failure === undefined)
    .map(({ entry, handlers, bytes, gzipBytes, importMilliseconds, importMedian, processMedian }) => ({
      entry,
      handlers,
      bytes,
      gzipBytes,
      importMilliseconds: importMilliseconds.map(round),
      importMedian: round(importMedian),
      processMedian: round(processMedian),
    }));
  await writeFile(path, `${JSON.stringify(BundleBaseline.parse({ ...baseline, bundles }), null, 2)}\n`);
  // Committed, so laid out the way the project's formatter checks it.
  execFileSync('npx', ['biome', 'format', '--write', path], { stdio: 'ignore' });
  return path;
};

/**
 * The baseline bundle each handler was deployed from: entries move and regroup between revisions, handler
 * export names (one function each) stay.
 */
export const baselineOf = (baseline: BundleBaseline, handler: string): BaselineBundle | undefined =>
  baseline.bundles.find((bundle) => bundle.handlers.includes(handler));

const round = (milliseconds: number): number => Math.round(milliseconds * 100) / 100;
