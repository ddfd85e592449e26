import { resized } from './typed-arrays.ts';
import { ExactNearestNeighbours, type NearestNeighbours, type Neighbour } from './vector-search.ts';

/*
 * Approximate nearest neighbours by cosine: a hierarchical navigable small-world graph (HNSW, Malkov & Yashunin
 * 2018, arXiv:1603.09320) — layered proximity graphs searched greedily from the top, neighbours chosen by the
 * paper's heuristic (algorithm 4), so clustered vectors keep links across clusters. Written here because no
 * library fit the Lambda bundle (pure JS or WASM, well kept, fast to build): see LIBRARY-CHOICES.md.
 *
 * - Deterministic: a node's layer comes from a hash of its id, ties break on the node's insertion number, so the
 *   same changes in the same order give the same graph and the same answers.
 * - Removal marks a node deleted: it still routes searches but is never returned; a replaced vector is a
 *   removal and a new node. When deleted nodes outnumber live ones the graph is rebuilt from the live ones.
 * - The cosine of each answer is computed as `ExactNearestNeighbours` computes it, so the two agree on scores
 *   and only recall differs; a `limit` near the index's size is answered by a full scan (exact, and cheaper).
 */

export interface ApproximateNeighboursOptions {
  readonly dimensions: number;
  /** Links per node on the upper layers; twice as many on layer 0. */
  readonly connections?: number;
  /** Candidates considered while linking a new node. */
  readonly buildBreadth?: number;
  /** Candidates considered by a search (at least its `limit`). */
  readonly searchBreadth?: number;
}

export const DEFAULT_CONNECTIONS = 16;
export const DEFAULT_BUILD_BREADTH = 64;
/** efSearch 128: recall@10 0.97 at 100,000 vectors (0.92 with 64), 3.4 ms of CPU at p95. */
export const DEFAULT_SEARCH_BREADTH = 128;
const INITIAL_CAPACITY = 256;
/** A search asking for this share of the live vectors or more is a full scan. */
const SCAN_SHARE = 0.2;

/** A binary heap of (distance, node) pairs on typed arrays; `max` keeps the largest distance on top. */
class NodeHeap {
  #distances = new Float64Array(64);
  #nodes = new Int32Array(64);
  size = 0;
  readonly #max: boolean;

  constructor(max: boolean) {
    this.#max = max;
  }

  clear(): void {
    this.size = 0;
  }

  topDistance(): number {
    return this.#distances[0] ?? 0;
  }

  topNode(): number {
    return this.#nodes[0] ?? -1;
  }

  push(distance: number, node: number): void {
    if (this.size === this.#nodes.length) {
      const distances = new Float64Array(this.size * 2);
      distances.set(this.#distances);
      this.#distances = distances;
      const nodes = new Int32Array(this.size * 2);
      nodes.set(this.#nodes);
      this.#nodes = nodes;
    }
    let at = this.size++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#before(distance, node, this.#distances[parent] ?? 0, this.#nodes[parent] ?? 0)) break;
      this.#distances[at] = this.#distances[parent] ?? 0;
      this.#nodes[at] = this.#nodes[parent] ?? 0;
      at = parent;
    }
    this.#distances[at] = distance;
    this.#nodes[at] = node;
  }

  pop(): void {
    const last = --this.size;
    if (last <= 0) return;
    const distance = this.#distances[last] ?? 0;
    const node = this.#nodes[last] ?? 0;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= last) break;
      const right = child + 1;
      if (
        right < last &&
        this.#before(
          this.#distances[right] ?? 0,
          this.#nodes[right] ?? 0,
          this.#distances[child] ?? 0,
          this.#nodes[child] ?? 0,
        )
      )
        child = right;
      if (!this.#before(this.#distances[child] ?? 0, this.#nodes[child] ?? 0, distance, node)) break;
      this.#distances[at] = this.#distances[child] ?? 0;
      this.#nodes[at] = this.#nodes[child] ?? 0;
      at = child;
    }
    this.#distances[at] = distance;
    this.#nodes[at] = node;
  }

