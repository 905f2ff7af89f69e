// Whole-state checks, O(state), run after every command in verify mode (always on in tests) and
// callable at any time. A failure is a programmer error and throws. What is checked:
// - books: ladder links, level aggregates, bitmap and best prices; no crossed book;
// - orders: every live order is indexed by its id, listed under its owner, on its book and not
//   past its expiration, and in the expiry heap if it is GTD; history entries are indexed;
//   per-account counts and caps hold;
// - ledger: collateral is conserved (free + reserved + complete sets = deposits − withdrawals);
//   per market YES supply = NO supply = complete sets; reserved amounts equal what open orders
//   need (a BUY: ceil(price × remainder), its notional rounded up to the micro; a SELL: its
//   remainder); no balance, remainder or level is negative or fractional.
// The history check is O(remembered orders); after each command in verify mode it covers a
// rotating window of the history instead, so every entry is still checked as commands go by.
import { assert } from '../assert.js';
import { ID_WORDS, parseIdWords } from '../orders/id_words.js';
import { OrderType, Side } from '../command.js';
import { notionalCeilMicros } from '../ledger/notional.js';
import { NIL } from '../market/ladder.js';
import { bookPriceOf } from '../market/book.js';
import type { EngineState } from './state.js';

/** Finished orders whose index entry one per-command check looks at. */
const HISTORY_WINDOW = 64;

/** Checks every invariant; `wholeHistory` false checks the next window of the history only. */
export function checkInvariants(state: EngineState, wholeHistory: boolean): void {
  checkBooks(state);
  const expected = checkOrders(state);
  checkCollateral(state, expected.collateral);
  checkShares(state, expected.shares);
  checkIds(state, wholeHistory);
  checkExpiries(state);
}

function checkBooks(state: EngineState): void {
  const orders = state.orders;
  const sizeOf = (slot: number): number => {
    assert(orders.isLive(slot), 'book holds only live orders');
    return orders.remainingOf(slot);
  };
  let resting = 0;
  for (const market of state.markets.indices()) {
    const book = state.markets.book(market);
    book.bids.verify(sizeOf);
    book.asks.verify(sizeOf);
    assert(book.isUncrossed(), 'no crossed book');
    resting += book.bids.ordersCount() + book.asks.ordersCount();
  }
  assert(resting === orders.count(), 'every live order rests on a book');
}

interface ExpectedReserves {
  readonly collateral: Map<number, number>;
  readonly shares: Map<number, number>;
}

/**
 * Walks every account's open-order list (O(live orders), however large the slot table), checks
 * each order and the lists, and sums what open orders need reserved: collateral by account,
 * shares by position × 2 + outcome.
 */
function checkOrders(state: EngineState): ExpectedReserves {
  const orders = state.orders;
  const accounts = state.ledger.accounts;
  const expected: ExpectedReserves = { collateral: new Map(), shares: new Map() };
  let listed = 0;
  for (let account = 0; account < accounts.count(); account += 1) {
    let count = 0;
    for (let slot = accounts.orderHead[account]!; slot !== NIL; slot = orders.accountNextOf(slot)) {
      assert(orders.isLive(slot) && orders.accountOf(slot) === account, 'account list holds its live orders');
      assert(count < orders.capacity, 'account list terminates');
      checkOrder(state, slot, expected);
      count += 1;
    }
    assert(count === accounts.orderCount[account], 'account order count');
    assert(count <= state.config.accountOrdersMax, 'account order cap');
    listed += count;
  }
  assert(listed === orders.count(), 'every live order is listed under its owner');
  return expected;
}

function checkOrder(state: EngineState, slot: number, expected: ExpectedReserves): void {
  const orders = state.orders;
  const remaining = orders.remainingOf(slot);
  assert(remaining > 0 && remaining <= orders.originalOf(slot), 'live order has a remainder');
  assert(Number.isSafeInteger(remaining) && Number.isSafeInteger(orders.originalOf(slot)), 'sizes are whole micros');
  assert(orders.expirationOf(slot) === 0 || orders.expirationOf(slot) > state.timeMs, 'no expired order rests');
  assert(state.ledger.positions.find(orders.accountOf(slot), orders.marketOf(slot)) === orders.positionOf(slot),
    'order knows its position');
  assert(orders.idHashOf(slot) === state.hashId(orders.idOf(slot)), 'live order keeps its id hash');
  assert(state.live.find(orders.idOf(slot), orders.idHashOf(slot)) === slot, 'live order is indexed');
  if (orders.hasIdWords(slot)) {
    const words = new Float64Array(ID_WORDS);
    assert(parseIdWords(orders.idOf(slot), words, 0) && orders.idMatches(slot, orders.idOf(slot), words, 0),
      'live order keeps its id\'s words');
    assert(state.live.find(orders.idOf(slot), orders.idHashOf(slot), words, 0) === slot, 'live order is found by its words');
  }
  if (orders.sideOf(slot) === Side.Buy) {
    const price = bookPriceOf(orders.outcomeOf(slot), orders.levelOf(slot));
    const account = orders.accountOf(slot);
    expected.collateral.set(account, (expected.collateral.get(account) ?? 0) + notionalCeilMicros(price, remaining));
  } else {
    const key = 2 * orders.positionOf(slot) + orders.outcomeOf(slot);
    expected.shares.set(key, (expected.shares.get(key) ?? 0) + remaining);
  }
}

