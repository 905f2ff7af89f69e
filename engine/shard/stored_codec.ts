// Fills and finished orders as a shard stores them (feed_tables.ts, store.ts): a little-endian
// binary layout after a layout byte, stored as one msgpack binary value. msgpack of the objects
// themselves was ~15 % of a matching worker's time at durable peak (their 18 and 15 named fields
// walked and written one by one); a fixed layout is a handful of stores. Values older versions
// wrote are the objects themselves, and read as they are.
//
// Fill (layout 1): f64 seq, u32 fill index, u32 market, str taker order id, str taker account,
// u8 taker outcome, u8 taker side, u32 taker price units, str maker order id, str maker account,
// u8 maker outcome, u8 maker side, u32 maker price units, f64 size, f64 taker fee, u8 fill kind,
// f64 time (ms).
// Order (layout 1): str order id, str owner, u32 market, u8 outcome, u8 side, u8 order type,
// u32 price units, f64 original, f64 matched, f64 remaining, u8 status, u8 cancel reason,
// f64 created, f64 expiration, f64 updated (ms).
// A batch's balance changes (layout 1): u32 count, then per change str address, i32 market,
// i32 outcome (both -1 for collateral), f64 free, f64 reserved; written as the events come, so
// the worker makes no object per change.
import { ByteReader, ByteWriter } from '../bytes.js';
import type { FillKind } from '../events.js';
import type { CancelReason, OrderStatus } from '../order_status.js';
import type { OrderView } from '../reads.js';
import type { StoredFill } from './feed_tables.js';

const FILL_LAYOUT = 1;
const ORDER_LAYOUT = 1;
const BALANCES_LAYOUT = 1;
const SCRATCH_BYTES = 512;
const BALANCES_INITIAL_BYTES = 4096;
/** Where a balance log's count is: after its layout byte. */
const BALANCES_COUNT_AT = 1;

/** One balance change: [address, market, outcome, free, reserved] (market and outcome -1: collateral). */
export type BalanceChange = [address: string, market: number, outcome: number, freeMicros: number, reservedMicros: number];

