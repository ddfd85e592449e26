import { describe, expect, it } from 'vitest';
import {
  ApproximateNearestNeighbours,
  approximateAboveFor,
  SwitchingNearestNeighbours,
} from '../../../lambdas/capabilities/retrieval/ranking/approximate-neighbours.ts';
import { hashedEmbedding } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { ExactNearestNeighbours } from '../../../lambdas/capabilities/retrieval/ranking/vector-search.ts';

/** mulberry32: the same numbers for the same seed, everywhere. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/**
 * Memories on topics: each text mixes words of its topic with words of a long-tailed vocabulary, embedded by
 * the default embedder; queries are a few words of one memory or of one topic.
 */
const fixture = (memories: number, queries: number, seed = 7) => {
  const random = seeded(seed);
  const word = () =>
    Array.from({ length: 3 + Math.floor(random() * 6) }, () =>
      String.fromCharCode(97 + Math.floor(random() * 26)),
    ).join('');
  const vocabulary = Array.from({ length: 4000 }, word);
  const common = () =>
    vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * Math.log(vocabulary.length))) - 1)] ?? '';
  const topics = Array.from({ length: 60 }, () => Array.from({ length: 30 }, word));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const texts = Array.from({ length: memories }, () => {
    const topic = pick(topics);
    return Array.from({ length: 8 + Math.floor(random() * 30) }, () => (random() < 0.5 ? pick(topic) : common())).join(
      ' ',
    );
  });
  const queryTexts = Array.from({ length: queries }, (_, index) => {
    const source = index % 2 === 0 ? (pick(texts).split(' ') as readonly string[]) : pick(topics);
    return Array.from({ length: 3 + Math.floor(random() * 5) }, () => (random() < 0.7 ? pick(source) : common())).join(
      ' ',
    );
  });
  return {
    entries: texts.map((text, index) => [`m${String(index).padStart(5, '0')}`, hashedEmbedding(text)] as const),
    queries: queryTexts.map(hashedEmbedding),
  };
};

/** Recall@k against the exact answer, ties counted: an id whose exact cosine reaches the exact k-th is a hit. */
const recallAt = (
  k: number,
  exact: ExactNearestNeighbours,
  approximate: ApproximateNearestNeighbours,
  queries: Float32Array[],
) => {
  let hits = 0;
  for (const query of queries) {
    const truth = exact.nearest(query, exact.size);
    const kth = truth[k - 1]?.cosine ?? -1;
    const cosines = new Map(truth.map((neighbour) => [neighbour.id, neighbour.cosine]));
    for (const neighbour of approximate.nearest(query, k))
      if ((cosines.get(neighbour.id) ?? -2) >= kth - 1e-12) hits += 1;
  }
  return hits / (k * queries.length);
};

const { entries, queries } = fixture(2000, 100);
const exact = new ExactNearestNeighbours({ dimensions: 256 });
for (const [id, vector] of entries) exact.upsert(id, vector);
const built = ApproximateNearestNeighbours.of(entries, { dimensions: 256 });

