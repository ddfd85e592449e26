/**
 * Bundle figures measured at earlier revisions, committed so the report can set each entry's figures beside
 * them, oldest first. A baseline is written by `npm run bench -- --scenario lambda-bundles
 * --save-bundle-baseline NAME` (at the revision it stands for) and never edited by hand.
 */
import * as z from 'zod';
import { BASELINE_DIR, baselinePath, readBaselines, writeBaselineFile } from './baseline-files.ts';
import type { BundleMeasurement } from './lambda-bundles.ts';

const FILE_PREFIX = 'lambda-bundles.';

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
export const readBundleBaselines = (dir = BASELINE_DIR): Promise<BundleBaseline[]> =>
  readBaselines(dir, FILE_PREFIX, BundleBaseline);

/** Writes the figures as the baseline of this name, replacing an earlier one of the same name; returns its path. */
export const writeBundleBaseline = async (
  baseline: Omit<BundleBaseline, 'bundles'>,
  measured: readonly BundleMeasurement[],
): Promise<string> => {
  const path = baselinePath(FILE_PREFIX, baseline.name);
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
  await writeBaselineFile(path, BundleBaseline.parse({ ...baseline, bundles }));
  return path;
};

/**
 * The baseline bundle each handler was deployed from: entries move and regroup between revisions, handler
 * export names (one function each) stay.
 */
export const baselineOf = (baseline: BundleBaseline, handler: string): BaselineBundle | undefined =>
  baseline.bundles.find((bundle) => bundle.handlers.includes(handler));

const round = (milliseconds: number): number => Math.round(milliseconds * 100) / 100;
