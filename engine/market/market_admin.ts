// Market administration (contract §8): add a market, pause or resume it, change its tick, and
// resolve it. Every successful change emits a MARKET event with the market's whole state.
import { type Command } from '../command.js';
import { FEE_BPS_MAX, SIZE_MICROS_MAX, TICK_UNITS_ALLOWED } from '../constants.js';
import { isWholeLots } from '../ledger/notional.js';
import { MARKET_ACCEPTING, MARKET_RESOLVED } from '../events/events.js';
import { NIL } from './ladder.js';
import { cancelLive } from '../orders/order_lifecycle.js';
import { CancelReason } from '../orders/order_status.js';
import { Reject } from '../events/reject.js';
import type { EngineState } from '../state/state.js';

function isValidTick(tickUnits: number): boolean {
  return TICK_UNITS_ALLOWED.includes(tickUnits);
}

function addMarketReject(state: EngineState, command: Command): number {
  const market = command.market;
  if (!Number.isInteger(market) || market < 0 || market >= state.markets.marketsMax) return Reject.INVALID_MARKET_INDEX;
  if (state.markets.has(market)) return Reject.MARKET_EXISTS;
  if (!isValidTick(command.tickUnits)) return Reject.INVALID_TICK_SIZE;
  const minSize = command.minSizeMicros;
  if (!isWholeLots(minSize) || minSize > SIZE_MICROS_MAX) return Reject.INVALID_MIN_SIZE;
  if (!Number.isInteger(command.feeBps) || command.feeBps < 0 || command.feeBps > FEE_BPS_MAX) return Reject.INVALID_FEE;
  return 0;
}

export function addMarket(state: EngineState, command: Command): void {
  const reject = addMarketReject(state, command);
  if (reject !== 0) {
    state.events.pushCommandRejected(reject, command.market, '');
    return;
  }
  state.markets.add(command.market, command.tickUnits, command.minSizeMicros, command.feeBps);
  pushMarket(state, command.market);
}

/** Rejection for a command on an existing, unresolved market, or 0. */
function openMarketReject(state: EngineState, market: number): number {
  if (!state.markets.has(market)) return Reject.UNKNOWN_MARKET;
  return state.markets.resolved[market] === 1 ? Reject.MARKET_RESOLVED : 0;
}

export function setMarketAccepting(state: EngineState, command: Command): void {
  const reject = openMarketReject(state, command.market);
  if (reject !== 0) {
    state.events.pushCommandRejected(reject, command.market, '');
    return;
  }
  state.markets.accepting[command.market] = command.accepting ? 1 : 0;
  pushMarket(state, command.market);
}

/** A new tick (and its size step) applies to new orders; resting orders keep their prices and sizes. */
export function setTickSize(state: EngineState, command: Command): void {
  let reject = openMarketReject(state, command.market);
  if (reject === 0 && !isValidTick(command.tickUnits)) reject = Reject.INVALID_TICK_SIZE;
  if (reject !== 0) {
    state.events.pushCommandRejected(reject, command.market, '');
    return;
  }
  state.markets.setTick(command.market, command.tickUnits);
  pushMarket(state, command.market);
}

/**
 * Resolution: every resting order of the market is cancelled (CANCELED_MARKET_RESOLVED; bids
 * best first, then asks best first, oldest first within a level), then winning shares pay 1.00
 * and losing shares are zeroed. The market stops accepting orders for good.
 */
export function resolveMarket(state: EngineState, command: Command): void {
  const market = command.market;
  let reject = openMarketReject(state, market);
  if (reject === 0 && command.outcome !== 0 && command.outcome !== 1) reject = Reject.INVALID_OUTCOME;
  if (reject !== 0) {
    state.events.pushCommandRejected(reject, market, '');
    return;
  }
  const book = state.markets.book(market);
  for (const ladder of [book.bids, book.asks]) {
    for (let level = ladder.best(); level !== NIL; level = ladder.best()) {
      cancelLive(state, ladder.head(level), CancelReason.MARKET_RESOLVED);
    }
  }
  state.ledger.settleResolution(market, command.outcome);
  state.markets.resolved[market] = 1;
  state.markets.accepting[market] = 0;
  state.markets.winner[market] = command.outcome;
  pushMarket(state, market);
}

function pushMarket(state: EngineState, market: number): void {
  const markets = state.markets;
  const flags = (markets.accepting[market] === 1 ? MARKET_ACCEPTING : 0) | (markets.resolved[market] === 1 ? MARKET_RESOLVED : 0);
  state.events.pushMarket(
    market, markets.tickUnits[market]!, markets.minSizeMicros[market]!, markets.feeBps[market]!, flags,
    markets.winner[market]!,
  );
}
