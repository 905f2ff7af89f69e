// Sizes and notionals. A size is whole lots of 0.01 share (10 000 micros) and a price is units of
// 0.0001, so price units × lots is exactly the collateral in micros (constants.ts asserts why).

import { SIZE_MICROS_PER_LOT } from './constants.js';

/** Collateral micros of `sizeMicros` shares at `priceUnits`: exact, never rounded. */
export function notionalMicros(priceUnits: number, sizeMicros: number): number {
  return priceUnits * (sizeMicros / SIZE_MICROS_PER_LOT);
}

/** Whether `sizeMicros` is a positive whole number of lots (no floating-point remainder). */
export function isWholeLots(sizeMicros: number): boolean {
  const lots = sizeMicros / SIZE_MICROS_PER_LOT;
  return lots > 0 && Number.isInteger(lots);
}
