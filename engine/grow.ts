// Doubling for the typed-array columns of tables that grow as accounts and positions appear.
// Growth happens when a new account or position is created, never per order, and stops at the
// table's maximum.

/** A copy of `array` with `capacity` entries; new entries hold `fill`. */
export function grownInt32(array: Int32Array, capacity: number, fill: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(capacity);
  grown.set(array);
  if (fill !== 0) grown.fill(fill, array.length);
  return grown;
}

/** A copy of `array` with `capacity` entries; new entries hold 0. */
export function grownFloat64(array: Float64Array, capacity: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(capacity);
  grown.set(array);
  return grown;
}

/** The next capacity: double, capped at `max`. */
export function nextCapacity(current: number, max: number): number {
  return Math.min(current * 2, max);
}
