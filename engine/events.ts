// Events out of the engine, written into a reusable struct-of-arrays buffer: typed-array
// columns for numbers and plain arrays holding references to the command's strings (order ids,
// addresses), so writing an event allocates nothing. The consumer reads the rows after each
// command or batch and clears the buffer; the buffer doubles when a command needs more rows.
// Each kind uses the columns listed on it; other columns of its row hold leftovers.
import { assert } from './assert.js';
import { EVENTS_CAPACITY_LIMIT } from './constants.js';
import { grownFloat64, grownInt32 } from './grow.js';

export const EventKind = {
  /** orderId account market outcome side orderType priceUnits sizeMicros matchedMicros
   *  remainingMicros flags(bit 0: the remainder rests on the book). After the order's fills. */
  ORDER_ACCEPTED: 1,
  /** orderId account market outcome side orderType priceUnits sizeMicros code(Reject). */
  ORDER_REJECTED: 2,
  /** orderId account market outcome side priceUnits sizeMicros matchedMicros remainingMicros:
   *  a resting order was (partly) filled; remainingMicros 0 means fully filled (MATCHED). */
  ORDER_UPDATED: 3,
  /** orderId account market outcome side priceUnits sizeMicros matchedMicros remainingMicros
   *  (the part released) code(CancelReason). */
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

export class EventBuffer {
  count = 0;
  /** The sequence number written into every row until the engine sets the next one. */
  seqCurrent = 0;
  kind = new Uint8Array(0);
  seq = new Float64Array(0);
  code = new Int32Array(0);
  market = new Int32Array(0);
  outcome = new Int32Array(0);
  side = new Int32Array(0);
  orderType = new Int32Array(0);
  priceUnits = new Int32Array(0);
  makerOutcome = new Int32Array(0);
  makerSide = new Int32Array(0);
  makerPriceUnits = new Int32Array(0);
  fillIndex = new Int32Array(0);
  flags = new Int32Array(0);
  tickUnits = new Int32Array(0);
  feeBps = new Int32Array(0);
  sizeMicros = new Float64Array(0);
  matchedMicros = new Float64Array(0);
  remainingMicros = new Float64Array(0);
  feeMicros = new Float64Array(0);
  freeMicros = new Float64Array(0);
  reservedMicros = new Float64Array(0);
  orderId: string[] = [];
  account: string[] = [];
  makerOrderId: string[] = [];
  makerAccount: string[] = [];

  constructor(initialCapacity: number) {
    assert(Number.isInteger(initialCapacity) && initialCapacity > 0, 'event buffer capacity');
    this.resize(initialCapacity);
  }

  capacity(): number {
    return this.kind.length;
  }

  /** Forgets every row (string references are overwritten as rows are reused). */
  clear(): void {
    this.count = 0;
  }

  pushOrder(
    kind: EventKind, orderId: string, account: string, market: number, outcome: number,
    side: number, priceUnits: number, sizeMicros: number,
  ): number {
    const row = this.row(kind);
    this.orderId[row] = orderId;
    this.account[row] = account;
    this.market[row] = market;
    this.outcome[row] = outcome;
    this.side[row] = side;
    this.priceUnits[row] = priceUnits;
    this.sizeMicros[row] = sizeMicros;
    return row;
  }

  /** Adds the progress columns to an order row. */
  setProgress(row: number, matchedMicros: number, remainingMicros: number): void {
    this.matchedMicros[row] = matchedMicros;
    this.remainingMicros[row] = remainingMicros;
  }

  setCode(row: number, code: number): void {
    this.code[row] = code;
  }

  setOrderType(row: number, orderType: number): void {
    this.orderType[row] = orderType;
  }

  setFlags(row: number, flags: number): void {
    this.flags[row] = flags;
  }

  pushCancelRejected(orderId: string, account: string, code: number): void {
    const row = this.row(EventKind.CANCEL_REJECTED);
    this.orderId[row] = orderId;
    this.account[row] = account;
    this.code[row] = code;
  }

  /** Writes the taker's columns of a fill; the caller adds the maker's with setFillMaker. */
  pushFill(
    fillIndex: number, orderId: string, account: string, market: number, outcome: number,
    side: number, priceUnits: number, sizeMicros: number, feeMicros: number, fillKind: FillKind,
  ): number {
    const row = this.row(EventKind.FILL);
    this.fillIndex[row] = fillIndex;
    this.orderId[row] = orderId;
    this.account[row] = account;
    this.market[row] = market;
    this.outcome[row] = outcome;
    this.side[row] = side;
    this.priceUnits[row] = priceUnits;
    this.sizeMicros[row] = sizeMicros;
    this.feeMicros[row] = feeMicros;
    this.code[row] = fillKind;
    return row;
  }

  setFillMaker(row: number, orderId: string, account: string, outcome: number, side: number, priceUnits: number): void {
    this.makerOrderId[row] = orderId;
    this.makerAccount[row] = account;
    this.makerOutcome[row] = outcome;
    this.makerSide[row] = side;
    this.makerPriceUnits[row] = priceUnits;
  }

  pushLevel(market: number, bookSide: number, priceUnits: number, sizeMicros: number): void {
    const row = this.row(EventKind.LEVEL);
    this.market[row] = market;
    this.side[row] = bookSide;
    this.priceUnits[row] = priceUnits;
    this.sizeMicros[row] = sizeMicros;
  }

  pushBalance(account: string, market: number, outcome: number, freeMicros: number, reservedMicros: number): void {
    const row = this.row(EventKind.BALANCE);
    this.account[row] = account;
    this.market[row] = market;
    this.outcome[row] = outcome;
    this.freeMicros[row] = freeMicros;
    this.reservedMicros[row] = reservedMicros;
  }

  pushMarket(
    market: number, tickUnits: number, minSizeMicros: number, feeBps: number, flags: number, winner: number,
  ): void {
    const row = this.row(EventKind.MARKET);
    this.market[row] = market;
    this.tickUnits[row] = tickUnits;
    this.sizeMicros[row] = minSizeMicros;
    this.feeBps[row] = feeBps;
    this.flags[row] = flags;
    this.outcome[row] = winner;
  }

  pushCommandRejected(code: number, market: number, account: string): void {
    const row = this.row(EventKind.COMMAND_REJECTED);
    this.code[row] = code;
    this.market[row] = market;
    this.account[row] = account;
  }

  /** Claims the next row, writing its kind and sequence number. */
  row(kind: EventKind): number {
    if (this.count === this.kind.length) this.resize(this.kind.length * 2);
    const row = this.count;
    this.count = row + 1;
    this.kind[row] = kind;
    this.seq[row] = this.seqCurrent;
    return row;
  }

  private resize(capacity: number): void {
    assert(capacity <= EVENTS_CAPACITY_LIMIT, 'event buffer: the consumer clears it');
    this.kind = growUint8(this.kind, capacity);
    this.seq = grownFloat64(this.seq, capacity);
    this.code = grownInt32(this.code, capacity, 0);
    this.market = grownInt32(this.market, capacity, 0);
    this.outcome = grownInt32(this.outcome, capacity, 0);
    this.side = grownInt32(this.side, capacity, 0);
    this.orderType = grownInt32(this.orderType, capacity, 0);
    this.priceUnits = grownInt32(this.priceUnits, capacity, 0);
    this.makerOutcome = grownInt32(this.makerOutcome, capacity, 0);
    this.makerSide = grownInt32(this.makerSide, capacity, 0);
    this.makerPriceUnits = grownInt32(this.makerPriceUnits, capacity, 0);
    this.fillIndex = grownInt32(this.fillIndex, capacity, 0);
    this.flags = grownInt32(this.flags, capacity, 0);
    this.tickUnits = grownInt32(this.tickUnits, capacity, 0);
    this.feeBps = grownInt32(this.feeBps, capacity, 0);
    this.sizeMicros = grownFloat64(this.sizeMicros, capacity);
    this.matchedMicros = grownFloat64(this.matchedMicros, capacity);
    this.remainingMicros = grownFloat64(this.remainingMicros, capacity);
    this.feeMicros = grownFloat64(this.feeMicros, capacity);
    this.freeMicros = grownFloat64(this.freeMicros, capacity);
    this.reservedMicros = grownFloat64(this.reservedMicros, capacity);
    for (const column of [this.orderId, this.account, this.makerOrderId, this.makerAccount]) {
      while (column.length < capacity) column.push('');
    }
  }
}

function growUint8(array: Uint8Array, capacity: number): Uint8Array<ArrayBuffer> {
  const grown = new Uint8Array(capacity);
  grown.set(array);
  return grown;
}
