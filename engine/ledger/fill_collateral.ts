// The collateral of one fill, in whole micros. price × size is exact for sizes of whole lots, but
// a size finer than a lot (a market BUY's, or the remainder it leaves on the order it ends on)
// can make it fall between two micros at a price of more than 2 decimals (ticks 0.001, 0.005,
// 0.0001 and 0.0025, or an order resting from one after its tick changed). Someone must then
// round, and rounding each side down (as Polymarket's exchange computes an order's taking
// amount, by integer division) cannot work alone: a MINT's two buyers would pay one micro less
// than the complete set they create costs, and a taker could pay more than its reserve or
// receive less than its limit. So the rule is:
//
// - A resting SELL receives floor(price × size): the exchange's integer division. (So a resting
//   SELL can end below price × its size by less than a micro per fill of a finer size, as on
//   chain.)
// - A resting BUY pays what its reserve drops by, ceil(price × remaining before) −
//   ceil(price × remaining after): its reserve is always exactly ceil(price × what rests), and
//   over its life it pays ceil(price × the size it rested with), its whole reserve, no more.
//   For a size of whole lots (every limit BUY at the edge) that is price × size exactly.
// - The taker pays or receives the maker's amount when both trade the same token (NORMAL), and
//   the rest of the complete set's collateral (size − the maker's amount) in a MINT or a MERGE,
//   so every set is backed by exactly one unit of collateral.
//
// What that guarantees the taker, whose fills all trade at its limit price or better:
// - Only its last fill can leave a maker partly filled; every earlier fill takes the maker's
//   whole remainder r, for which a resting BUY's amount is ceil(p × r) and a resting SELL's
//   floor(p × r).
// - A BUY taker's amount is then at most p × size in every fill but the last, and less than
//   p × size + 1 in the last, so what it pays in all is at most ceil(limit × filled): never more
//   than it reserved, and a reserve of ceil(limit × size) is at most the signed makerAmount.
// - A SELL taker's amount is at least p × size in every fill but the last, and more than
//   p × size − 1 in the last, so what it receives is at least floor(limit × filled), and at
//   least the signed takerAmount (before the taker fee) when it fills whole.
// placement.ts checks both after every taker in verify mode. A SELL taker's size is whole lots at
// the edge, but that does not make its fills exact: a resting order it meets can hold a finer
// remainder (a resting SELL NO after a market BUY of NO, a resting BUY after a MINT with a market
// BUY of the other token).
import { Side } from '../command.js';
import { FillKind } from '../events/events.js';
import { notionalCeilMicros, notionalMicros } from './notional.js';

/** The maker's collateral: paid by a resting BUY, received by a resting SELL (see above). */
export function fillMakerMicros(makerSide: number, makerPriceUnits: number, makerRemainingMicros: number, sizeMicros: number): number {
  if (makerSide === Side.Sell) return notionalMicros(makerPriceUnits, sizeMicros);
  return notionalCeilMicros(makerPriceUnits, makerRemainingMicros) -
    notionalCeilMicros(makerPriceUnits, makerRemainingMicros - sizeMicros);
}

/** The taker's collateral, given the maker's: paid by a BUY, received by a SELL (before its fee). */
export function fillTakerMicros(kind: FillKind, makerMicros: number, sizeMicros: number): number {
  return kind === FillKind.NORMAL ? makerMicros : sizeMicros - makerMicros;
}

/**
 * A FILL event's taker collateral, for readers of the events: the event has the fill's prices,
 * and the maker's ORDER_UPDATED right after it has its remainder after the fill.
 */
export function filledTakerMicros(
  kind: FillKind, makerSide: number, makerPriceUnits: number, makerRemainingAfterMicros: number, sizeMicros: number,
): number {
  const maker = fillMakerMicros(makerSide, makerPriceUnits, makerRemainingAfterMicros + sizeMicros, sizeMicros);
  return fillTakerMicros(kind, maker, sizeMicros);
}
