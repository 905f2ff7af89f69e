// A signed order's amounts as Polymarket reads them (contract §4): how many decimals each may
// carry by side and order type, and the engine's limit price they imply. With D the market
// tick's decimals + 2 (4 at tick 0.01, 3 at 0.1, 5 at 0.001 and 0.005, 6 at 0.0001 and 0.0025):
//
// - a limit BUY (GTC, GTD) pays at most D decimals of USDC for shares of at most 2, at a price
//   exactly on the tick;
// - a market BUY (FOK, FAK) pays at most 2 decimals of USDC for shares of at most D: the official
//   clients sign an amount of USDC and the shares it buys at the worst price they walked the book
//   to (5 USDC at 0.51 is 9.8039 shares), so maker / taker is that price plus a rounding. The
//   limit is that price rounded DOWN to the tick: the buyer never pays more than it signed;
// - a SELL of any type sells shares of at most 2 decimals for at most D decimals of USDC, a limit
//   SELL exactly on the tick, a market SELL at taker / maker rounded UP to the tick: the seller
//   never receives less than it signed.
//
// The engine then takes shares of up to D decimals (its size step, engine/ledger/notional.ts) and rounds
// each fill's collateral so a BUY pays at most ceil(limit × size), never above its makerAmount,
// and a SELL receives at least floor(limit × size), never below its takerAmount (before fees;
// engine/ledger/fill_collateral.ts). Amounts are integer micros; prices are found with BigInt, since
// collateral × 10^4 passes 2^53.
import { OrderType, Side } from '../../engine/command.js';
import { PRICE_UNITS_PER_ONE, SIZE_MICROS_MAX } from '../../engine/constants.js';
import { sizeStepMicros } from '../../engine/ledger/notional.js';
import { Reject } from '../../engine/events/reject.js';

const MICROS_DECIMALS = 6;
/** Decimals of a share amount in every order but a market BUY's. */
const SHARE_DECIMALS = 2;

/** What a signed order's amounts are for the engine, or why they are refused. */
export type OrderAmounts =
  | { readonly kind: 'accepted'; readonly priceUnits: number; readonly sizeMicros: number }
  /** The text of a 400: the amounts carry more decimals than the side and type allow. */
  | { readonly kind: 'invalid'; readonly text: string }
  /** An engine rejection's text to answer with; `priceMicros` the implied price, for INVALID_TICK. */
  | { readonly kind: 'rejected'; readonly code: Reject; readonly priceMicros: number };

/** The tick's decimals + 2: how many decimals of USDC a limit BUY, or of shares a market BUY, may carry. */
export function amountDecimals(tickUnits: number): number {
  // The step is a power of ten: 10^k micros has k zeros.
  return MICROS_DECIMALS - (String(sizeStepMicros(tickUnits)).length - 1);
}

/** Whether `micros` has at most `decimals` decimals as an amount of whole units. */
function hasAtMost(micros: number, decimals: number): boolean {
  return micros % 10 ** (MICROS_DECIMALS - decimals) === 0;
}

function invalidText(side: Side, market: boolean, decimals: number): string {
  if (side === Side.Sell) {
    return `invalid amounts, the sell orders maker amount supports a max accuracy of ${SHARE_DECIMALS} decimals, taker amount a max of ${decimals} decimals`;
  }
  return market
    ? `invalid amounts, the market buy orders maker amount supports a max accuracy of ${SHARE_DECIMALS} decimals, taker amount a max of ${decimals} decimals`
    : `invalid amounts, the buy orders maker amount supports a max accuracy of ${decimals} decimals, taker amount a max of ${SHARE_DECIMALS} decimals`;
}

/**
 * The engine's price and size for a signed order's positive amounts (micros) on a market of
 * `tickUnits`, or why not. The tick rule itself (on the tick, within [tick, 1 − tick]) is the
 * engine's for limit orders; a market order's rounded price is checked here, since only here is
 * the price it was signed at known.
 */
export function readOrderAmounts(
  side: Side, orderType: OrderType, makerAmount: number, takerAmount: number, tickUnits: number,
): OrderAmounts {
  const market = orderType === OrderType.FOK || orderType === OrderType.FAK;
  const decimals = amountDecimals(tickUnits);
  const [collateral, shares] = side === Side.Buy ? [makerAmount, takerAmount] : [takerAmount, makerAmount];
  const collateralDecimals = side === Side.Buy && market ? SHARE_DECIMALS : decimals;
  const shareDecimals = side === Side.Buy && market ? decimals : SHARE_DECIMALS;
  if (!hasAtMost(collateral, collateralDecimals) || !hasAtMost(shares, shareDecimals)) {
    return { kind: 'invalid', text: invalidText(side, market, decimals) };
  }
  const priceMicros = Number((BigInt(collateral) * BigInt(10 ** MICROS_DECIMALS)) / BigInt(shares));
  if (shares > SIZE_MICROS_MAX) return { kind: 'rejected', code: Reject.SIZE_ABOVE_MAX, priceMicros };
  const scaled = BigInt(collateral) * BigInt(PRICE_UNITS_PER_ONE);
  if (!market) {
    // On the 0.0001 grid exactly when collateral × 10⁴ divides evenly; the engine checks the tick.
    if (scaled % BigInt(shares) !== 0n) return { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros };
    return { kind: 'accepted', priceUnits: Number(scaled / BigInt(shares)), sizeMicros: shares };
  }
  // A worst price: whole ticks of it, down for a BUY and up for a SELL.
  const perTick = BigInt(shares) * BigInt(tickUnits);
  let ticks = scaled / perTick;
  if (side === Side.Sell && scaled % perTick !== 0n) ticks += 1n;
  const priceUnits = Number(ticks) * tickUnits;
  if (priceUnits < tickUnits || priceUnits > PRICE_UNITS_PER_ONE - tickUnits) {
    return { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros };
  }
  return { kind: 'accepted', priceUnits, sizeMicros: shares };
}
