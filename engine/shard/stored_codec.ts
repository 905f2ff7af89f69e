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
// A group (layout 2): the records a batch writes to one table, up to GROUP_RECORDS_MAX of them
// in one value, each as u16 length then its bytes (a fill or an order above), keyed by its first
// record's key. A put costs ~2.5 µs here whatever its size, and a durable batch finishes about as
// many orders as it has commands: one put per record was the largest part of a commit. Values an
// older version stored one per key read as a group of one.
import { ByteReader, ByteWriter } from '../bytes.js';
import type { FillKind } from '../events/events.js';
import type { CancelReason, OrderStatus } from '../orders/order_status.js';
import type { OrderView } from '../state/reads.js';
import type { StoredFill } from './feed_tables.js';

const FILL_LAYOUT = 1;
const ORDER_LAYOUT = 1;
const BALANCES_LAYOUT = 1;
const GROUP_LAYOUT = 2;
/** Records in one group: a read of one record decodes its group, so groups stay small (~16 KB). */
export const GROUP_RECORDS_MAX = 64;
const GROUP_INITIAL_BYTES = 16_384;
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

/** One group value being written: add its records in key order, put value(), then reset. */
export class GroupWriter extends ByteWriter {
  records = 0;

  constructor() {
    super(GROUP_INITIAL_BYTES);
    this.reset();
  }

  override reset(): void {
    super.reset();
    this.u8(GROUP_LAYOUT);
    this.records = 0;
  }

  /** Copies `record` (a StoredWriter result) into the group. */
  add(record: Buffer): void {
    this.u16(record.length);
    this.reserve(record.length);
    this.bytes.set(record, this.at);
    this.at += record.length;
    this.records++;
  }

  /** The stored value: a view of this group, valid until the next add or reset. */
  value(): Buffer {
    return this.slice(0, this.end());
  }
}

/** The group this thread writes with putInGroups. */
const groupWriter = new GroupWriter();

/**
 * Puts `records` in groups of up to GROUP_RECORDS_MAX, inside the caller's write transaction:
 * `encode` gives a record's bytes (a StoredWriter result), and `put(first, value)` stores a group
 * under the key of its first record, `first` being that record's place in `records`.
 */
export function putInGroups<T>(records: Iterable<T>, encode: (record: T) => Buffer, put: (first: number, value: Buffer) => void): void {
  const group = groupWriter;
  group.reset();
  let first = 0;
  let index = 0;
  for (const record of records) {
    group.add(encode(record));
    index++;
    if (group.records === GROUP_RECORDS_MAX) {
      put(first, group.value());
      group.reset();
      first = index;
    }
  }
  if (group.records > 0) put(first, group.value());
}

/** Whether `value` is a group (else one record, as older versions stored them). */
function isGroup(value: unknown): value is Buffer {
  return Buffer.isBuffer(value) && value.length > 0 && value[0] === GROUP_LAYOUT;
}

/**
 * Calls `visit(start, end)` for each record of a group, in order, until it returns true; returns
 * false when the group is cut short.
 */
function walkGroup(group: Buffer, visit: (start: number, end: number) => boolean): boolean {
  for (let at = 1; at < group.length;) {
    if (at + 2 > group.length) return false;
    const start = at + 2;
    const end = start + group.readUInt16LE(at);
    if (end > group.length) return false;
    if (visit(start, end)) return true;
    at = end;
  }
  return true;
}

/**
 * The records of a stored value: each record of a group (views of its bytes), or the value
 * itself (one record, as older versions stored them); undefined for a group cut short.
 */
function groupRecords(value: unknown): unknown[] | undefined {
  if (!isGroup(value)) return [value];
  const records: Buffer[] = [];
  return walkGroup(value, (start, end) => {
    records.push(value.subarray(start, end));
    return false;
  }) ? records : undefined;
}

/** Every record of a value read with `read`, or undefined if any does not decode. */
function readAll<T>(value: unknown, read: (record: unknown) => T | undefined): T[] | undefined {
  const records = groupRecords(value);
  if (records === undefined) return undefined;
  const out: T[] = [];
  for (const record of records) {
    const decodedRecord = read(record);
    if (decodedRecord === undefined) return undefined;
    out.push(decodedRecord);
  }
  return out;
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

/**
 * The record of fill [seq, fill index] in a stored value (a group, or one fill, as older
 * versions stored them), found by the key at the start of each record without decoding or
 * slicing the others; null when the value holds fills but not that one; undefined when the value
 * does not decode.
 */
export function storedFillRecordIn(value: unknown, seq: number, fillIndex: number): unknown {
  if (!isGroup(value)) {
    let is: boolean | undefined;
    if (Buffer.isBuffer(value)) is = isFillAt(value, 0, value.length, seq, fillIndex);
    else if (isFillObject(value)) is = value.seq === seq && value.fillIndex === fillIndex;
    return is === undefined ? undefined : is ? value : null;
  }
  // Stops at the fill (found) or at a record that is not a fill (undefined).
  let found: unknown = null;
  const whole = walkGroup(value, (start, end) => {
    const is = isFillAt(value, start, end, seq, fillIndex);
    if (is !== false) found = is ? value.subarray(start, end) : undefined;
    return is !== false;
  });
  return whole ? found : undefined;
}

/**
 * Whether the fill record at [start, end) of `bytes` is fill [seq, fill index], read from its
 * start (the layout byte, then f64 seq and u32 fill index); undefined when it is not a fill record.
 */
function isFillAt(bytes: Buffer, start: number, end: number, seq: number, fillIndex: number): boolean | undefined {
  if (end - start < 13 || bytes[start] !== FILL_LAYOUT) return undefined;
  return bytes.readDoubleLE(start + 1) === seq && bytes.readUInt32LE(start + 9) === fillIndex;
}

/** The fills of a stored value (a group, or one fill), in key order; undefined if any does not decode. */
export function readStoredFills(value: unknown): StoredFill[] | undefined {
  return readAll(value, readStoredFill);
}

/** The orders of a stored value (a group, or one order), in key order; undefined if any does not decode. */
export function readStoredOrders(value: unknown): OrderView[] | undefined {
  return readAll(value, readStoredOrder);
}

/** msgpack's bin 8, bin 16 and bin 32 headers: how a msgpack table holds stored bytes. */
const MSGPACK_BIN8 = 0xc4;
const MSGPACK_BIN16 = 0xc5;
const MSGPACK_BIN32 = 0xc6;

/**
 * The order ids of a stored value as a msgpack table holds it (one order's bytes, or a group's,
 * inside a msgpack bin), read without decoding the rest or copying the value, in key order;
 * undefined for anything else (an object an older version stored), which the caller decodes
 * whole.
 */
export function storedOrderIdsOf(raw: Buffer): string[] | undefined {
  let at: number;
  let length: number;
  if (raw[0] === MSGPACK_BIN8 && raw.length >= 2) [at, length] = [2, raw[1]!];
  else if (raw[0] === MSGPACK_BIN16 && raw.length >= 3) [at, length] = [3, raw.readUInt16BE(1)];
  else if (raw[0] === MSGPACK_BIN32 && raw.length >= 5) [at, length] = [5, raw.readUInt32BE(1)];
  else return undefined;
  if (at + length !== raw.length) return undefined;
  const records = groupRecords(raw.subarray(at));
  if (records === undefined) return undefined;
  const ids: string[] = [];
  for (const record of records as Buffer[]) {
    if (record.length < 2 || record[0] !== ORDER_LAYOUT || 2 + record[1]! > record.length) return undefined;
    ids.push(record.toString('latin1', 2, 2 + record[1]!));
  }
  return ids;
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
