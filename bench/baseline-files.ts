/**
 * The committed baselines (`bench/baselines/`) that reports set today's figures beside: one JSON file per baseline,
 * named after it, written by the bench and never edited by hand. `bundle-baseline.ts` and `cost-baseline.ts` say
 * what each kind holds.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const BASELINE_DIR = 'bench/baselines';

/** `bench/baselines/<prefix><name as a slug>.json`. */
export const baselinePath = (prefix: string, name: string): string =>
  join(
    BASELINE_DIR,
    `${prefix}${
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'baseline'
    }.json`,
  );

/** When a revision was committed, seconds since the epoch; git fails on a revision it does not know. */
export const committedAt = (revision: string): number =>
  Number(execFileSync('git', ['show', '-s', '--format=%ct', revision], { encoding: 'utf8' }).trim());

/**
 * Every baseline in `dir` whose file name starts with `prefix`, parsed, in the order of the revisions they were
 * measured at (oldest first, as `revisionTime` dates them).
 */
export const readBaselines = async <Baseline extends { readonly revision: string }>(
  dir: string,
  prefix: string,
  schema: { parse(value: unknown): Baseline },
  revisionTime: (revision: string) => number = committedAt,
): Promise<Baseline[]> => {
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (name) => name.startsWith(prefix) && name.endsWith('.json'),
  );
  const baselines = await Promise.all(
    names.map(async (name) => schema.parse(JSON.parse(await readFile(join(dir, name), 'utf8')))),
  );
  return baselines
    .map((baseline) => ({ baseline, at: revisionTime(baseline.revision) }))
    .sort((a, b) => a.at - b.at)
    .map(({ baseline }) => baseline);
};

/** Writes a baseline to `path`, laid out the way the project's formatter checks it (it is committed). */
export const writeBaselineFile = async (path: string, baseline: unknown): Promise<void> => {
  await writeFile(path, `${JSON.stringify(baseline, null, 2)}\n`);
  execFileSync('npx', ['biome', 'format', '--write', path], { stdio: 'ignore' });
};
