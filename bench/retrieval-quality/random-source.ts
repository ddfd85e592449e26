import { seededRandom } from '../stats.ts';

/** Seeded choices for the generator: the same seed makes the same set. */
export class RandomSource {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Cannot pick from an empty list');
    return item;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index -= 1) {
      const other = Math.floor(this.next() * (index + 1));
      const item = copy[index] as T;
      copy[index] = copy[other] as T;
      copy[other] = item;
    }
    return copy;
  }

  /** `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    if (count > items.length) throw new Error(`Cannot sample ${count} of ${items.length} items`);
    return this.shuffle(items).slice(0, count);
  }
}

/** Draws without replacement from named pools, so an anchor (a name, a place) is used once in the whole set. */
export class UniqueDraws {
  readonly #remaining = new Map<string, string[]>();
  readonly #random: RandomSource;
  readonly #pools: Readonly<Record<string, readonly string[]>>;

  constructor(random: RandomSource, pools: Readonly<Record<string, readonly string[]>>) {
    this.#random = random;
    this.#pools = pools;
  }

  take(pool: string): string {
    let left = this.#remaining.get(pool);
    if (!left) {
      const items = this.#pools[pool];
      if (!items) throw new Error(`Unknown pool "${pool}"`);
      left = this.#random.shuffle(items);
      this.#remaining.set(pool, left);
    }
    const item = left.pop();
    if (item === undefined) throw new Error(`Pool "${pool}" is exhausted`);
    return item;
  }
}