/** What a reader decoded from a table's value; a value that does not decode is corruption, and says so. */
export function decoded<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} does not decode`);
  return value;
}

/** Encodes into one reused buffer: each result is valid until the next call (put it at once). */
export class StoredWriter extends ByteWriter {
  constructor() {
    super(SCRATCH_BYTES);
  }

  fill(fill: StoredFill): Buffer {
    this.reset();
    this.u8(FILL_LAYOUT);
    this.f64(fill.seq);
    this.u32(fill.fillIndex);
    this.u32(fill.market);
    this.str(fill.takerOrderId);
    this.str(fill.takerAccount);
    this.u8(fill.takerOutcome);
    this.u8(fill.takerSide);
    this.u32(fill.takerPriceUnits);
    this.str(fill.makerOrderId);
    this.str(fill.makerAccount);
    this.u8(fill.makerOutcome);
    this.u8(fill.makerSide);
    this.u32(fill.makerPriceUnits);
    this.f64(fill.sizeMicros);
    this.f64(fill.takerFeeMicros);
    this.u8(fill.fillKind);
    this.f64(fill.timeMs);
    return this.slice(0, this.end());
  }

  order(view: OrderView): Buffer {
    this.reset();
    this.u8(ORDER_LAYOUT);
    this.str(view.orderId);
    this.str(view.owner);
    this.u32(view.market);
    this.u8(view.outcome);
    this.u8(view.side);
    this.u8(view.orderType);
    this.u32(view.priceUnits);
    this.f64(view.originalMicros);
    this.f64(view.matchedMicros);
    this.f64(view.remainingMicros);
    this.u8(view.status);
    this.u8(view.cancelReason);
    this.f64(view.createdAtMs);
    this.f64(view.expirationMs);
    this.f64(view.updatedAtMs);
    return this.slice(0, this.end());
  }
}

/** A batch's balance changes, in order, as they are stored. */
export class BalanceLog extends ByteWriter {
  count = 0;

  constructor() {
    super(BALANCES_INITIAL_BYTES);
    this.u8(BALANCES_LAYOUT);
    this.u32(0);
  }

  add(address: string, market: number, outcome: number, freeMicros: number, reservedMicros: number): void {
    this.str(address);
    this.i32(market);
    this.i32(outcome);
    this.f64(freeMicros);
    this.f64(reservedMicros);
    this.count++;
  }

  /** The stored value: a view of this log, valid until the next add. */
  value(): Buffer {
    this.view.setUint32(BALANCES_COUNT_AT, this.count, true);
    return this.slice(0, this.end());
  }
}

class StoredReader extends ByteReader {
  fill(bytes: Buffer): StoredFill | undefined {
    if (bytes.length === 0 || bytes[0] !== FILL_LAYOUT) return undefined;
    this.start(bytes, 1);
    const seq = this.f64();
    const fillIndex = this.u32();
    const market = this.u32();
    const takerOrderId = this.str();
    const takerAccount = this.str();
    const takerOutcome = this.u8();
    const takerSide = this.u8();
    const takerPriceUnits = this.u32();
    const makerOrderId = this.str();
    const makerAccount = this.str();
    const makerOutcome = this.u8();
    const makerSide = this.u8();
    const makerPriceUnits = this.u32();
    const sizeMicros = this.f64();
    const takerFeeMicros = this.f64();
    const fillKind = this.u8() as FillKind;
    const timeMs = this.f64();
    if (this.at !== bytes.length) return undefined;
    return {
      kind: 'FILL', seq, fillIndex, market, takerOrderId, takerAccount, takerOutcome, takerSide, takerPriceUnits, makerOrderId,
      makerAccount, makerOutcome, makerSide, makerPriceUnits, sizeMicros, takerFeeMicros, fillKind, timeMs,
    };
  }

  order(bytes: Buffer): OrderView | undefined {
    if (bytes.length === 0 || bytes[0] !== ORDER_LAYOUT) return undefined;
    this.start(bytes, 1);
    const orderId = this.str();
    const owner = this.str();
    const market = this.u32();
    const outcome = this.u8();
    const side = this.u8();
    const orderType = this.u8();
    const priceUnits = this.u32();
    const originalMicros = this.f64();
    const matchedMicros = this.f64();
    const remainingMicros = this.f64();
    const status = this.u8() as OrderStatus;
    const cancelReason = this.u8() as CancelReason;
    const createdAtMs = this.f64();
    const expirationMs = this.f64();
    const updatedAtMs = this.f64();
    if (this.at !== bytes.length) return undefined;
    return {
      orderId, owner, market, outcome, side, orderType, priceUnits, originalMicros, matchedMicros, remainingMicros, status,
      cancelReason, createdAtMs, expirationMs, updatedAtMs,
    };
  }

  balances(bytes: Buffer): BalanceChange[] | undefined {
    if (bytes.length === 0 || bytes[0] !== BALANCES_LAYOUT) return undefined;
    this.start(bytes, 1);
    const out: BalanceChange[] = [];
    for (let count = this.u32(); count > 0; count--) out.push([this.str(), this.i32(), this.i32(), this.f64(), this.f64()]);
    return this.at === bytes.length ? out : undefined;
  }
}

const reader = new StoredReader();

/** A stored fill as read from its table: this layout, or the object an older version stored; undefined if neither. */
export function readStoredFill(value: unknown): StoredFill | undefined {
  if (Buffer.isBuffer(value)) return reader.fill(value);
  return isFillObject(value) ? value : undefined;
}

/** A stored order as read from its table: this layout, or the object an older version stored; undefined if neither. */
export function readStoredOrder(value: unknown): OrderView | undefined {
  if (Buffer.isBuffer(value)) return reader.order(value);
  const view = value as Partial<OrderView> | undefined;
  return typeof view === 'object' && view !== null && typeof view.orderId === 'string' && typeof view.owner === 'string' ? view as OrderView : undefined;
}

/** msgpack's bin 8 and bin 16 headers: how a msgpack table holds a stored order's bytes. */
const MSGPACK_BIN8 = 0xc4;
const MSGPACK_BIN16 = 0xc5;

/**
 * The order id of a stored order as a msgpack table holds it (the layout's bytes inside a bin 8
 * or bin 16), read without decoding the rest or copying the value; undefined for anything else
 * (an object an older version stored), which the caller decodes whole.
 */
export function storedOrderIdOf(raw: Buffer): string | undefined {
  let at: number;
  if (raw[0] === MSGPACK_BIN8) at = 2;
  else if (raw[0] === MSGPACK_BIN16) at = 3;
  else return undefined;
  if (raw[at] !== ORDER_LAYOUT || at + 2 > raw.length) return undefined;
  const length = raw[at + 1]!;
  const start = at + 2;
  return start + length <= raw.length ? raw.toString('latin1', start, start + length) : undefined;
}

/** A batch's balance changes as read from their table: this layout, or the arrays older versions stored. */
export function readBalanceChanges(value: unknown): BalanceChange[] | undefined {
  if (Buffer.isBuffer(value)) return reader.balances(value);
  return Array.isArray(value) ? value as BalanceChange[] : undefined;
}

function isFillObject(value: unknown): value is StoredFill {
  const fill = value as Partial<StoredFill> | undefined;
  return typeof fill === 'object' && fill !== null && typeof fill.takerAccount === 'string' && typeof fill.makerAccount === 'string'
    && [fill.seq, fill.fillIndex, fill.market, fill.timeMs, fill.takerPriceUnits, fill.makerPriceUnits, fill.sizeMicros]
      .every((number) => Number.isSafeInteger(number));
}
