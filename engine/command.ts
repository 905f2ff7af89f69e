// Commands into the engine. One mutable shape for every kind (as in exchange-core), so a ring
// slot can decode into one reused object and the engine reads plain fields without allocating.
// Every command carries its sequence number (assigned by the shard) and its time (stamped by the
// front end); the engine reads no clock, so the same commands always give the same events.
import { idKey } from './orders/id_buckets.js';
import { ID_WORDS } from './orders/id_words.js';

export const CommandKind = {
  AddMarket: 1,
  SetMarketAccepting: 2,
  SetTickSize: 3,
  PlaceOrder: 4,
  CancelOrder: 5,
  CancelOrders: 6,
  CancelAccount: 7,
  CancelAccountMarket: 8,
  Deposit: 9,
  Withdraw: 10,
  ResolveMarket: 11,
  ExpireOrders: 12,
} as const;
export type CommandKind = (typeof CommandKind)[keyof typeof CommandKind];

/** BUY or SELL of the order's own outcome token. */
export const Side = { Buy: 0, Sell: 1 } as const;
export type Side = (typeof Side)[keyof typeof Side];

export const OrderType = { GTC: 0, GTD: 1, FOK: 2, FAK: 3 } as const;
export type OrderType = (typeof OrderType)[keyof typeof OrderType];

/** Outcome index 0 is the YES orientation of a market's book; outcome 1 is NO. */
export const Outcome = { Yes: 0, No: 1 } as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** In CancelAccountMarket, `outcome` set to this cancels both tokens of the market. */
export const OUTCOME_ANY = -1;

const EMPTY_ID_KEY = idKey('');

/**
 * The command record. Fields a kind does not use keep whatever value they had; the engine reads
 * only the fields of the kind it executes:
 * - AddMarket: market, tickUnits, minSizeMicros, feeBps.
 * - SetMarketAccepting: market, accepting. SetTickSize: market, tickUnits.
 * - PlaceOrder: account, orderId (with orderIdKey), market, outcome, side, orderType, postOnly, priceUnits (in the
 *   order's own token: BUY NO at 0.30 is priceUnits 3000), sizeMicros, expirationMs (0 = none).
 * - CancelOrder: account, orderId (with orderIdKey). CancelOrders: account, orderIds. CancelAccount: account.
 * - CancelAccountMarket: account, market, outcome (OUTCOME_ANY for both tokens).
 * - Deposit, Withdraw: account, amountMicros.
 * - ResolveMarket: market, outcome (the winner). ExpireOrders: nothing beyond seq and timeMs.
 */
export class Command {
  kind: CommandKind = CommandKind.ExpireOrders;
  seq = 0;
  timeMs = 0;
  account = '';
  orderId = '';
  /**
   * `idKey(orderIdKeyed)`. Where an id enters the exchange, the front end computes its key as it
   * writes the command's frame, and the command carries both, so the matching thread does not
   * read the id's characters (hashing them was its largest single cost). The engine uses the key
   * only while `orderIdKeyed` is `orderId` (the same string, the decoder sets both together) and
   * computes it otherwise, so a command built without a key, or with a key left from an earlier
   * id, hashes its id as before. In verify mode the engine checks a carried key.
   */
  orderIdKey = EMPTY_ID_KEY;
  orderIdKeyed = '';
  /**
   * The words of `orderIdKeyed` (id_words.ts) at `orderIdWords[orderIdWordsAt ..]`, -1 for none
   * (an id that is not canonical has none): set with the key, and used, like the key, only while
   * `orderIdKeyed` is `orderId`.
   */
  orderIdWords: Float64Array<ArrayBufferLike> = new Float64Array(ID_WORDS);
  orderIdWordsAt = -1;
  orderIds: readonly string[] = [];
  market = 0;
  outcome = 0;
  side: Side = Side.Buy;
  orderType: OrderType = OrderType.GTC;
  postOnly = false;
  priceUnits = 0;
  sizeMicros = 0;
  expirationMs = 0;
  amountMicros = 0;
  tickUnits = 0;
  minSizeMicros = 0;
  feeBps = 0;
  accepting = true;
}

/** The fields of a command as a plain object, for builders in tests, tools and the runtime. */
export type CommandInit = { readonly kind: CommandKind } & Partial<Omit<Command, 'kind'>>;

/** Builds a fresh command (allocates; not for the hot path, which reuses one Command). */
export function makeCommand(init: CommandInit): Command {
  return Object.assign(new Command(), init);
}

/** The `never` check that makes a switch over a closed set exhaustive at compile time. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${String(value)}`);
}
