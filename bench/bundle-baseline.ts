/**
 * Bundle figures measured at an earlier revision, committed so the report can set each entry's figures beside
 * them. A baseline is written by `npm run bench -- --scenario lambda-bundles --save-bundle-baseline NAME` and
 * never edited by hand.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { BundleMeasurement } from './lambda-bundles.ts';

export const BUNDLE_BASELINE_PATH = 'bench/baselines/lambda-bundles.json';

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

export const readBundleBaseline = async (path = BUNDLE_BASELINE_PATH): Promise<BundleBaseline | undefined> => {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : BundleBaseline.parse(JSON.parse(text));
};

export const writeBundleBaseline = async (
  baseline: Omit<BundleBaseline, 'bundles'>,
  measured: readonly BundleMeasurement[],
  path = BUNDLE_BASELINE_PATH,
): Promise<void> => {
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
};

/**
 * The baseline bundle each handler was deployed from: entries move and regroup between revisions, handler
 * export names (one function each) stay.
 */
export const baselineOf = (baseline: BundleBaseline, handler: string): BaselineBundle | undefined =>
  baseline.bundles.find((bundle) => bundle.handlers.includes(handler));

const round = (milliseconds: number): number => Math.round(milliseconds * 100) / 100;