describe('Class: ApproximateNearestNeighbours', () => {
  describe('Method: nearest', () => {
    it('finds at least 95 % of the exact ten nearest over 2,000 memories and 100 queries', () => {
      const recall = recallAt(10, exact, built, queries);

      expect(recall).toBeGreaterThanOrEqual(0.95);
    });

    it('reports the cosine the exact index reports for the same vector, ordered as the exact index orders', () => {
      for (const query of queries.slice(0, 10)) {
        const approximate = built.nearest(query, 10);
        const truth = new Map(exact.nearest(query, exact.size).map((neighbour) => [neighbour.id, neighbour]));

        for (const neighbour of approximate) expect(neighbour).toEqual(truth.get(neighbour.id));
        const sorted = [...approximate].sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1));
        expect(approximate).toEqual(sorted);
      }
    });

    it('answers a limit near its size by a full scan: exactly the exact index’s answer', () => {
      const query = queries[0] as Float32Array;

      expect(built.nearest(query, 1000)).toEqual(exact.nearest(query, 1000));
    });

    it('honours the limit, answers nothing when empty, and refuses a query of another dimension', () => {
      const empty = new ApproximateNearestNeighbours({ dimensions: 2 });

      expect(empty.nearest([1, 0], 5)).toEqual([]);
      expect(built.nearest(queries[1] as Float32Array, 3)).toHaveLength(3);
      expect(built.nearest(queries[1] as Float32Array, 0)).toEqual([]);
      expect(() => built.nearest([1, 0], 3)).toThrow(RangeError);
    });

    it('gives the zero vector cosine 0 and breaks equal similarities by id', () => {
      const index = new ApproximateNearestNeighbours({ dimensions: 2 });
      index.upsert('b', [1, 0]);
      index.upsert('a', [2, 0]);
      index.upsert('c', [0, 1]);
      index.upsert('zero', [0, 0]);

      expect(index.nearest([1, 0], 4)).toEqual([
        { id: 'a', cosine: 1, similarity: 1 },
        { id: 'b', cosine: 1, similarity: 1 },
        { id: 'c', cosine: 0, similarity: 0.5 },
        { id: 'zero', cosine: 0, similarity: 0.5 },
      ]);
    });

    it('is deterministic: the same changes in the same order give the same answers', () => {
      const once = ApproximateNearestNeighbours.of(entries.slice(0, 800), { dimensions: 256 });
      const again = ApproximateNearestNeighbours.of(entries.slice(0, 800), { dimensions: 256 });

      for (const query of queries) expect(again.nearest(query, 10)).toEqual(once.nearest(query, 10));
    });
  });

  describe('Method: upsert / remove', () => {
    it('never returns a removed vector, and forgets it', () => {
      // Prepare
      const index = ApproximateNearestNeighbours.of(entries.slice(0, 800), { dimensions: 256 });
      const query = queries[0] as Float32Array;
      const [best] = index.nearest(query, 1);

      // Act
      const removed = index.remove(best?.id ?? '');

      // Assess
      expect(removed).toBe(true);
      expect(index.remove(best?.id ?? '')).toBe(false);
      expect(index.has(best?.id ?? '')).toBe(false);
      expect(index.size).toBe(799);
      expect(index.vectorOf(best?.id ?? '')).toBeUndefined();
      expect(index.nearest(query, 10).map((neighbour) => neighbour.id)).not.toContain(best?.id);
    });

    it('replaces a vector: the id is found by its new vector, once, and not by its old one', () => {
      // Prepare
      const index = ApproximateNearestNeighbours.of(entries.slice(0, 800), { dimensions: 256 });
      const moved = hashedEmbedding('pangolins hoard teaspoons under the lighthouse');

      // Act
      index.upsert('m00000', moved);
      index.upsert('m00000', moved);

      // Assess
      expect(index.size).toBe(800);
      expect(index.vectorOf('m00000')).toEqual(moved);
      expect(index.nearest(moved, 1)).toEqual([{ id: 'm00000', cosine: 1, similarity: 1 }]);
      const old = entries[0]?.[1] as Float32Array;
      expect(index.nearest(old, 10).filter((neighbour) => neighbour.id === 'm00000')).toEqual([]);
    });

    it('keeps its recall through churn: most vectors removed and new ones added (the graph rebuilt from the live ones)', () => {
      // Prepare: 1,000 in, 700 of them out (more removed than live: a rebuild), 500 more in
      const index = ApproximateNearestNeighbours.of(entries.slice(0, 1000), { dimensions: 256 });
      const reference = new ExactNearestNeighbours({ dimensions: 256 });
      for (const [id, vector] of entries.slice(0, 1000)) reference.upsert(id, vector);
      for (const [id] of entries.slice(0, 700)) {
        index.remove(id);
        reference.remove(id);
      }
      for (const [id, vector] of entries.slice(1000, 1500)) {
        index.upsert(id, vector);
        reference.upsert(id, vector);
      }

      // Act / Assess
      expect(index.size).toBe(800);
      expect([...index.entries()].map(([id]) => id).sort()).toEqual([...reference.entries()].map(([id]) => id).sort());
      expect(recallAt(10, reference, index, queries)).toBeGreaterThanOrEqual(0.95);
    });

    it('refuses a vector of another dimension', () => {
      expect(() => new ApproximateNearestNeighbours({ dimensions: 3 }).upsert('a', [1, 0])).toThrow(RangeError);
    });
  });

  describe('Method: serialize', () => {
    it('writes the exact index’s format, and a loaded index answers as the original', () => {
      const small = ApproximateNearestNeighbours.of(entries.slice(0, 400), { dimensions: 256 });

      const bytes = small.serialize();
      const loaded = ApproximateNearestNeighbours.deserialize(bytes);

      expect(ExactNearestNeighbours.deserialize(bytes).size).toBe(400);
      for (const query of queries.slice(0, 20)) expect(loaded.nearest(query, 10)).toEqual(small.nearest(query, 10));
    });
  });
});

