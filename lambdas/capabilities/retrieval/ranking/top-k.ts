/** True when a ranks strictly before b. */
type RanksBefore<T> = (a: T, b: T) => boolean;

/**
 * The `limit` best of `candidates`, best first, by `ranksBefore` (a strict total order: a ranks before b).
 * A heap keeps the worst of the best so far at its root, so choosing k of n costs n · log k.
 */
export function selectBest<T>(candidates: Iterable<T>, limit: number, ranksBefore: RanksBefore<T>): T[] {
  const order = (a: T, b: T): number => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0);
  if (limit <= 0) return [];
  // Asked for all of them: one sort costs less than a heap of everything sorted again.
  if (Array.isArray(candidates) && limit >= candidates.length) return [...(candidates as readonly T[])].sort(order);
  const heap: T[] = [];
  for (const candidate of candidates) {
    if (heap.length < limit) {
      heap.push(candidate);
      siftUp(heap, heap.length - 1, ranksBefore);
    } else if (ranksBefore(candidate, heap[0] as T)) {
      heap[0] = candidate;
      siftDown(heap, 0, ranksBefore);
    }
  }
  return heap.sort(order);
}

const siftUp = <T>(heap: T[], start: number, ranksBefore: RanksBefore<T>): void => {
  let index = start;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    // The root holds the worst: a parent that ranks before its child is out of place.
    if (!ranksBefore(heap[parent] as T, heap[index] as T)) return;
    [heap[parent], heap[index]] = [heap[index] as T, heap[parent] as T];
    index = parent;
  }
};

const siftDown = <T>(heap: T[], start: number, ranksBefore: RanksBefore<T>): void => {
  let index = start;
  for (;;) {
    let worst = index;
    for (const child of [2 * index + 1, 2 * index + 2])
      if (child < heap.length && ranksBefore(heap[worst] as T, heap[child] as T)) worst = child;
    if (worst === index) return;
    [heap[worst], heap[index]] = [heap[index] as T, heap[worst] as T];
    index = worst;
  }
};
