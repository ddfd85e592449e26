import type { SparseVector } from './sparse-vector.ts';
import { resized } from './typed-arrays.ts';

/*
 * The vectors of an index by dimension: for each dimension, the slots whose vector is non-zero there, with that
 * value. A hashed embedding sets about ten of its 256 components, so a query's dot products with every vector
 * touch only the slots listed under the query's few dimensions — a few per cent of the values a scan of the
 * vectors reads, and none of the cache misses of reading ten scattered floats from each of 100,000 vectors.
 *
 * Entries are only ever appended: a slot rewritten (replaced, or refilled by the vector moved into it on a
 * removal) takes a new generation and appends its entries afresh, and an entry whose generation is not its
 * slot's is passed over. The lists are rebuilt once they hold more stale entries than live ones.
 */

const INITIAL_LIST_CAPACITY = 16;
/** Stale entries tolerated, beyond as many as are live, before the lists are rebuilt. */
const STALE_ALLOWANCE = 4096;

class PostingList {
  length = 0;
  slots: Int32Array;
  generations: Uint32Array;
  /** What the index stores for the slot at this dimension: a float, or an int8 step before its scale. */
  values: Float32Array;

  constructor(capacity: number) {
    this.slots = new Int32Array(capacity);
    this.generations = new Uint32Array(capacity);
    this.values = new Float32Array(capacity);
  }

  push(slot: number, generation: number, value: number): void {
    if (this.length === this.slots.length) this.#grow();
    this.slots[this.length] = slot;
    this.generations[this.length] = generation;
    this.values[this.length] = value;
    this.length += 1;
  }

  #grow(): void {
    const capacity = Math.max(INITIAL_LIST_CAPACITY, this.slots.length * 2);
    this.slots = resized(this.slots, capacity);
    this.generations = resized(this.generations, capacity);
    this.values = resized(this.values, capacity);
  }
}

/** How an index lets the postings read its vectors. */
export interface StoredVectors {
  readonly dimensions: number;
  /** Slots in use: every one below this holds a vector. */
  size(): number;
  /** Slot after slot, `dimensions` numbers each: float32 values, or int8 steps. Replaced as the index grows. */
  stored(): Float32Array | Int8Array;
}

export class DimensionPostings {
  readonly #vectors: StoredVectors;
  #lists: PostingList[];
  #generations = new Uint32Array(INITIAL_LIST_CAPACITY);
  /** Non-zero components of each slot's current vector. */
  #nonZeros = new Int32Array(INITIAL_LIST_CAPACITY);
  #live = 0;
  #entries = 0;

  constructor(vectors: StoredVectors) {
    this.#vectors = vectors;
    this.#lists = [];
    this.#rebuild();
  }

  /** Non-zero components over every vector: what a search through the postings reads at most. */
  get liveEntries(): number {
    return this.#live;
  }

  /** The slot now holds a new vector (added, replaced, or moved in): its earlier entries are stale. */
  rewrite(slot: number): void {
    this.#ensureSlots(slot + 1);
    this.#live -= this.#nonZeros[slot] ?? 0;
    const generation = ((this.#generations[slot] ?? 0) + 1) >>> 0;
    this.#generations[slot] = generation;
    this.#nonZeros[slot] = this.#append(slot, generation);
    this.#live += this.#nonZeros[slot] ?? 0;
    if (this.#entries > 2 * this.#live + STALE_ALLOWANCE) this.#rebuild();
  }

  /** The slot holds nothing any more (the last slot, after a removal moved its vector). */
  clear(slot: number): void {
    if (slot >= this.#generations.length) return;
    this.#live -= this.#nonZeros[slot] ?? 0;
    this.#nonZeros[slot] = 0;
    this.#generations[slot] = ((this.#generations[slot] ?? 0) + 1) >>> 0;
  }

  /**
   * Σ over the query's components of value × stored, per slot, into `dots` (zeroed, one per slot): in the query's
   * dimension order, the order a scan multiplies and adds them in, so each sum is the scan's to the last bit.
   */
  accumulate(query: SparseVector, dots: Float64Array): void {
    const generations = this.#generations;
    for (let term = 0; term < query.indices.length; term += 1) {
      const list = this.#lists[query.indices[term] as number];
      if (!list) continue;
      const weight = query.values[term] as number;
      const { slots, values, length } = list;
      const listGenerations = list.generations;
      for (let entry = 0; entry < length; entry += 1) {
        const slot = slots[entry] as number;
        if (listGenerations[entry] !== generations[slot]) continue;
        dots[slot] = (dots[slot] as number) + weight * (values[entry] as number);
      }
    }
  }

  #append(slot: number, generation: number): number {
    const { dimensions } = this.#vectors;
    const stored = this.#vectors.stored();
    let count = 0;
    for (let dimension = 0, position = slot * dimensions; dimension < dimensions; dimension += 1, position += 1) {
      const value = stored[position] as number;
      if (value === 0) continue;
      this.#lists[dimension]?.push(slot, generation, value);
      count += 1;
    }
    this.#entries += count;
    return count;
  }

  /** Every list afresh, sized by a first count so that none grows while it is filled. */
  #rebuild(): void {
    const { dimensions } = this.#vectors;
    const size = this.#vectors.size();
    const stored = this.#vectors.stored();
    const counts = new Int32Array(dimensions);
    for (let slot = 0, position = 0; slot < size; slot += 1)
      for (let dimension = 0; dimension < dimensions; dimension += 1, position += 1)
        if (stored[position] !== 0) counts[dimension] = (counts[dimension] as number) + 1;
    this.#lists = Array.from(counts, (count) => new PostingList(count + INITIAL_LIST_CAPACITY));
    this.#entries = 0;
    this.#live = 0;
    this.#ensureSlots(size);
    this.#nonZeros.fill(0);
    for (let slot = 0; slot < size; slot += 1) {
      this.#nonZeros[slot] = this.#append(slot, this.#generations[slot] ?? 0);
      this.#live += this.#nonZeros[slot] ?? 0;
    }
  }

  #ensureSlots(slots: number): void {
    if (slots <= this.#generations.length) return;
    const capacity = Math.max(slots, this.#generations.length * 2);
    this.#generations = resized(this.#generations, capacity);
    this.#nonZeros = resized(this.#nonZeros, capacity);
  }
}
