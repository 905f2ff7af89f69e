// Sizes and notionals. A size is integer micro-shares, a whole number of its market's size step
// (sizeStepMicros): share amounts of the tick's decimals + 2 places, what Polymarket's clients
// sign for a market BUY (5 USDC at 0.51 is 9.8039 shares). A price is units of 0.0001, so
// price units × size micros / 10_000 is the notional in collateral micros, and it is a whole
// number of micros whenever the size is whole lots of 0.01 share; a finer size can leave a part
// below one micro, which money never holds. Who rounds which way, and why that keeps every
// balance exact and every order within what it signed, is matching.ts's fillMakerMicros.
//
// price × size can pass 2^53 (10^4 × 10^13). Below it the product is exact, and so is the
// rounding of its quotient by 10_000: the quotient is under 2^40, where half a double's spacing
// (2^-14) is less than the 10^-4 that a quotient off the integers is from them, so floor and ceil
// of the double are those of the exact quotient. Above it (orders of about a million shares) the
// product is formed as (whole lots) × price + (remainder below a lot) × price, parts that
// constants.ts asserts stay exact: slower, and taken by almost no order.
import { assert } from '../assert.js';
import { SIZE_MICROS_PER_LOT, TICK_UNITS_ALLOWED } from '../constants.js';

/** Products of price units and micros below this are exact (see the top of the file). */
const EXACT_PRODUCT_LIMIT = 2 ** 53;

/** floor(price × size / 10_000): a fill's collateral rounded down to the micro. */
export function notionalMicros(priceUnits: number, sizeMicros: number): number {
  const product = priceUnits * sizeMicros;
  if (product < EXACT_PRODUCT_LIMIT) return Math.floor(product / SIZE_MICROS_PER_LOT);
  const lots = Math.floor(sizeMicros / SIZE_MICROS_PER_LOT);
  return priceUnits * lots + Math.floor((priceUnits * (sizeMicros - lots * SIZE_MICROS_PER_LOT)) / SIZE_MICROS_PER_LOT);
}

/** ceil(price × size / 10_000): what a BUY of `sizeMicros` at `priceUnits` reserves. */
export function notionalCeilMicros(priceUnits: number, sizeMicros: number): number {
  const product = priceUnits * sizeMicros;
  if (product < EXACT_PRODUCT_LIMIT) return Math.ceil(product / SIZE_MICROS_PER_LOT);
  const lots = Math.floor(sizeMicros / SIZE_MICROS_PER_LOT);
  return priceUnits * lots + Math.ceil((priceUnits * (sizeMicros - lots * SIZE_MICROS_PER_LOT)) / SIZE_MICROS_PER_LOT);
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
