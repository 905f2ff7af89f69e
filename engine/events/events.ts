// Events out of the engine, written into a reusable buffer of rows: NUMBERS_PER_ROW numbers in
// one Float64Array and STRINGS_PER_ROW references to the command's strings (order ids,
// addresses) in one array, so writing an event allocates nothing and touches two arrays (with a
// typed array per column, every field written cost a load of its column's base and length).
// The consumer reads the rows after each command or batch and clears the buffer; the buffer
// doubles when a command needs more rows. Each kind uses the fields listed on it; the other
// fields of its row hold leftovers.
//
// Indexes into the rows are written `(base + Field.x) | 0` and rows found with Math.imul:
// TurboFan compiles a plain `base + 3` as an int32 add with an overflow check (it speculates
// on small integers and must deoptimize past 2^31), and the truncation tells it no check is
// needed, which no index here comes near. With the same in the order records, the ladder's
// links, the id buckets and the ledger's share indexes: callgrind, one window each, deep
// 3 616 -> 3 581 instructions a command, normal 4 682 -> 4 557, fast 5 365 -> 5 209.
import { assert } from '../assert.js';
import { EVENTS_CAPACITY_LIMIT } from '../constants.js';

export const EventKind = {
  /** orderId account market outcome side orderType priceUnits sizeMicros matchedMicros
   *  remainingMicros expirationMs flags(bit 0: the remainder rests on the book). After the
   *  order's fills. */
  ORDER_ACCEPTED: 1,
  /** orderId account market outcome side orderType priceUnits sizeMicros code(Reject). */
  ORDER_REJECTED: 2,
  /** orderId account market outcome side orderType priceUnits sizeMicros matchedMicros
   *  remainingMicros createdAtMs expirationMs: a resting order was (partly) filled;
   *  remainingMicros 0 means fully filled (MATCHED). */
  ORDER_UPDATED: 3,
  /** orderId account market outcome side orderType priceUnits sizeMicros matchedMicros
   *  remainingMicros (the part released) createdAtMs expirationMs code(CancelReason). */
  ORDER_CANCELLED: 4,
  /** orderId account code(Reject): one id of a cancel command that cancelled nothing. */
  CANCEL_REJECTED: 5,
  /** fillIndex (0.. within the command) orderId/account (taker) makerOrderId/makerAccount
   *  market outcome/side/priceUnits (taker's token) makerOutcome/makerSide/makerPriceUnits
   *  sizeMicros feeMicros (taker fee) code(FillKind). */
  FILL: 6,
  /** market side(BookSide, YES orientation) priceUnits(YES) sizeMicros (new aggregate). */
  LEVEL: 7,
  /** account market outcome (both -1 for collateral) freeMicros reservedMicros. */
  BALANCE: 8,
  /** market tickUnits sizeMicros(minimum size) feeBps flags(bit 0 accepting, bit 1 resolved)
   *  outcome(winner, -1 for none). After AddMarket, SetMarketAccepting, SetTickSize, ResolveMarket. */
  MARKET: 9,
  /** code(Reject) market account: a market or collateral command that changed nothing. */
  COMMAND_REJECTED: 10,
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

export const FillKind = {
  /** Same token, opposite sides: shares and collateral change hands. */
  NORMAL: 0,
  /** BUY YES against BUY NO: both pay, a complete set is created. */
  MINT: 1,
  /** SELL YES against SELL NO: the set is destroyed, both are paid from its collateral. */
  MERGE: 2,
} as const;
export type FillKind = (typeof FillKind)[keyof typeof FillKind];

export const ACCEPTED_RESTS = 1;
export const MARKET_ACCEPTING = 1;
export const MARKET_RESOLVED = 2;

/** Numeric fields of a row (offsets into its NUMBERS_PER_ROW numbers). */
export const Field = {
  kind: 0,
  seq: 1,
  code: 2,
  market: 3,
  outcome: 4,
  side: 5,
  orderType: 6,
  priceUnits: 7,
  makerOutcome: 8,
  makerSide: 9,
  makerPriceUnits: 10,
  fillIndex: 11,
  flags: 12,
  tickUnits: 13,
  feeBps: 14,
  sizeMicros: 15,
  matchedMicros: 16,
  remainingMicros: 17,
  feeMicros: 18,
  freeMicros: 19,
  reservedMicros: 20,
  createdAtMs: 21,
  expirationMs: 22,
} as const;
export type Field = (typeof Field)[keyof typeof Field];

/** String fields of a row. */
export const Text = { orderId: 0, account: 1, makerOrderId: 2, makerAccount: 3 } as const;
export type Text = (typeof Text)[keyof typeof Text];

const NUMBERS_PER_ROW = 24;
const STRINGS_PER_ROW = 4;
assert(EVENTS_CAPACITY_LIMIT * NUMBERS_PER_ROW < 2 ** 31, 'row indexes stay int32 (the `| 0` above)');

export class EventBuffer {
  count = 0;
  /** The sequence number written into every row until the engine sets the next one. */
  seqCurrent = 0;
  private numbers: Float64Array;
  private strings: string[] = [];
  private rowsMax = 0;

  constructor(initialCapacity: number) {
    assert(Number.isInteger(initialCapacity) && initialCapacity > 0, 'event buffer capacity');
    this.numbers = new Float64Array(0);
    this.resize(initialCapacity);
  }

  capacity(): number {
    return this.rowsMax;
  }

  /** Forgets every row (string references are overwritten as rows are reused). */
  clear(): void {
    this.count = 0;
  }

  kindOf(row: number): EventKind {
    return this.numbers[row * NUMBERS_PER_ROW]! as EventKind;
  }

  /** A numeric field of a row. */
  get(row: number, field: Field): number {
    return this.numbers[row * NUMBERS_PER_ROW + field]!;
  }

  /** Rewrites a row's code (a runtime that knows more than the engine explains a rejection). */
  setCode(row: number, code: number): void {
    this.numbers[row * NUMBERS_PER_ROW + Field.code] = code;
  }

  /** A string field of a row. */
  text(row: number, field: Text): string {
    return this.strings[row * STRINGS_PER_ROW + field]!;
  }

  /** ORDER_ACCEPTED, after the order's fills; the caller sets its expirationMs (see setNumber). */
  pushAccepted(
    orderId: string, account: string, market: number, outcome: number, side: number, orderType: number,
    priceUnits: number, sizeMicros: number, matchedMicros: number, remainingMicros: number, flags: number,
  ): number {
    const row = this.row(EventKind.ORDER_ACCEPTED);
    this.setOrderAndAccount(row, orderId, account);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.setOrder(base, market, outcome, side, priceUnits, sizeMicros);
    const numbers = this.numbers;
    numbers[(base + Field.orderType) | 0] = orderType;
    numbers[(base + Field.matchedMicros) | 0] = matchedMicros;
    numbers[(base + Field.remainingMicros) | 0] = remainingMicros;
    numbers[(base + Field.flags) | 0] = flags;
    return row;
  }

  pushRejected(
    orderId: string, account: string, market: number, outcome: number, side: number, orderType: number,
    priceUnits: number, sizeMicros: number, code: number,
  ): void {
    const row = this.row(EventKind.ORDER_REJECTED);
    this.setOrderAndAccount(row, orderId, account);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.setOrder(base, market, outcome, side, priceUnits, sizeMicros);
    const numbers = this.numbers;
    numbers[(base + Field.orderType) | 0] = orderType;
    numbers[(base + Field.code) | 0] = code;
  }

  /**
   * ORDER_UPDATED (a resting order was filled; code unused) or ORDER_CANCELLED (code is the
   * CancelReason): the order's progress after the change, with what a record of the order needs.
   * The caller sets createdAtMs and expirationMs (see setNumber).
   */
  pushProgress(
    kind: typeof EventKind.ORDER_UPDATED | typeof EventKind.ORDER_CANCELLED, orderId: string, account: string,
    market: number, outcome: number, side: number, orderType: number, priceUnits: number, sizeMicros: number,
    matchedMicros: number, remainingMicros: number, code: number,
  ): number {
    const row = this.row(kind);
    this.setOrderAndAccount(row, orderId, account);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.setOrder(base, market, outcome, side, priceUnits, sizeMicros);
    const numbers = this.numbers;
    numbers[(base + Field.matchedMicros) | 0] = matchedMicros;
    numbers[(base + Field.remainingMicros) | 0] = remainingMicros;
    numbers[(base + Field.orderType) | 0] = orderType;
    numbers[(base + Field.code) | 0] = code;
    return row;
  }

  pushCancelRejected(orderId: string, account: string, code: number): void {
    const row = this.row(EventKind.CANCEL_REJECTED);
    this.setOrderAndAccount(row, orderId, account);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.numbers[(base + Field.code) | 0] = code;
  }

  /** A fill: the taker's order, token, side and price, then the maker's. */
  pushFill(
    fillIndex: number, orderId: string, account: string, market: number, outcome: number, side: number,
    priceUnits: number, sizeMicros: number, feeMicros: number, fillKind: FillKind, makerOrderId: string,
    makerAccount: string, makerOutcome: number, makerSide: number, makerPriceUnits: number,
  ): void {
    const row = this.row(EventKind.FILL);
    this.setOrderAndAccount(row, orderId, account);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.setOrder(base, market, outcome, side, priceUnits, sizeMicros);
    const numbers = this.numbers;
    numbers[(base + Field.fillIndex) | 0] = fillIndex;
    numbers[(base + Field.feeMicros) | 0] = feeMicros;
    numbers[(base + Field.code) | 0] = fillKind;
    numbers[(base + Field.makerOutcome) | 0] = makerOutcome;
    numbers[(base + Field.makerSide) | 0] = makerSide;
    numbers[(base + Field.makerPriceUnits) | 0] = makerPriceUnits;
    const strings = Math.imul(row, STRINGS_PER_ROW);
    this.strings[(strings + Text.makerOrderId) | 0] = makerOrderId;
    this.strings[(strings + Text.makerAccount) | 0] = makerAccount;
  }

  /** A LEVEL row; the caller sets its sizeMicros, a level's aggregate (see setNumber). */
  pushLevel(market: number, bookSide: number, priceUnits: number): number {
    const row = this.row(EventKind.LEVEL);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    const numbers = this.numbers;
    numbers[(base + Field.market) | 0] = market;
    numbers[(base + Field.side) | 0] = bookSide;
    numbers[(base + Field.priceUnits) | 0] = priceUnits;
    return row;
  }

  /** A BALANCE row; the caller sets its freeMicros and reservedMicros (see setNumber). */
  pushBalance(account: string, market: number, outcome: number): number {
    const row = this.row(EventKind.BALANCE);
    this.strings[(Math.imul(row, STRINGS_PER_ROW) + Text.account) | 0] = account;
    const base = Math.imul(row, NUMBERS_PER_ROW);
    const numbers = this.numbers;
    numbers[(base + Field.market) | 0] = market;
    numbers[(base + Field.outcome) | 0] = outcome;
    return row;
  }

  /**
   * Sets a numeric field of a row just pushed. Times, balances and level sizes are set this way
   * rather than passed to the push methods: a number past the small-integer range is boxed into a
   * new heap number to cross a call TurboFan did not inline, and in some compilations of the
   * engine it did not inline those (V8's sampling heap profiler: ~16 bytes a command of the normal
   * flow). This one is not small enough to be inlined whatever the budget (43 bytes of bytecode;
   * V8 always inlines 27 or fewer), and under the old budget it was itself left as a call in some
   * compilations; under the server's budget (http/node_flags.ts) every call on the command path is
   * inlined, this one included.
   */
  setNumber(row: number, field: Field, value: number): void {
    this.numbers[(Math.imul(row, NUMBERS_PER_ROW) + field) | 0] = value;
  }

  pushMarket(
    market: number, tickUnits: number, minSizeMicros: number, feeBps: number, flags: number, winner: number,
  ): void {
    const row = this.row(EventKind.MARKET);
    const base = Math.imul(row, NUMBERS_PER_ROW);
    const numbers = this.numbers;
    numbers[(base + Field.market) | 0] = market;
    numbers[(base + Field.tickUnits) | 0] = tickUnits;
    numbers[(base + Field.sizeMicros) | 0] = minSizeMicros;
    numbers[(base + Field.feeBps) | 0] = feeBps;
    numbers[(base + Field.flags) | 0] = flags;
    numbers[(base + Field.outcome) | 0] = winner;
  }

  pushCommandRejected(code: number, market: number, account: string): void {
    const row = this.row(EventKind.COMMAND_REJECTED);
    this.strings[(Math.imul(row, STRINGS_PER_ROW) + Text.account) | 0] = account;
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.numbers[(base + Field.code) | 0] = code;
    this.numbers[(base + Field.market) | 0] = market;
  }

  /** Claims the next row, writing its kind and sequence number; returns its index. */
  private row(kind: EventKind): number {
    const row = this.count;
    if (row === this.rowsMax) this.resize(2 * row);
    this.count = (row + 1) | 0;
    const base = Math.imul(row, NUMBERS_PER_ROW);
    this.numbers[(base + Field.kind) | 0] = kind;
    this.numbers[(base + Field.seq) | 0] = this.seqCurrent;
    return row;
  }

  /** The fields every order event has: market, token, side, price and size. */
  private setOrder(base: number, market: number, outcome: number, side: number, priceUnits: number, sizeMicros: number): void {
    const numbers = this.numbers;
    numbers[(base + Field.market) | 0] = market;
    numbers[(base + Field.outcome) | 0] = outcome;
    numbers[(base + Field.side) | 0] = side;
    numbers[(base + Field.priceUnits) | 0] = priceUnits;
    numbers[(base + Field.sizeMicros) | 0] = sizeMicros;
  }

  /** Writes a row's order id and account (kinds without them leave the fields as they were). */
  private setOrderAndAccount(row: number, orderId: string, account: string): void {
    const strings = Math.imul(row, STRINGS_PER_ROW);
    this.strings[(strings + Text.orderId) | 0] = orderId;
    this.strings[(strings + Text.account) | 0] = account;
  }

  private resize(rows: number): void {
    assert(rows <= EVENTS_CAPACITY_LIMIT, 'event buffer: the consumer clears it');
    const numbers = new Float64Array(rows * NUMBERS_PER_ROW);
    numbers.set(this.numbers);
    this.numbers = numbers;
    while (this.strings.length < rows * STRINGS_PER_ROW) this.strings.push('');
    this.rowsMax = rows;
  }
}
