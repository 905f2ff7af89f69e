// Expected failures of a command: stable numbers, grouped by the command family that produces
// them. They are values carried by events, never exceptions; the edge maps them to the
// contract's texts (reject_text.ts). Numbers are never reused or renumbered, because journals
// and clients keep them.

export const Reject = {
  // Placing an order (1..29).
  UNKNOWN_MARKET: 1,
  MARKET_NOT_ACCEPTING: 2,
  /** Price off the market's tick, or outside [tick, 1 − tick]. */
  INVALID_TICK: 3,
  SIZE_BELOW_MIN: 4,
  /** Size not a positive whole number of the market's size step (notional.ts's sizeStepMicros). */
  INVALID_SIZE_PRECISION: 5,
  DUPLICATE_ORDER: 6,
  NOT_ENOUGH_BALANCE: 7,
  /** GTD expiring less than 60 s after the command, or an expiration on a non-GTD order. */
  INVALID_EXPIRATION: 8,
  POST_ONLY_CROSSES: 9,
  FOK_NOT_FILLED: 10,
  FAK_NO_MATCH: 11,
  /** Post-only on FOK or FAK. */
  POST_ONLY_INVALID_TYPE: 12,
  /** The account already has the maximum number of open orders. */
  TOO_MANY_ORDERS: 13,
  /** Every order slot of the engine is in use. */
  BOOK_FULL: 14,
  /** Resting the order would push its price level's aggregate past the level cap. */
  LEVEL_FULL: 15,
  SIZE_ABOVE_MAX: 16,
  /** The engine's (account, market) position table is full. */
  POSITIONS_FULL: 17,
  /** Order id empty or longer than the limit. */
  INVALID_ORDER_ID: 18,

  // Cancelling (30..39).
  ORDER_NOT_FOUND: 30,
  NOT_OWNER: 31,
  /** The order exists but is no longer live (filled, cancelled or expired). */
  ALREADY_DONE: 32,
  TOO_MANY_CANCEL_IDS: 33,

  // Markets (40..49).
  MARKET_EXISTS: 40,
  INVALID_MARKET_INDEX: 41,
  INVALID_TICK_SIZE: 42,
  INVALID_MIN_SIZE: 43,
  INVALID_FEE: 44,
  MARKET_RESOLVED: 45,
  INVALID_OUTCOME: 46,

  // Collateral (50..59).
  INVALID_AMOUNT: 50,
  SUPPLY_LIMIT: 51,
  ACCOUNTS_FULL: 52,
} as const;
export type Reject = (typeof Reject)[keyof typeof Reject];

const names = new Map<number, string>(Object.entries(Reject).map(([name, code]) => [code, name]));

/** The enum member's name, for logs and test output. */
export function rejectName(code: number): string {
  return names.get(code) ?? `REJECT_${code}`;
}
