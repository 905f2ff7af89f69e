// A command frame: what the front end writes into a shard's command ring and what the shard
// journals. It is one engine Command plus what the runtime around the engine needs: the
// request id the answer is matched by, the collateral the front end moves in with a BUY
// (`fundMicros`), and for AddMarket the market's key (its condition id), from which the shard
// assigns the engine's market index. Fixed-width fields first, then short ASCII strings each
// prefixed by its length; decoding writes into one reused Frame, allocating only the strings
// (read from a Buffer over the same bytes, one latin1 slice each). The order id's key
// (Command.orderIdKey) is computed here, on the front end, so the matching thread does not read
// the id's characters; frames journaled before it was carried (no ID_KEY flag) are keyed as they
// are decoded. So are a canonical id's words (Command.orderIdWords, id_words.ts): 32 bytes after
// the strings, flagged ID_WORDS; a frame without them (an id in another form, or a frame
// journaled before they were carried) leaves the engine to compare the id as a string.
import { CommandKind, type Command } from '../command.js';
import { CANCEL_IDS_MAX } from '../constants.js';
import { idKey } from '../orders/id_buckets.js';
import { assert } from '../assert.js';
import { CANONICAL_ID_LENGTH, ID_WORDS, isIdWord, parseIdWords } from '../orders/id_words.js';

export class Frame {
  requestId = 0;
  fundMicros = 0;
  marketKey = '';
  readonly command: Command;
  /** Where decoding puts the order id's words (the command is pointed at them). */
  private readonly idWords = new Float64Array(ID_WORDS);

  constructor(command: Command) {
    this.command = command;
  }

  /** The array decodeFrame reads the id's words into. */
  wordsArray(): Float64Array {
    return this.idWords;
  }
}

/** Flag bits (byte 3). */
const POST_ONLY = 1;
const ACCEPTING = 2;
/** The frame carries the order id's key (bytes 28 to 31), as `idKey` computes it today. */
const ID_KEY = 4;
/** The frame carries the order id's words (ID_WORDS float64s after the strings). */
const ID_WORDS_FLAG = 8;
const ID_WORDS_BYTES = 8 * ID_WORDS;

/** Bytes before the strings. */
const FIXED_BYTES = 80;
/** ASCII strings (addresses, order ids, condition ids) are at most this long. */
export const FRAME_STRING_MAX = 255;
/** The largest frame: a CancelOrders with the most ids of the longest length. */
export const FRAME_BYTES_MAX = FIXED_BYTES + 3 * (1 + FRAME_STRING_MAX) + 2 + CANCEL_IDS_MAX * (1 + FRAME_STRING_MAX);
// An id with words is 66 characters, so its words never make a frame longer than the longest id.
assert(CANONICAL_ID_LENGTH + ID_WORDS_BYTES <= FRAME_STRING_MAX, 'id words stay within FRAME_BYTES_MAX');

/** The words of the id a frame is being sized or written for (the front end's, one thread). */
const encodedWords = new Float64Array(ID_WORDS);

// The ASCII check lives here, not only in encodeFrame: the pool sizes a frame before it claims
// ring slots, and a frame that failed to encode after its claim would never be published, so
// the shard would wait on that slot forever.
function stringBytes(value: string): number {
  if (value.length > FRAME_STRING_MAX) throw new RangeError(`frame string longer than ${FRAME_STRING_MAX}`);
  for (let index = 0; index < value.length; index++) {
    if (value.charCodeAt(index) > 0x7f) throw new RangeError('frame strings are ASCII');
  }
  return 1 + value.length;
}

/**
 * Refuses a field its place in the frame cannot hold: DataView would store it modulo its range,
 * and the shard would run another command than the one asked for. Checked with the length,
 * before the pool claims ring slots.
 */
function checkFields(frame: Frame): void {
  const c = frame.command;
  for (const [name, value] of [['kind', c.kind], ['side', c.side], ['orderType', c.orderType]] as const) {
    if (!(value >= 0 && value <= 0xff && (value | 0) === value)) throw new RangeError(`frame field ${name} ${value} does not fit a u8`);
  }
  for (const [name, value] of [['outcome', c.outcome], ['market', c.market], ['priceUnits', c.priceUnits], ['tickUnits', c.tickUnits], ['feeBps', c.feeBps]] as const) {
    if ((value | 0) !== value) throw new RangeError(`frame field ${name} ${value} does not fit an i32`);
  }
  if (!(frame.requestId > 0 && frame.requestId <= 0xffff_ffff && Math.floor(frame.requestId) === frame.requestId)) {
    throw new RangeError(`frame request id ${frame.requestId} does not fit a u32`);
  }
}

/** Bytes `encodeFrame` writes for this frame; throws a RangeError for a field the frame cannot hold. */
export function frameLength(frame: Frame): number {
  checkFields(frame);
  const command = frame.command;
  let length = FIXED_BYTES + stringBytes(command.account) + stringBytes(command.orderId) + stringBytes(frame.marketKey) + 2;
  if (parseIdWords(command.orderId, encodedWords, 0)) length += ID_WORDS_BYTES;
  if (command.kind === CommandKind.CancelOrders) {
    if (command.orderIds.length > CANCEL_IDS_MAX) throw new RangeError(`more than ${CANCEL_IDS_MAX} order ids`);
    for (const id of command.orderIds) length += stringBytes(id);
  }
  return length;
}

function writeString(bytes: Uint8Array, at: number, value: string): number {
  bytes[at] = value.length;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code > 0x7f) throw new RangeError('frame strings are ASCII');
    bytes[at + 1 + index] = code;
  }
  return at + 1 + value.length;
}

