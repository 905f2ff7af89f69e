// Every limit of the matching engine, with why it has its value. The relationships the engine's
// integer arithmetic depends on are asserted when this module loads, so a change to one number
// that breaks another fails at start-up rather than as a silent rounding error at run time.
import { assert } from './assert.js';

/** Prices are integer units of 0.0001; a price of 1.00 is this many units. */
export const PRICE_UNITS_PER_ONE = 10_000;

/** Price ladders are indexed by price unit, 0 ..= PRICE_UNITS_PER_ONE (0 and 1.00 stay empty). */
export const PRICE_LEVELS_COUNT = PRICE_UNITS_PER_ONE + 1;

/** Shares and collateral are integer micro-units (10^-6, as on chain). */
export const MICROS_PER_ONE = 1_000_000;

/**
 * A lot: 0.01 share, the precision of every size but a market BUY's (contract §4) and of a
 * market's minimum size. A lot equals PRICE_UNITS_PER_ONE micros, so price units × lots is
 * exactly the notional in collateral micros; notional.ts splits any size into whole lots and a
 * remainder below one lot, so its products never leave the safe integers.
 */
export const SIZE_MICROS_PER_LOT = 10_000;

/** Tick sizes a market may use, in price units: 0.1, 0.01, 0.001, 0.0001, 0.0025, 0.005. */
export const TICK_UNITS_ALLOWED: readonly number[] = [1000, 100, 10, 1, 25, 50];

/** Largest single order: 10 million shares, far above any order seen on a prediction market. */
export const SIZE_MICROS_MAX = 10_000_000 * MICROS_PER_ONE;

/** Largest notional of one order or fill: the highest price times the largest size. */
export const NOTIONAL_MICROS_MAX = (PRICE_UNITS_PER_ONE - 1) * (SIZE_MICROS_MAX / SIZE_MICROS_PER_LOT);

/**
 * Aggregate size resting at one price level. Cheap buy orders need little collateral, so the
 * ledger does not bound a level by itself; this cap keeps the aggregate and every sum the
 * matcher forms from it (level + one order) exact.
 */
export const LEVEL_SIZE_MICROS_MAX = 2 ** 52;

/**
 * All collateral inside one engine (deposits minus withdrawals). Every balance, reserve, fee
 * total and complete-set count is a part of it, so this one cap (about 2.25 billion in
 * collateral per engine) keeps all of them, and the sum of any two, exact.
 */
export const COLLATERAL_SUPPLY_MICROS_MAX = 2 ** 51;

/** Fees are in basis points of the taker's notional. */
export const BPS_PER_ONE = 10_000;

/** Highest taker fee a market may charge (10 %); a SELL taker always receives something. */
export const FEE_BPS_MAX = 1_000;

/** A GTD order must live at least this long (contract §4: expiration at least 60 s ahead). */
export const GTD_EXPIRATION_LEAD_MS = 60_000;

/** Times and expirations are epoch milliseconds below this bound (the year 6429). */
export const TIME_MS_MAX = 2 ** 47;

/** Default order slots per engine (resting orders at once); BOOK_FULL beyond it. */
export const ORDER_SLOTS_DEFAULT = 1 << 20;

/** Hard ceiling on order slots: slot indices and list links are Int32. */
export const ORDER_SLOTS_LIMIT = 1 << 24;

/** Default cap on one account's open orders in one engine; TOO_MANY_ORDERS beyond it. */
export const ACCOUNT_ORDERS_DEFAULT = 10_000;

/**
 * Default number of finished orders remembered for duplicate-id checks and order reads. The
 * runtime's stored orders keep every finished order (and refuse their ids before the engine
 * sees them), so this is a cache, sized to stay in a core's own cache with the rest of the hot
 * state: at 2^12 its id index takes 64 KB and its columns ~290 KB. At 2^16 (1 MB of index, 4.5 MB
 * of columns) every finish and every duplicate check missed the core's cache, and the benchmark
 * flows ran 12-20 % slower; at 2^20 nearly every one missed the last-level cache too.
 */
export const ORDER_HISTORY_DEFAULT = 1 << 12;

/** Hard ceiling on remembered finished orders. */
export const ORDER_HISTORY_LIMIT = 1 << 24;

