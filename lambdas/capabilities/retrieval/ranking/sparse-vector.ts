/*
 * A vector's non-zero components, in dimension order. A hashed embedding of a short text has a few dozen of its
 * 256 components set (a query, a handful), so products over these alone cost a fraction of the dense ones — and
 * give exactly the same numbers: the components left out only ever add ±0 to a sum, in the same order.
 */

export interface SparseVector {
  readonly dimensions: number;
  /** Ascending. */
  readonly indices: Int32Array;
  readonly values: Float64Array;
  /** Σ value², summed in dimension order as a dense loop sums it. */
  readonly squares: number;
}

export const sparseOf = (vector: ArrayLike<number>): SparseVector => {
  let count = 0;
  for (let dimension = 0; dimension < vector.length; dimension += 1) if ((vector[dimension] ?? 0) !== 0) count += 1;
  const indices = new Int32Array(count);
  const values = new Float64Array(count);
  let squares = 0;
  let next = 0;
  for (let dimension = 0; dimension < vector.length; dimension += 1) {
    const value = vector[dimension] ?? 0;
    if (value === 0) continue;
    indices[next] = dimension;
    values[next] = value;
    squares += value * value;
    next += 1;
  }
  return { dimensions: vector.length, indices, values, squares };
};

/** The cosine of two sparse vectors, equal to `cosineSimilarity` of their dense forms; 0 when either is zero. */
export const sparseCosine = (a: SparseVector, b: SparseVector): number => {
  if (a.dimensions !== b.dimensions) throw new RangeError(`Vectors of ${a.dimensions} and ${b.dimensions} dimensions`);
  if (a.squares === 0 || b.squares === 0) return 0;
  let dot = 0;
  let i = 0;
  let j = 0;
  while (i < a.indices.length && j < b.indices.length) {
    const left = a.indices[i] as number;
    const right = b.indices[j] as number;
    if (left === right) {
      dot += (a.values[i] as number) * (b.values[j] as number);
      i += 1;
      j += 1;
    } else if (left < right) i += 1;
    else j += 1;
  }
  return Math.min(1, Math.max(-1, dot / Math.sqrt(a.squares * b.squares)));
};