function checkCollateral(state: EngineState, expected: Map<number, number>): void {
  const ledger = state.ledger;
  const accounts = ledger.accounts;
  let total = 0;
  for (let account = 0; account < accounts.count(); account += 1) {
    const free = accounts.collateralFree[account]!;
    const reserved = accounts.collateralReserved[account]!;
    assert(Number.isSafeInteger(free) && free >= 0, 'free collateral is a non-negative integer');
    assert(reserved === (expected.get(account) ?? 0), 'reserved collateral equals what open BUYs need');
    total += free + reserved;
  }
  for (const market of state.markets.indices()) total += ledger.setsMicros[market]!;
  assert(total === ledger.supplyMicros, 'collateral is conserved');
}

function checkShares(state: EngineState, expected: Map<number, number>): void {
  const ledger = state.ledger;
  const positions = ledger.positions;
  for (const market of state.markets.indices()) {
    let yesSupply = 0;
    let noSupply = 0;
    let count = 0;
    for (let position = positions.marketHead[market]!; position !== NIL; position = positions.marketNext[position]!) {
      for (let outcome = 0; outcome < 2; outcome += 1) {
        const free = positions.sharesFree[2 * position + outcome]!;
        const reserved = positions.sharesReserved[2 * position + outcome]!;
        assert(Number.isSafeInteger(free) && free >= 0, 'free shares are a non-negative integer');
        assert(reserved === (expected.get(2 * position + outcome) ?? 0), 'reserved shares equal open SELLs');
        if (outcome === 0) yesSupply += free + reserved;
        else noSupply += free + reserved;
      }
      count += 1;
    }
    assert(yesSupply === noSupply && yesSupply === ledger.setsMicros[market], 'YES supply = NO supply = sets');
    assert(state.markets.resolved[market] === 0 || count === 0, 'a resolved market has no positions');
  }
}

function checkIds(state: EngineState, wholeHistory: boolean): void {
  const orders = state.orders;
  const history = state.history;
  assert(state.live.size() === orders.count(), 'the live index holds the live orders');
  assert(state.finished.size() >= history.count() && state.finished.size() <= state.finished.entriesMax,
    'the finished index holds the remembered orders, and at most as many forgotten ones');
  const count = history.count();
  const checks = wholeHistory ? count : Math.min(count, HISTORY_WINDOW);
  for (let check = 0; check < checks; check += 1) {
    state.historyCheckCursor = state.historyCheckCursor + 1 < count ? state.historyCheckCursor + 1 : 0;
    const entry = history.entryAt(wholeHistory ? check : state.historyCheckCursor);
    const id = history.id[entry]!;
    assert(history.idHash[entry] === state.hashId(id), 'a finished order keeps its id hash');
    assert(state.finished.find(id, state.hashId(id)) === entry, 'finished order is indexed');
    assert(state.live.find(id, state.hashId(id)) === -1, 'a finished order is not live');
  }
}

/** Every resting GTD order has exactly one live entry in the expiry heap, at its expiration. */
function checkExpiries(state: EngineState): void {
  const orders = state.orders;
  let liveEntries = 0;
  state.expiries.forEach((expirationMs, serial, slot) => {
    if (!state.isLive(slot, serial)) return;
    assert(orders.orderTypeOf(slot) === OrderType.GTD && orders.expirationOf(slot) === expirationMs, 'heap entry is the order\'s');
    liveEntries += 1;
  });
  let gtdOrders = 0;
  for (let account = 0; account < state.ledger.accounts.count(); account += 1) {
    for (let slot = state.ledger.accounts.orderHead[account]!; slot !== NIL; slot = orders.accountNextOf(slot)) {
      if (orders.orderTypeOf(slot) === OrderType.GTD) gtdOrders += 1;
    }
  }
  assert(liveEntries === gtdOrders, 'every resting GTD order is in the expiry heap once');
}
