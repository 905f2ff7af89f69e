// The orders the HTTP order benchmark places, generated from a seed: GTC BUYs and SELLs of both
// tokens in several markets from many accounts, about half resting away from the middle and half
// priced to cross (a crossing BUY of one token also mints against resting BUYs of the other).
//
// Every order must be accepted whatever order the connections deliver them in, so nothing here
// depends on the book: each account is funded for every BUY it will ever place at its limit
// price, and a setup phase first gives it complete sets (a BUY of YES and of NO at 0.50 that
// pair off into mints) of at least as many shares of each token as it will ever offer for sale.
import { Prng } from '../../test/engine/prng.js';

export interface PlannedOrder {
  readonly account: number;
  readonly market: number;
  /** 0 = the first token (YES), 1 = the second. */
  readonly outcome: number;
  readonly side: 'BUY' | 'SELL';
  /** Units of 0.0001, on the markets' 0.01 tick. */
  readonly priceUnits: number;
  readonly sizeMicros: number;
}

export interface OrderPlan {
  readonly accounts: number;
  readonly markets: number;
  /** Sent first, to the end: BUYs at 0.50 of both tokens that leave every account its shares. */
  readonly setup: readonly PlannedOrder[];
  /** The measured flow, sent in order (every phase takes the next slice). */
  readonly orders: readonly PlannedOrder[];
  /** Collateral each account needs for the setup and every BUY of the flow at its limit. */
  readonly depositMicros: readonly number[];
}

const MICROS_PER_SHARE = 1_000_000;
const CENT_UNITS = 100;
const SIZE_SHARES_MIN = 5;
const SIZE_SHARES_MAX = 20;
/** Share of the flow priced to cross the other side (the rest rests away from 0.50). */
const CROSSING_SHARE = 0.4;
const SETUP_PRICE_UNITS = 50 * CENT_UNITS;
/** Headroom on every deposit, in micros. */
const DEPOSIT_MARGIN_MICROS = 10 * MICROS_PER_SHARE;

/** Price in cents for one order: resting BUYs 0.30–0.47 and SELLs 0.53–0.70; crossing ones the mirror. */
function priceCents(prng: Prng, side: 'BUY' | 'SELL', crossing: boolean): number {
  if (side === 'BUY') return crossing ? prng.between(60, 70) : prng.between(30, 47);
  return crossing ? prng.between(30, 40) : prng.between(53, 70);
}

export function makePlan(accounts: number, markets: number, count: number, seed: number): OrderPlan {
  const prng = new Prng(seed);
  const orders: PlannedOrder[] = [];
  /** Shares each (account, market, outcome) offers for sale over the whole flow. */
  const sold = new Float64Array(accounts * markets * 2);
  const deposits = new Array<number>(accounts).fill(DEPOSIT_MARGIN_MICROS);
  for (let index = 0; index < count; index++) {
    const account = prng.below(accounts);
    const market = prng.below(markets);
    const outcome = prng.below(2);
    const side = prng.chance(0.5) ? 'BUY' : 'SELL';
    const priceUnits = priceCents(prng, side, prng.chance(CROSSING_SHARE)) * CENT_UNITS;
    const sizeMicros = prng.between(SIZE_SHARES_MIN, SIZE_SHARES_MAX) * MICROS_PER_SHARE;
    orders.push({ account, market, outcome, side, priceUnits, sizeMicros });
    if (side === 'SELL') sold[(account * markets + market) * 2 + outcome]! += sizeMicros;
    else deposits[account]! += (priceUnits * sizeMicros) / 10_000;
  }
  const setup: PlannedOrder[] = [];
  for (let account = 0; account < accounts; account++) {
    for (let market = 0; market < markets; market++) {
      const cell = (account * markets + market) * 2;
      const shares = Math.max(sold[cell]!, sold[cell + 1]!);
      if (shares === 0) continue;
      const sizeMicros = Math.max(shares, SIZE_SHARES_MIN * MICROS_PER_SHARE);
      for (const outcome of [0, 1]) setup.push({ account, market, outcome, side: 'BUY', priceUnits: SETUP_PRICE_UNITS, sizeMicros });
      deposits[account]! += sizeMicros;
    }
  }
  return { accounts, markets, setup, orders, depositMicros: deposits };
}