/** Writes the frame at `offset`; returns the bytes written (`frameLength(frame)`). */
export function encodeFrame(frame: Frame, view: DataView, bytes: Uint8Array, offset: number): number {
  const c = frame.command;
  const hasWords = parseIdWords(c.orderId, encodedWords, 0);
  view.setUint8(offset, c.kind);
  view.setUint8(offset + 1, c.side);
  view.setUint8(offset + 2, c.orderType);
  view.setUint8(offset + 3, (c.postOnly ? POST_ONLY : 0) | (c.accepting ? ACCEPTING : 0) | ID_KEY | (hasWords ? ID_WORDS_FLAG : 0));
  view.setInt32(offset + 4, c.outcome, true);
  view.setUint32(offset + 8, frame.requestId, true);
  view.setInt32(offset + 12, c.market, true);
  view.setInt32(offset + 16, c.priceUnits, true);
  view.setInt32(offset + 20, c.tickUnits, true);
  view.setInt32(offset + 24, c.feeBps, true);
  view.setInt32(offset + 28, idKey(c.orderId), true);
  view.setFloat64(offset + 32, c.timeMs, true);
  view.setFloat64(offset + 40, c.sizeMicros, true);
  view.setFloat64(offset + 48, c.expirationMs, true);
  view.setFloat64(offset + 56, c.amountMicros, true);
  view.setFloat64(offset + 64, c.minSizeMicros, true);
  view.setFloat64(offset + 72, frame.fundMicros, true);
  let at = offset + FIXED_BYTES;
  at = writeString(bytes, at, c.account);
  at = writeString(bytes, at, c.orderId);
  at = writeString(bytes, at, frame.marketKey);
  const ids = c.kind === CommandKind.CancelOrders ? c.orderIds : [];
  view.setUint16(at, ids.length, true);
  at += 2;
  for (const id of ids) at = writeString(bytes, at, id);
  if (hasWords) {
    for (let word = 0; word < ID_WORDS; word += 1) view.setFloat64(at + 8 * word, encodedWords[word]!, true);
    at += ID_WORDS_BYTES;
  }
  return at - offset;
}

function readString(bytes: Buffer, at: number): string {
  // One latin1 slice: ~45 ns for an order id here, against ~450 ns building it char by char.
  return bytes.toString('latin1', at + 1, at + 1 + bytes[at]!);
}

/**
 * Reads a frame written by `encodeFrame` into `frame` (and its command). `seq` is left alone:
 * the shard assigns it. Throws a RangeError on a frame that is not well formed.
 */
export function decodeFrame(frame: Frame, view: DataView, bytes: Buffer, offset: number, length: number): void {
  if (length < FIXED_BYTES + 5) throw new RangeError('frame too short');
  const c = frame.command;
  c.kind = view.getUint8(offset) as CommandKind;
  c.side = view.getUint8(offset + 1) as Command['side'];
  c.orderType = view.getUint8(offset + 2) as Command['orderType'];
  const flags = view.getUint8(offset + 3);
  c.postOnly = (flags & POST_ONLY) !== 0;
  c.accepting = (flags & ACCEPTING) !== 0;
  c.outcome = view.getInt32(offset + 4, true);
  frame.requestId = view.getUint32(offset + 8, true);
  c.market = view.getInt32(offset + 12, true);
  c.priceUnits = view.getInt32(offset + 16, true);
  c.tickUnits = view.getInt32(offset + 20, true);
  c.feeBps = view.getInt32(offset + 24, true);
  c.timeMs = view.getFloat64(offset + 32, true);
  c.sizeMicros = view.getFloat64(offset + 40, true);
  c.expirationMs = view.getFloat64(offset + 48, true);
  c.amountMicros = view.getFloat64(offset + 56, true);
  c.minSizeMicros = view.getFloat64(offset + 64, true);
  frame.fundMicros = view.getFloat64(offset + 72, true);
  const end = offset + length;
  let at = offset + FIXED_BYTES;
  const next = (): string => {
    if (at >= end || at + 1 + bytes[at]! > end) throw new RangeError('frame string runs past the frame');
    const value = readString(bytes, at);
    at += 1 + value.length;
    return value;
  };
  c.account = next();
  c.orderId = next();
  c.orderIdKey = (flags & ID_KEY) !== 0 ? view.getInt32(offset + 28, true) : idKey(c.orderId);
  c.orderIdKeyed = c.orderId;
  frame.marketKey = next();
  if (at + 2 > end) throw new RangeError('frame too short');
  const count = view.getUint16(at, true);
  at += 2;
  if (count > CANCEL_IDS_MAX) throw new RangeError('too many order ids');
  if (count === 0) {
    c.orderIds = [];
  } else {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) ids.push(next());
    c.orderIds = ids;
  }
  c.orderIdWordsAt = -1;
  if ((flags & ID_WORDS_FLAG) !== 0) {
    if (at + ID_WORDS_BYTES > end) throw new RangeError('frame too short');
    const words = frame.wordsArray();
    for (let word = 0; word < ID_WORDS; word += 1) {
      const value = view.getFloat64(at + 8 * word, true);
      if (!isIdWord(value)) throw new RangeError('frame id words are not words of an id');
      words[word] = value;
    }
    at += ID_WORDS_BYTES;
    c.orderIdWords = words;
    c.orderIdWordsAt = 0;
  }
  if (at !== end) throw new RangeError('frame has trailing bytes');
}
