/** Small, dependency-free statistics for latency samples (milliseconds). */

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export const percentileOfSorted = (sorted: readonly number[], percent: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((percent / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
};

export const percentile = (values: readonly number[], percent: number): number =>
  percentileOfSorted(
    [...values].sort((a, b) => a - b),
    percent,
  );

export const summarize = (values: readonly number[]): LatencySummary => {
  const sorted = [...values].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
    p50: percentileOfSorted(sorted, 50),
    p95: percentileOfSorted(sorted, 95),
    p99: percentileOfSorted(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
};

/** Median of a few figures (e.g. one per run); for an even count, the mean of the middle two. */
export const median = (values: readonly number[]): number => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** Arithmetic mean; NaN when empty. */
export const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : sum(values) / values.length;

/** Groups items by a key, keeping insertion order. */
export const groupBy = <T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
};

/** A deterministic PRNG (mulberry32) so a workload's choices repeat from run to run. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};
