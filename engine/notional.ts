// Sizes and notionals. A size is integer micro-shares, a whole number of its market's size step
// (sizeStepMicros): share amounts of the tick's decimals + 2 places, what Polymarket's clients
// sign for a market BUY (5 USDC at 0.51 is 9.8039 shares). A price is units of 0.0001, so
// price units × size micros / 10_000 is the notional in collateral micros, and it is a whole
// number of micros whenever the size is whole lots of 0.01 share; a finer size can leave a part
// below one micro, which money never holds. Who rounds which way, and why that keeps every
// balance exact and every order within what it signed, is matching.ts's fillMakerMicros.
//
// Products are formed as (whole lots) × price + (remainder below a lot) × price: price × size
// can pass 2^53 (10^4 × 10^13), the two parts cannot (constants.ts asserts both bounds).
import { assert } from './assert.js';
import { SIZE_MICROS_PER_LOT, TICK_UNITS_ALLOWED } from './constants.js';

/** floor(price × size / 10_000): a fill's collateral rounded down to the micro. */
export function notionalMicros(priceUnits: number, sizeMicros: number): number {
  const lots = Math.floor(sizeMicros / SIZE_MICROS_PER_LOT);
  const rest = sizeMicros - lots * SIZE_MICROS_PER_LOT;
  return priceUnits * lots + Math.floor((priceUnits * rest) / SIZE_MICROS_PER_LOT);
}

/** ceil(price × size / 10_000): what a BUY of `sizeMicros` at `priceUnits` reserves. */
export function notionalCeilMicros(priceUnits: number, sizeMicros: number): number {
  const lots = Math.floor(sizeMicros / SIZE_MICROS_PER_LOT);
  const rest = sizeMicros - lots * SIZE_MICROS_PER_LOT;
  return priceUnits * lots + Math.ceil((priceUnits * rest) / SIZE_MICROS_PER_LOT);
}

/**
 * A market's size step in micros: the largest power of ten that divides its tick's price units
 * (tick 0.1 → 1000, 0.01 → 100, 0.001 → 10, 0.0001 → 1, 0.0025 → 1, 0.005 → 10), which is
 * 10^-(tick decimals + 2) of a share.
 */
export function sizeStepMicros(tickUnits: number): number {
  let step = 1;
  while (step < SIZE_MICROS_PER_LOT && tickUnits % (step * 10) === 0) step *= 10;
  return step;
}

/** Whether `sizeMicros` is a positive whole number of `stepMicros` (no floating-point remainder). */
export function isWholeSteps(sizeMicros: number, stepMicros: number): boolean {
  const steps = sizeMicros / stepMicros;
  return steps > 0 && Number.isInteger(steps);
}

/** Whether `sizeMicros` is a positive whole number of lots (a market's minimum size is). */
export function isWholeLots(sizeMicros: number): boolean {
  return isWholeSteps(sizeMicros, SIZE_MICROS_PER_LOT);
}

for (const tick of TICK_UNITS_ALLOWED) {
  assert(SIZE_MICROS_PER_LOT % sizeStepMicros(tick) === 0, 'a lot is whole steps of every tick');
}