  /** The pairs, nearest first (the heap is emptied). */
  drainNearestFirst(): { distances: number[]; nodes: number[] } {
    const distances: number[] = [];
    const nodes: number[] = [];
    while (this.size > 0) {
      distances.push(this.topDistance());
      nodes.push(this.topNode());
      this.pop();
    }
    if (this.#max) {
      distances.reverse();
      nodes.reverse();
    }
    return { distances, nodes };
  }

  /** Whether (d1, n1) belongs above (d2, n2): nearer (or, in a max heap, farther), ties by node number. */
  #before(d1: number, n1: number, d2: number, n2: number): boolean {
    return this.#max ? d1 > d2 || (d1 === d2 && n1 > n2) : d1 < d2 || (d1 === d2 && n1 < n2);
  }
}

/**
 * Σ a[aStart + i]·b[bStart + i] for i < length, four products a step: the build computes millions of these, and
 * four partial sums let the engine overlap the multiplications. The offsets are in range by construction.
 */
const dotProduct = (
  a: Float64Array | Float32Array,
  aStart: number,
  b: Float32Array,
  bStart: number,
  length: number,
) => {
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  let index = 0;
  for (; index + 3 < length; index += 4) {
    sum0 += (a[aStart + index] as number) * (b[bStart + index] as number);
    sum1 += (a[aStart + index + 1] as number) * (b[bStart + index + 1] as number);
    sum2 += (a[aStart + index + 2] as number) * (b[bStart + index + 2] as number);
    sum3 += (a[aStart + index + 3] as number) * (b[bStart + index + 3] as number);
  }
  for (; index < length; index += 1) sum0 += (a[aStart + index] as number) * (b[bStart + index] as number);
  return sum0 + sum1 + sum2 + sum3;
};

/** 32-bit FNV-1a of the id's UTF-16 code units, mixed (murmur3 finaliser): a node's layer, the same everywhere. */
const hashOf = (id: string): number => {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1) hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
};

export class ApproximateNearestNeighbours implements NearestNeighbours {
  readonly dimensions: number;
  readonly connections: number;
  readonly buildBreadth: number;
  readonly searchBreadth: number;
  readonly #layerFactor: number;
  readonly #baseConnections: number;

  #capacity = 0;
  #count = 0;
  #vectors = new Float32Array(0);
  #norms = new Float64Array(0);
  #ids: string[] = [];
  #deleted = new Uint8Array(0);
  #deletedCount = 0;
  /** Layer 0: `#baseConnections` slots per node and how many are used. */
  #baseLinks = new Int32Array(0);
  #baseLinkCounts = new Uint16Array(0);
  /** Layers 1 and up, for the few nodes that reach them: `#upperLinks[node][layer - 1]`. */
  #upperLinks: (number[][] | undefined)[] = [];
  readonly #nodeOf = new Map<string, number>();
  #entry = -1;
  #topLayer = -1;
  #visited = new Uint32Array(0);
  #visitEpoch = 0;
  readonly #candidates = new NodeHeap(false);
  readonly #found = new NodeHeap(true);

  constructor(options: ApproximateNeighboursOptions) {
    if (!Number.isInteger(options.dimensions) || options.dimensions <= 0)
      throw new RangeError('dimensions must be a positive integer');
    this.dimensions = options.dimensions;
    this.connections = options.connections ?? DEFAULT_CONNECTIONS;
    this.buildBreadth = options.buildBreadth ?? DEFAULT_BUILD_BREADTH;
    this.searchBreadth = options.searchBreadth ?? DEFAULT_SEARCH_BREADTH;
    if (!Number.isInteger(this.connections) || this.connections < 2 || this.connections > 255)
      throw new RangeError('connections must be an integer from 2 to 255');
    if (!Number.isInteger(this.buildBreadth) || this.buildBreadth < 1)
      throw new RangeError('buildBreadth must be positive');
    if (!Number.isInteger(this.searchBreadth) || this.searchBreadth < 1)
      throw new RangeError('searchBreadth must be positive');
    this.#baseConnections = this.connections * 2;
    this.#layerFactor = 1 / Math.log(this.connections);
    this.#grow(INITIAL_CAPACITY);
  }

  /** An index of the vectors of `entries`, added in their order. */
  static of(
    entries: Iterable<readonly [string, ArrayLike<number>]>,
    options: ApproximateNeighboursOptions,
  ): ApproximateNearestNeighbours {
    const index = new ApproximateNearestNeighbours(options);
    for (const [id, vector] of entries) index.upsert(id, vector);
    return index;
  }