describe('Class: SwitchingNearestNeighbours', () => {
  it('searches exactly up to its size; above it builds the graph a slice a search, answering exactly until the graph holds every vector', () => {
    // Prepare
    const index = new SwitchingNearestNeighbours({ dimensions: 256, approximateAbove: 500, buildSlice: 200 });
    for (const [id, vector] of entries.slice(0, 500)) index.upsert(id, vector);
    const query = queries[0] as Float32Array;
    const exactOver = (count: number) => exact.nearest(query, exact.size).filter(inFirst(count)).slice(0, 10);

    // Act / Assess: at the size, exact
    expect(index.mode).toBe('exact');
    expect(index.nearest(query, 10)).toEqual(exactOver(500));

    // above it, two searches link 400 of 600 vectors and are answered exactly; the third completes the graph
    for (const [id, vector] of entries.slice(500, 600)) index.upsert(id, vector);
    expect(index.nearest(query, 10)).toEqual(exactOver(600));
    expect(index.nearest(query, 10)).toEqual(exactOver(600));
    expect(index.mode).toBe('building');
    const graph = ApproximateNearestNeighbours.of(entries.slice(0, 600), { dimensions: 256 });
    expect(index.nearest(query, 10)).toEqual(graph.nearest(query, 10));
    expect(index.mode).toBe('approximate');
    expect(index.size).toBe(600);

    // below half, exact again, with every vector kept
    for (const [id] of entries.slice(0, 351)) index.remove(id);
    expect(index.mode).toBe('exact');
    expect(index.size).toBe(249);
    expect(index.vectorOf('m00599')).toEqual(entries[599]?.[1]);
    expect(index.nearest(query, 10)).toEqual(exactOf(entries.slice(351, 600), query));
  });

  it('keeps the changes made while the graph is built: a removed vector never returns, a new or moved one is linked', () => {
    // Prepare: building, 100 of 600 vectors linked
    const index = new SwitchingNearestNeighbours({ dimensions: 256, approximateAbove: 500, buildSlice: 100 });
    for (const [id, vector] of entries.slice(0, 600)) index.upsert(id, vector);
    index.nearest(queries[0] as Float32Array, 10);
    const moved = hashedEmbedding('pangolins hoard teaspoons under the lighthouse');

    // Act: one linked and one pending vector removed, one linked moved, one new
    index.remove('m00000');
    index.remove('m00300');
    index.upsert('m00001', moved);
    index.upsert('fresh', entries[1000]?.[1] as Float32Array);
    for (let search = 0; search < 6; search += 1) index.nearest(queries[1] as Float32Array, 10);

    // Assess
    expect(index.mode).toBe('approximate');
    expect(index.size).toBe(599);
    expect(index.has('m00000') || index.has('m00300')).toBe(false);
    expect(index.nearest(moved, 1)).toEqual([{ id: 'm00001', cosine: 1, similarity: 1 }]);
    expect(index.nearest(entries[1000]?.[1] as Float32Array, 1)[0]?.id).toBe('fresh');
    const everything = index.nearest(queries[2] as Float32Array, 599).map((neighbour) => neighbour.id);
    expect(everything).not.toContain('m00000');
    expect(everything).not.toContain('m00300');
  });

  it('writes the exact index’s bytes in either mode for the same vectors', () => {
    const switching = new SwitchingNearestNeighbours({ dimensions: 256, approximateAbove: 100, buildSlice: 1000 });
    const plain = new ExactNearestNeighbours({ dimensions: 256 });
    for (const [id, vector] of entries.slice(0, 300)) {
      switching.upsert(id, vector);
      plain.upsert(id, vector);
    }
    switching.nearest(queries[0] as Float32Array, 5);

    expect(switching.mode).toBe('approximate');
    expect(switching.serialize()).toEqual(plain.serialize());
  });
});

const exactOf = (subset: readonly (readonly [string, Float32Array])[], query: Float32Array) => {
  const index = new ExactNearestNeighbours({ dimensions: 256 });
  for (const [id, vector] of subset) index.upsert(id, vector);
  return index.nearest(query, 10);
};

const inFirst =
  (count: number) =>
  (neighbour: { readonly id: string }): boolean =>
    Number(neighbour.id.slice(1)) < count;

describe('Function: approximateAboveFor', () => {
  it('switches where the exact scan reaches ≈ 10 ms: 30,000 vectors of 256 dimensions, 7,500 of 1,024', () => {
    expect(approximateAboveFor(256)).toBe(30_000);
    expect(approximateAboveFor(512)).toBe(15_000);
    expect(approximateAboveFor(1024)).toBe(7_500);
    expect(new SwitchingNearestNeighbours({ dimensions: 1024 }).approximateAbove).toBe(7_500);
  });

  it('links fewer vectors a search while building as the dimensions grow: 16 of 256, 4 of 1,024', () => {
    expect(new SwitchingNearestNeighbours({ dimensions: 256 }).buildSlice).toBe(16);
    expect(new SwitchingNearestNeighbours({ dimensions: 1024 }).buildSlice).toBe(4);
  });
});