/** Markets per engine; a market's two ladders take about 330 KB, so 4096 take about 1.3 GB. */
export const MARKETS_MAX = 4096;

/** Default markets per engine; the caller's market indices must lie below it. */
export const MARKETS_DEFAULT = 1024;

/** Accounts per engine (interned addresses); ACCOUNTS_FULL beyond it. */
export const ACCOUNTS_MAX = 1 << 22;

/** Default accounts per engine. */
export const ACCOUNTS_DEFAULT = 1 << 20;

/** Default (account, market) positions per engine; POSITIONS_FULL beyond it. */
export const POSITIONS_DEFAULT = 1 << 21;

/** Hard ceiling on positions. */
export const POSITIONS_LIMIT = 1 << 24;

/** Order ids in one CancelOrders command (contract §4: DELETE /orders takes ≤ 1000). */
export const CANCEL_IDS_MAX = 1000;

/** Order ids are 0x + 64 hex at the edge; anything longer than this is refused. */
export const ORDER_ID_LENGTH_MAX = 128;

/** Initial rows of an event buffer; it doubles when a command needs more. */
export const EVENTS_CAPACITY_INITIAL = 1024;

/** Hard ceiling on event rows between two clears: a consumer that never clears is a bug. */
export const EVENTS_CAPACITY_LIMIT = 1 << 26;

assert(SIZE_MICROS_PER_LOT === PRICE_UNITS_PER_ONE, 'a lot times a price unit must be one micro');
assert(MICROS_PER_ONE % SIZE_MICROS_PER_LOT === 0, 'a share must be a whole number of lots');
assert(SIZE_MICROS_MAX % SIZE_MICROS_PER_LOT === 0, 'the largest size must be whole lots');
// notional.ts: price units × whole lots, and price units × a remainder below one lot, exact.
assert(Number.isSafeInteger((PRICE_UNITS_PER_ONE - 1) * (SIZE_MICROS_MAX / SIZE_MICROS_PER_LOT)), 'lots product');
assert(Number.isSafeInteger(PRICE_UNITS_PER_ONE * SIZE_MICROS_PER_LOT), 'remainder product');
assert(Number.isSafeInteger(NOTIONAL_MICROS_MAX), 'largest price × size must be a safe integer');
assert(NOTIONAL_MICROS_MAX <= COLLATERAL_SUPPLY_MICROS_MAX, 'one notional fits in the supply');
// The fee is computed as (notional / 10_000) × bps + (notional % 10_000) × bps / 10_000.
assert(Number.isSafeInteger(Math.floor(NOTIONAL_MICROS_MAX / BPS_PER_ONE) * FEE_BPS_MAX), 'fee');
assert(Number.isSafeInteger(BPS_PER_ONE * FEE_BPS_MAX), 'fee remainder product');
assert(FEE_BPS_MAX < BPS_PER_ONE, 'a SELL taker must receive more than the fee');
assert(Number.isSafeInteger(LEVEL_SIZE_MICROS_MAX + SIZE_MICROS_MAX), 'level plus one order');
assert(Number.isSafeInteger(2 * COLLATERAL_SUPPLY_MICROS_MAX), 'supply sums stay exact');
assert(Number.isSafeInteger(TIME_MS_MAX + GTD_EXPIRATION_LEAD_MS), 'time arithmetic');
for (const tick of TICK_UNITS_ALLOWED) {
  assert(PRICE_UNITS_PER_ONE % tick === 0, 'every tick divides 1.00');
}
assert(ORDER_SLOTS_DEFAULT <= ORDER_SLOTS_LIMIT, 'order slot default within the ceiling');
assert(ORDER_SLOTS_LIMIT <= 2 ** 31 - 1, 'slot indices fit Int32');
assert(ORDER_HISTORY_DEFAULT <= ORDER_HISTORY_LIMIT, 'history default within the ceiling');
assert(MARKETS_DEFAULT <= MARKETS_MAX, 'market default within the ceiling');
assert(ACCOUNTS_DEFAULT <= ACCOUNTS_MAX, 'account default within the ceiling');
assert(POSITIONS_DEFAULT <= POSITIONS_LIMIT, 'position default within the ceiling');
