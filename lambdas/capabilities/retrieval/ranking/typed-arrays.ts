/** The fixed-size numeric arrays the ranking indexes keep their data in, grown by copying into a larger one. */
export type NumericArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Int32Array
  | Uint8Array
  | Uint16Array
  | Uint32Array;

/** A copy of `array` of `length` elements of its own type: its values first (cut to `length`), zeros after. */
export const resized = <T extends NumericArray>(array: T, length: number): T => {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array.subarray(0, Math.min(array.length, length)) as never);
  return next;
};