  get size(): number {
    return this.#nodeOf.size;
  }

  has(id: string): boolean {
    return this.#nodeOf.has(id);
  }

  /** The live vectors, in insertion order. */
  *entries(): Generator<[string, Float32Array]> {
    for (let node = 0; node < this.#count; node += 1)
      if (this.#deleted[node] === 0) yield [this.#ids[node] ?? '', this.#vectorAt(node)];
  }

  upsert(id: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimensions)
      throw new RangeError(`A vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    const existing = this.#nodeOf.get(id);
    if (existing !== undefined) {
      if (this.#holds(existing, vector)) return;
      this.#markDeleted(existing);
    }
    this.#insert(id, vector);
    this.#compactIfMostlyDeleted();
  }

  remove(id: string): boolean {
    const node = this.#nodeOf.get(id);
    if (node === undefined) return false;
    this.#markDeleted(node);
    this.#compactIfMostlyDeleted();
    return true;
  }

  vectorOf(id: string): Float32Array | undefined {
    const node = this.#nodeOf.get(id);
    return node === undefined ? undefined : this.#vectorAt(node);
  }

  nearest(query: ArrayLike<number>, limit: number): Neighbour[] {
    if (query.length !== this.dimensions)
      throw new RangeError(`A query of ${query.length} dimensions in an index of ${this.dimensions}`);
    if (limit <= 0 || this.size === 0) return [];
    const values = Float64Array.from(query);
    let squares = 0;
    for (const value of values) squares += value * value;
    const queryNorm = Math.sqrt(squares);

    let nodes: number[];
    if (limit >= this.size * SCAN_SHARE) nodes = this.#live();
    else {
      let entry = this.#entry;
      let entryDistance = this.#distance(values, queryNorm, entry);
      for (let layer = this.#topLayer; layer > 0; layer -= 1)
        [entry, entryDistance] = this.#greedy(values, queryNorm, entry, entryDistance, layer);
      nodes = this.#searchLayer(
        values,
        queryNorm,
        entry,
        entryDistance,
        Math.max(limit, this.searchBreadth),
        0,
        true,
      ).nodes;
    }
    return nodes
      .map((node) => {
        const cosine = this.#exactCosine(values, queryNorm, node);
        return { id: this.#ids[node] ?? '', cosine, similarity: (cosine + 1) / 2 };
      })
      .sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  }

  /** The live vectors in the exact index's format: the graph is rebuilt from them when loaded. */
  serialize(): Uint8Array {
    const exact = new ExactNearestNeighbours({ dimensions: this.dimensions });
    for (const [id, vector] of this.entries()) exact.upsert(id, vector);
    return exact.serialize();
  }

  static deserialize(
    bytes: Uint8Array,
    options: Omit<ApproximateNeighboursOptions, 'dimensions'> = {},
  ): ApproximateNearestNeighbours {
    const exact = ExactNearestNeighbours.deserialize(bytes);
    return ApproximateNearestNeighbours.of(exact.entries(), { ...options, dimensions: exact.dimensions });
  }

  #insert(id: string, vector: ArrayLike<number>): void {
    if (this.#count === this.#capacity) this.#grow(this.#capacity * 2);
    const node = this.#count++;
    const start = node * this.dimensions;
    let squares = 0;
    for (let dimension = 0; dimension < this.dimensions; dimension += 1) {
      const value = vector[dimension] ?? 0;
      this.#vectors[start + dimension] = value;
    }
    for (let dimension = 0; dimension < this.dimensions; dimension += 1) {
      const value = this.#vectors[start + dimension] ?? 0;
      squares += value * value;
    }
    this.#norms[node] = Math.sqrt(squares);
    this.#ids[node] = id;
    this.#nodeOf.set(id, node);
    // Layer ⌊−ln(u)·mL⌋ for u uniform in (0, 1], drawn from the id: each layer up holds ≈ 1/connections as many.
    const uniform = (hashOf(id) + 1) / 4294967296;
    const layer = Math.min(31, Math.floor(-Math.log(uniform) * this.#layerFactor));
    if (layer > 0) this.#upperLinks[node] = Array.from({ length: layer }, () => []);

    if (this.#entry < 0) {
      this.#entry = node;
      this.#topLayer = layer;
      return;
    }
    const query = Float64Array.from(this.#vectors.subarray(start, start + this.dimensions));
    const queryNorm = this.#norms[node] ?? 0;
    let entry = this.#entry;
    let entryDistance = this.#distance(query, queryNorm, entry);
    for (let current = this.#topLayer; current > layer; current -= 1)
      [entry, entryDistance] = this.#greedy(query, queryNorm, entry, entryDistance, current);
    for (let current = Math.min(layer, this.#topLayer); current >= 0; current -= 1) {
      const found = this.#searchLayer(query, queryNorm, entry, entryDistance, this.buildBreadth, current, false);
      const most = current === 0 ? this.#baseConnections : this.connections;
      const chosen = this.#selectNeighbours(found.nodes, found.distances, this.connections);
      for (const neighbour of chosen) {
        this.#addLink(node, neighbour, current);
        this.#addLinkPruning(neighbour, node, current, most);
      }
      entry = found.nodes[0] ?? entry;
      entryDistance = found.distances[0] ?? entryDistance;
    }
    if (layer > this.#topLayer) {
      this.#entry = node;
      this.#topLayer = layer;
    }
  }

  /** Walks to the nearest node of one layer, one hop at a time. */
  #greedy(
    query: Float64Array,
    queryNorm: number,
    entry: number,
    entryDistance: number,
    layer: number,
  ): [number, number] {
    let best = entry;
    let bestDistance = entryDistance;
    for (let improved = true; improved; ) {
      improved = false;
      for (const neighbour of this.#linksOf(best, layer)) {
        const distance = this.#distance(query, queryNorm, neighbour);
        if (distance < bestDistance || (distance === bestDistance && neighbour < best)) {
          best = neighbour;
          bestDistance = distance;
          improved = true;
        }
      }
    }
    return [best, bestDistance];
  }

  /** The `breadth` nearest nodes of one layer reachable from `entry`, nearest first; deleted ones route but are left out when `liveOnly`. */
  #searchLayer(
    query: Float64Array,
    queryNorm: number,
    entry: number,
    entryDistance: number,
    breadth: number,
    layer: number,
    liveOnly: boolean,
  ): { distances: number[]; nodes: number[] } {
    const epoch = this.#nextEpoch();
    const candidates = this.#candidates;
    const found = this.#found;
    candidates.clear();
    found.clear();
    this.#visited[entry] = epoch;
    candidates.push(entryDistance, entry);
    if (!liveOnly || this.#deleted[entry] === 0) found.push(entryDistance, entry);
    while (candidates.size > 0) {
      const distance = candidates.topDistance();
      const node = candidates.topNode();
      if (found.size >= breadth && distance > found.topDistance()) break;
      candidates.pop();
      for (const neighbour of this.#linksOf(node, layer)) {
        if (this.#visited[neighbour] === epoch) continue;
        this.#visited[neighbour] = epoch;
        const neighbourDistance = this.#distance(query, queryNorm, neighbour);
        if (found.size < breadth || neighbourDistance < found.topDistance()) {
          candidates.push(neighbourDistance, neighbour);
          if (!liveOnly || this.#deleted[neighbour] === 0) {
            found.push(neighbourDistance, neighbour);
            if (found.size > breadth) found.pop();
          }
        }
      }
    }
    return found.drainNearestFirst();
  }

  /**
   * The paper's heuristic: take candidates nearest first, keeping one only when it is nearer to the new node than
   * to every neighbour kept so far (so links reach across clusters); fill up with the nearest pruned ones.
   */
  #selectNeighbours(nodes: readonly number[], distances: readonly number[], most: number): number[] {
    const kept: number[] = [];
    const pruned: number[] = [];
    for (const [position, candidate] of nodes.entries()) {
      if (kept.length >= most) break;
      const distance = distances[position] ?? 0;
      let diverse = true;
      for (const other of kept) {
        if (this.#between(candidate, other) < distance) {
          diverse = false;
          break;
        }
      }
      (diverse ? kept : pruned).push(candidate);
    }
    for (const candidate of pruned) {
      if (kept.length >= most) break;
      kept.push(candidate);
    }
    return kept;
  }

  #addLink(from: number, to: number, layer: number): void {
    if (layer === 0) {
      const count = this.#baseLinkCounts[from] ?? 0;
      this.#baseLinks[from * this.#baseConnections + count] = to;
      this.#baseLinkCounts[from] = count + 1;
    } else this.#upperLinks[from]?.[layer - 1]?.push(to);
  }

  /** Links `from` to `to`; when `from` has `most` links already, keeps the heuristic's choice among them all. */
  #addLinkPruning(from: number, to: number, layer: number, most: number): void {
    const links = [...this.#linksOf(from, layer)];
    if (links.length < most) {
      this.#addLink(from, to, layer);
      return;
    }
    links.push(to);
    const distances = links.map((link) => this.#between(from, link));
    const order = links
      .map((_, position) => position)
      .sort((a, b) => {
        const difference = (distances[a] ?? 0) - (distances[b] ?? 0);
        return difference !== 0 ? difference : (links[a] ?? 0) - (links[b] ?? 0);
      });
    const chosen = this.#selectNeighbours(
      order.map((position) => links[position] ?? 0),
      order.map((position) => distances[position] ?? 0),
      most,
    );
    if (layer === 0) {
      this.#baseLinks.set(chosen, from * this.#baseConnections);
      this.#baseLinkCounts[from] = chosen.length;
    } else {
      const upper = this.#upperLinks[from];
      if (upper) upper[layer - 1] = chosen;
    }
  }

  #linksOf(node: number, layer: number): ArrayLike<number> & Iterable<number> {
    if (layer > 0) return this.#upperLinks[node]?.[layer - 1] ?? [];
    const start = node * this.#baseConnections;
    return this.#baseLinks.subarray(start, start + (this.#baseLinkCounts[node] ?? 0));
  }

  /** Every live node: a full scan, ranked by the caller. */
  #live(): number[] {
    const live: number[] = [];
    for (let node = 0; node < this.#count; node += 1) if (this.#deleted[node] === 0) live.push(node);
    return live;
  }

  /** 1 − cosine, in [0, 2]; a zero vector is at distance 1 from everything, as its cosine is 0. */
  #distance(query: Float64Array, queryNorm: number, node: number): number {
    return 1 - this.#cosine(query, queryNorm, node);
  }

  /** The query in 64-bit, the vector as held, clamped to [−1, 1] (for routing: the sum's order is the fast one). */
  #cosine(query: Float64Array, queryNorm: number, node: number): number {
    const norm = this.#norms[node] ?? 0;
    if (norm === 0 || queryNorm === 0) return 0;
    const dot = dotProduct(query, 0, this.#vectors, node * this.dimensions, this.dimensions);
    return Math.min(1, Math.max(-1, dot / (norm * queryNorm)));
  }

  /** The cosine an answer reports, summed in the exact index's order, so the two report the same number. */
  #exactCosine(query: Float64Array, queryNorm: number, node: number): number {
    const norm = this.#norms[node] ?? 0;
    if (norm === 0 || queryNorm === 0) return 0;
    const vectors = this.#vectors;
    const start = node * this.dimensions;
    let dot = 0;
    for (let dimension = 0; dimension < this.dimensions; dimension += 1)
      dot += (query[dimension] ?? 0) * (vectors[start + dimension] ?? 0);
    return Math.min(1, Math.max(-1, dot / (norm * queryNorm)));
  }

  #between(a: number, b: number): number {
    const norm = (this.#norms[a] ?? 0) * (this.#norms[b] ?? 0);
    if (norm === 0) return 1;
    const dot = dotProduct(this.#vectors, a * this.dimensions, this.#vectors, b * this.dimensions, this.dimensions);
    return 1 - Math.min(1, Math.max(-1, dot / norm));
  }

  #vectorAt(node: number): Float32Array {
    const start = node * this.dimensions;
    return this.#vectors.slice(start, start + this.dimensions);
  }

  #holds(node: number, vector: ArrayLike<number>): boolean {
    const start = node * this.dimensions;
    for (let dimension = 0; dimension < this.dimensions; dimension += 1)
      if (this.#vectors[start + dimension] !== Math.fround(vector[dimension] ?? 0)) return false;
    return true;
  }

  #markDeleted(node: number): void {
    this.#deleted[node] = 1;
    this.#deletedCount += 1;
    const id = this.#ids[node];
    if (id !== undefined && this.#nodeOf.get(id) === node) this.#nodeOf.delete(id);
  }

  #compactIfMostlyDeleted(): void {
    if (this.#deletedCount < INITIAL_CAPACITY || this.#deletedCount <= this.size) return;
    const live = [...this.entries()];
    this.#capacity = 0;
    this.#count = 0;
    this.#deletedCount = 0;
    this.#vectors = new Float32Array(0);
    this.#norms = new Float64Array(0);
    this.#deleted = new Uint8Array(0);
    this.#baseLinks = new Int32Array(0);
    this.#baseLinkCounts = new Uint16Array(0);
    this.#nodeOf.clear();
    this.#ids = [];
    this.#upperLinks = [];
    this.#entry = -1;
    this.#topLayer = -1;
    this.#grow(Math.max(INITIAL_CAPACITY, live.length));
    for (const [id, vector] of live) this.#insert(id, vector);
  }

  #nextEpoch(): number {
    this.#visitEpoch += 1;
    if (this.#visitEpoch === 0xffffffff) {
      this.#visited.fill(0);
      this.#visitEpoch = 1;
    }
    return this.#visitEpoch;
  }

  #grow(capacity: number): void {
    this.#vectors = resized(this.#vectors, capacity * this.dimensions);
    this.#norms = resized(this.#norms, capacity);
    this.#deleted = resized(this.#deleted, capacity);
    this.#baseLinks = resized(this.#baseLinks, capacity * this.#baseConnections);
    this.#baseLinkCounts = resized(this.#baseLinkCounts, capacity);
    this.#visited = resized(this.#visited, capacity);
    this.#capacity = capacity;
  }
}

/**
 * The exact scan costs its vectors × dimensions: it passes ≈ 10 ms of CPU (p95, 2 cores) near 7.7 million values
 * — 30,000 vectors of 256 dimensions, 7,500 of 1,024 (4 ms at 10,000 × 256, 8 ms at 30,000 × 256, 25 ms at
 * 100,000 × 256; 10 ms at 7,500 × 1,024, 33 ms at 30,000 × 1,024). Above it a search goes through the graph.
 * These are dense vectors' figures: the exact index reads sparse ones (hashed texts) by dimension, at a fraction of
 * the cost (2.2 ms at 100,000 × 256), which is why the embedded index searches them exactly at every size.
 */
export const APPROXIMATE_ABOVE_VALUES = 7_680_000;

/** The vectors above which a search goes through the graph: 30,000 of 256 dimensions, 7,500 of 1,024. */
export const approximateAboveFor = (dimensions: number): number =>
  Math.max(1, Math.round(APPROXIMATE_ABOVE_VALUES / dimensions));

/**
 * Vectors linked into the graph by each search while it is built, for 256 dimensions (fewer for more: the cost of a
 * link follows the dimensions). Linking one costs 1.2 ms of CPU at 10,000 vectors of 256 dimensions and 2.7 ms at
 * 100,000, so a search then costs the exact scan (25 ms at 100,000) and ≈ 45 ms more, inside the 100 ms budget;
 * the graph of 100,000 vectors is complete after ≈ 6,000 searches.
 */
export const GRAPH_BUILD_SLICE = 16;

/** Vectors each search links while the graph is built: 16 of 256 dimensions, 4 of 1,024. */
export const graphBuildSliceFor = (dimensions: number): number =>
  Math.max(1, Math.round((GRAPH_BUILD_SLICE * 256) / dimensions));

export interface SwitchingNeighboursOptions {
  readonly dimensions: number;
  /** Vectors above which searches use the graph (default `approximateAboveFor(dimensions)`); dropped below half. */
  readonly approximateAbove?: number;
  /** Vectors each search links into the graph while it is built (default `graphBuildSliceFor(dimensions)`). */
  readonly buildSlice?: number;
  readonly approximate?: Omit<ApproximateNeighboursOptions, 'dimensions'>;
}

/**
 * Exact below a size, approximate above it. Building a graph costs far more than a scan (1–3 ms a vector: 266 s
 * of CPU for 100,000), so no single call pays for it: past the size, each `nearest` links `buildSlice` more
 * vectors into the graph and is answered by the exact scan until the graph holds them all (the vectors are held
 * twice meanwhile); from then on the graph answers and holds the vectors alone. An index that is only written
 * (the indexing consumer) never builds one. Below half the size, the exact index returns. The same calls in the
 * same order give the same answers.
 */
export class SwitchingNearestNeighbours implements NearestNeighbours {
  readonly dimensions: number;
  readonly approximateAbove: number;
  readonly buildSlice: number;
  readonly #approximateOptions: ApproximateNeighboursOptions;
  /** Every vector, while searches are exact (below the size, or while the graph is built). */
  #exact: ExactNearestNeighbours | undefined;
  #graph: ApproximateNearestNeighbours | undefined;
  /** While the graph is built: the ids it does not hold yet, in the order they will be linked. */
  #pending: Set<string> | undefined;

  constructor(options: SwitchingNeighboursOptions) {
    this.dimensions = options.dimensions;
    this.approximateAbove = options.approximateAbove ?? approximateAboveFor(options.dimensions);
    this.buildSlice = options.buildSlice ?? graphBuildSliceFor(options.dimensions);
    if (!Number.isInteger(this.approximateAbove) || this.approximateAbove < 1)
      throw new RangeError('approximateAbove must be a positive integer');
    if (!Number.isInteger(this.buildSlice) || this.buildSlice < 1)
      throw new RangeError('buildSlice must be a positive integer');
    this.#approximateOptions = { ...options.approximate, dimensions: options.dimensions };
    this.#exact = new ExactNearestNeighbours({ dimensions: options.dimensions });
  }

  /** How the next search is answered: by the exact scan, by the scan while the graph is built, by the graph. */
  get mode(): 'exact' | 'building' | 'approximate' {
    return this.#exact ? (this.#graph ? 'building' : 'exact') : 'approximate';
  }

  get size(): number {
    return this.#store().size;
  }

  has(id: string): boolean {
    return this.#store().has(id);
  }

  upsert(id: string, vector: ArrayLike<number>): void {
    this.#store().upsert(id, vector);
    if (!this.#exact || !this.#graph) return;
    if (this.#graph.has(id)) this.#graph.upsert(id, vector);
    else this.#pending?.add(id);
  }

  remove(id: string): boolean {
    const removed = this.#store().remove(id);
    if (this.#exact) {
      this.#graph?.remove(id);
      this.#pending?.delete(id);
    }
    if (this.size < this.approximateAbove / 2 && this.#graph) this.#backToExact();
    return removed;
  }

  vectorOf(id: string): Float32Array | undefined {
    return this.#store().vectorOf(id);
  }

  nearest(query: ArrayLike<number>, limit: number): Neighbour[] {
    const exact = this.#exact;
    if (exact && !this.#graph && exact.size > this.approximateAbove) {
      this.#graph = new ApproximateNearestNeighbours(this.#approximateOptions);
      this.#pending = new Set([...exact.entries()].map(([id]) => id));
    }
    if (exact && this.#graph && this.#pending) {
      let linked = 0;
      for (const id of this.#pending) {
        if (linked++ >= this.buildSlice) break;
        this.#pending.delete(id);
        const vector = exact.vectorOf(id);
        if (vector) this.#graph.upsert(id, vector);
      }
      if (this.#pending.size > 0) return exact.nearest(query, limit);
      this.#exact = undefined;
      this.#pending = undefined;
    }
    return this.#store().nearest(query, limit);
  }

  /** The exact index's format in every mode: what is stored does not depend on the mode. */
  serialize(): Uint8Array {
    return this.#store().serialize();
  }

  #backToExact(): void {
    if (!this.#exact) {
      const exact = new ExactNearestNeighbours({ dimensions: this.dimensions });
      for (const [id, vector] of this.#graph?.entries() ?? []) exact.upsert(id, vector);
      this.#exact = exact;
    }
    this.#graph = undefined;
    this.#pending = undefined;
  }

  /** The index that holds every vector: the exact one until the graph is complete. */
  #store(): NearestNeighbours {
    return (this.#exact ?? this.#graph) as NearestNeighbours;
  }
}
