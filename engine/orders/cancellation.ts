// Cancels requested by an owner: one order, a list of orders, all of an account's orders, or
// all of them in one market (optionally one outcome token). Only the unfilled remainder is
// cancelled. Cancels of several orders go in a fixed order (the list's order, or placement
// order for account-wide cancels) so replays emit the same events.
import { assert } from '../assert.js';
import { nothingRecorded } from '../events/change_events.js';
import { OUTCOME_ANY, type Command } from '../command.js';
import { CANCEL_IDS_MAX, ORDER_ID_LENGTH_MAX } from '../constants.js';
import { NO_ID_WORDS } from './id_words.js';
import { NIL } from '../market/ladder.js';
import { cancelLive } from './order_lifecycle.js';
import { CancelReason } from './order_status.js';
import { Reject } from '../events/reject.js';
import type { EngineState } from '../state/state.js';

export function cancelOrder(state: EngineState, command: Command): void {
  const words = command.orderIdWords;
  const at = state.commandIdWordsAt(command);
  const hash = state.commandIdHash(command);
  cancelOne(state, command.account, command.orderId, hash, words, at, nothingRecorded(state));
}

export function cancelOrders(state: EngineState, command: Command): void {
  const ids = command.orderIds;
  if (ids.length > CANCEL_IDS_MAX) {
    state.events.pushCancelRejected('', command.account, Reject.TOO_MANY_CANCEL_IDS);
    return;
  }
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index]!;
    cancelOne(state, command.account, id, state.hashId(id), NO_ID_WORDS, -1, false);
  }
}

/**
 * Cancels `orderId` (hashed as `hash`; its words at `words[at ..]`, at -1 for none) for
 * `address`, or emits why not; `alone` as cancelLive's.
 */
function cancelOne(
  state: EngineState, address: string, orderId: string, hash: number, words: Float64Array, at: number, alone: boolean,
): void {
  const reject = findCancellable(state, address, orderId, hash, words, at);
  if (reject < 0) state.events.pushCancelRejected(orderId, address, -reject);
  else cancelLive(state, reject, CancelReason.CANCELED, alone);
}

/**
 * The live slot `address` may cancel, or a rejection as a negative number. Ownership compares the
 * order's account's address with the caller's, not account indexes: the order is found by its id
 * first anyway, and its address answers what the accounts' Map would (an address is interned
 * once, so equal addresses are one index) without a Map lookup, which hashed the caller's address
 * and missed the cache (deep flow, ~0.45 misses a command).
 */
function findCancellable(
  state: EngineState, address: string, orderId: string, hash: number, words: Float64Array, at: number,
): number {
  // An id with words is canonical, so its length is in range: the check would read the string.
  if (at < 0 && (orderId.length === 0 || orderId.length > ORDER_ID_LENGTH_MAX)) return -Reject.ORDER_NOT_FOUND;
  const addresses = state.ledger.accounts.addresses;
  const slot = state.live.find(orderId, hash, words, at);
  if (slot !== -1) return addresses[state.orders.accountOf(slot)] === address ? slot : -Reject.NOT_OWNER;
  const entry = state.finished.find(orderId, hash);
  if (entry === -1) return -Reject.ORDER_NOT_FOUND;
  return addresses[state.history.account[entry]!] === address ? -Reject.ALREADY_DONE : -Reject.NOT_OWNER;
}

export function cancelAccount(state: EngineState, command: Command): void {
  const account = state.ledger.accounts.find(command.account);
  if (account === -1) return;
  cancelAccountOrders(state, account, -1, OUTCOME_ANY);
}

export function cancelAccountMarket(state: EngineState, command: Command): void {
  const outcome = command.outcome;
  if (!state.markets.has(command.market)) {
    state.events.pushCommandRejected(Reject.UNKNOWN_MARKET, command.market, command.account);
    return;
  }
  if (outcome !== OUTCOME_ANY && outcome !== 0 && outcome !== 1) {
    state.events.pushCommandRejected(Reject.INVALID_OUTCOME, command.market, command.account);
    return;
  }
  const account = state.ledger.accounts.find(command.account);
  if (account === -1) return;
  cancelAccountOrders(state, account, command.market, outcome);
}

/** Cancels the account's orders in placement order; market -1 and OUTCOME_ANY match all. */
function cancelAccountOrders(state: EngineState, account: number, market: number, outcome: number): void {
  const orders = state.orders;
  let slot = state.ledger.accounts.orderHead[account]!;
  let visited = 0;
  while (slot !== NIL) {
    const following = orders.accountNextOf(slot);
    const marketMatches = market === -1 || orders.marketOf(slot) === market;
    if (marketMatches && (outcome === OUTCOME_ANY || orders.outcomeOf(slot) === outcome)) {
      cancelLive(state, slot, CancelReason.CANCELED);
    }
    slot = following;
    visited += 1;
    assert(visited <= orders.capacity, 'account order list terminates');
  }
}
