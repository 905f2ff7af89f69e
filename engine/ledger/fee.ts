// The taker fee of one fill: floor(notional × bps / 10_000) in collateral micros, computed as
// quotient and remainder of 10_000 so the product never leaves the safe integers (constants.ts
// asserts the bound). Flooring per fill never charges more than the fee reserved for the whole
// order at its limit price, because floor(a) + floor(b) ≤ floor(a + b).
import { BPS_PER_ONE } from '../constants.js';

export function takerFeeMicros(notionalMicros: number, feeBps: number): number {
  if (feeBps === 0) return 0;
  const quotient = Math.floor(notionalMicros / BPS_PER_ONE);
  const remainder = notionalMicros - quotient * BPS_PER_ONE;
  return quotient * feeBps + Math.floor((remainder * feeBps) / BPS_PER_ONE);
}
