// The command frame codec: every command kind survives encode → decode field for field, a
// CancelOrders frame carries up to CANCEL_IDS_MAX ids, and anything that is not a well-formed
// frame (short, long, a string running past the end, non-ASCII text) is a RangeError, never a
// half-read command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command, CommandKind, OrderType, Side, makeCommand, type CommandInit } from '../../../engine/command.js';
import { CANCEL_IDS_MAX } from '../../../engine/constants.js';
import { idKey } from '../../../engine/orders/id_buckets.js';
import { ID_WORDS, parseIdWords } from '../../../engine/orders/id_words.js';
import { decodeFrame, encodeFrame, Frame, FRAME_BYTES_MAX, FRAME_STRING_MAX, frameLength } from '../../../engine/shard/frame.js';

interface Encoded {
  readonly bytes: Buffer;
  readonly view: DataView;
  readonly length: number;
}

/** Encodes at a non-zero offset, so the codec cannot rely on frames starting at byte 0. */
function encode(init: CommandInit, extra: { requestId?: number; fundMicros?: number; marketKey?: string } = {}): Encoded {
  const frame = new Frame(makeCommand(init));
  frame.requestId = extra.requestId ?? 7;
  frame.fundMicros = extra.fundMicros ?? 0;
  frame.marketKey = extra.marketKey ?? '';
  const length = frameLength(frame);
  const bytes = Buffer.alloc(16 + length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(encodeFrame(frame, view, bytes, 16), length);
  return { bytes, view, length };
}

function decode(encoded: Encoded, length = encoded.length): Frame {
  const frame = new Frame(new Command());
  decodeFrame(frame, encoded.view, encoded.bytes, 16, length);
  return frame;
}

/**
 * The fields the codec carries (seq is the shard's to assign, so it is not one of them). The id's
 * key and words are checked apart: a decoded command always carries its id's key, and a canonical
 * id's words, a built one need not.
 */
function carried(command: Command): Omit<Command, 'seq' | 'orderIdKey' | 'orderIdKeyed' | 'orderIdWords' | 'orderIdWordsAt'> {
  const { seq: _seq, orderIdKey: _key, orderIdKeyed: _keyed, orderIdWords: _words, orderIdWordsAt: _at, ...rest } = command;
  return { ...rest, orderIds: [...command.orderIds] };
}

/** The words a decoded command carries for its id, or null when it carries none. */
function carriedWords(command: Command): number[] | null {
  const at = command.orderIdWordsAt;
  return at < 0 ? null : Array.from(command.orderIdWords.subarray(at, at + ID_WORDS));
}

/** A decoded command carries the key of its own order id. */
function assertKeyed(command: Command): void {
  assert.equal(command.orderIdKeyed, command.orderId);
  assert.equal(command.orderIdKey, idKey(command.orderId));
}

const base = {
  timeMs: 1_767_225_600_123, account: '0x00000000000000000000000000000000000000a1', market: 3, outcome: 1,
};

const everyKind: readonly CommandInit[] = [
  { ...base, kind: CommandKind.AddMarket, tickUnits: 10, minSizeMicros: 5_000_000, feeBps: 25, accepting: true },
  { ...base, kind: CommandKind.SetMarketAccepting, accepting: false },
  { ...base, kind: CommandKind.SetTickSize, tickUnits: 100 },
  {
    ...base, kind: CommandKind.PlaceOrder, orderId: 'order-1', side: Side.Sell, orderType: OrderType.GTD, postOnly: true,
    priceUnits: 9_990, sizeMicros: 123_450_000, expirationMs: 1_767_225_700_000,
  },
  { ...base, kind: CommandKind.PlaceOrder, orderId: 'o'.repeat(128), side: Side.Buy, orderType: OrderType.FAK, priceUnits: 1, sizeMicros: 10_000 },
  { ...base, kind: CommandKind.CancelOrder, orderId: 'order-1' },
  { ...base, kind: CommandKind.CancelOrders, orderIds: ['a', 'bb', 'ccc'] },
  { ...base, kind: CommandKind.CancelAccount },
  { ...base, kind: CommandKind.CancelAccountMarket, outcome: -1 },
  { ...base, kind: CommandKind.Deposit, amountMicros: 2 ** 52 },
  { ...base, kind: CommandKind.Withdraw, amountMicros: 1 },
  { ...base, kind: CommandKind.ResolveMarket, account: '', outcome: 0 },
  { ...base, kind: CommandKind.ExpireOrders, account: '' },
];

test('every command kind comes back field for field, with request id, funding and market key', () => {
  const kinds = new Set<number>();
  for (const [index, init] of everyKind.entries()) {
    const extra = { requestId: 0xffff_fff0 + index, fundMicros: index * 1_000_001, marketKey: `0x${index.toString(16).padStart(64, 'c')}` };
    const decoded = decode(encode(init, extra));
    assert.deepEqual(carried(decoded.command), carried(makeCommand(init)), `kind ${init.kind}`);
    assertKeyed(decoded.command);
    assert.equal(decoded.requestId, extra.requestId);
    assert.equal(decoded.fundMicros, extra.fundMicros);
    assert.equal(decoded.marketKey, extra.marketKey);
    kinds.add(init.kind);
  }
  assert.deepEqual([...kinds].sort((a, b) => a - b), Object.values(CommandKind).sort((a, b) => a - b));
});

test('decoding into a reused frame leaves nothing of the previous frame behind', () => {
  const frame = new Frame(new Command());
  for (const init of [everyKind[6]!, everyKind[3]!, everyKind[6]!, everyKind[12]!]) {
    const encoded = encode(init);
    decodeFrame(frame, encoded.view, encoded.bytes, 16, encoded.length);
    assert.deepEqual(carried(frame.command), carried(makeCommand(init)));
    assertKeyed(frame.command);
  }
});

test('the frame carries the id key the front end computed; a frame journaled without one is keyed as it is decoded', () => {
  const init = everyKind[3]!;
  const encoded = encode(init);
  // The decoder reads the key from the frame rather than from the id: a key written over it
  // comes back as written.
  encoded.view.setInt32(16 + 28, 12345, true);
  assert.equal(decode(encoded).command.orderIdKey, 12345);
  // Frames from before the key was carried: flag bit 4 clear, bytes 28 to 31 zero.
  encoded.view.setUint8(16 + 3, encoded.view.getUint8(16 + 3) & ~4);
  encoded.view.setInt32(16 + 28, 0, true);
  const old = decode(encoded).command;
  assert.deepEqual(carried(old), carried(makeCommand(init)));
  assertKeyed(old);
});

test('CancelOrders carries CANCEL_IDS_MAX ids of the longest length, and FRAME_BYTES_MAX bounds it', () => {
  const orderIds = Array.from({ length: CANCEL_IDS_MAX }, (_, index) => `${index}-`.padEnd(FRAME_STRING_MAX, 'x'));
  const account = 'a'.repeat(FRAME_STRING_MAX);
  const init: CommandInit = { ...base, account, orderId: 'i'.repeat(FRAME_STRING_MAX), kind: CommandKind.CancelOrders, orderIds };
  const encoded = encode(init, { marketKey: 'k'.repeat(FRAME_STRING_MAX) });
  assert.equal(encoded.length, FRAME_BYTES_MAX);
  assert.deepEqual(decode(encoded).command.orderIds, orderIds);
});

test('sizing a frame refuses what it cannot carry, and encoding refuses non-ASCII text', () => {
  const tooMany = Array.from({ length: CANCEL_IDS_MAX + 1 }, (_, index) => `id${index}`);
  const cases: readonly [string, CommandInit, string, boolean][] = [
    ['too many ids', { ...base, kind: CommandKind.CancelOrders, orderIds: tooMany }, '', false],
    ['a string too long', { ...base, kind: CommandKind.CancelOrder, orderId: 'x'.repeat(FRAME_STRING_MAX + 1) }, '', false],
    ['non-ASCII order id', { ...base, kind: CommandKind.PlaceOrder, orderId: 'ordré' }, '', true],
    ['non-ASCII account', { ...base, kind: CommandKind.CancelAccount, account: '0x☃' }, '', true],
    ['non-ASCII id in a list', { ...base, kind: CommandKind.CancelOrders, orderIds: ['ok', 'ü'] }, '', true],
    ['non-ASCII market key', { ...base, kind: CommandKind.AddMarket }, 'clé', true],
    // A number its field cannot hold: refused, not stored modulo the field's range.
    ['a price past an i32', { ...base, kind: CommandKind.PlaceOrder, priceUnits: 2 ** 31 }, '', false],
    ['a market index past an i32', { ...base, kind: CommandKind.CancelAccountMarket, market: 2 ** 32 + 1 }, '', false],
    ['a fractional outcome', { ...base, kind: CommandKind.PlaceOrder, outcome: 0.5 }, '', false],
    ['a kind past a u8', { ...base, kind: 256 as CommandKind }, '', false],
  ];
  for (const [name, init, marketKey, nonAscii] of cases) {
    const frame = new Frame(makeCommand(init));
    frame.requestId = 1;
    frame.marketKey = marketKey;
    // The pool sizes a frame before it claims ring slots, so sizing must refuse everything a
    // claimed slot could not be published with.
    assert.throws(() => frameLength(frame), RangeError, name);
    if (!nonAscii) continue;
    const bytes = new Uint8Array(FRAME_BYTES_MAX);
    assert.throws(() => encodeFrame(frame, new DataView(bytes.buffer), bytes, 0), /ASCII/, name);
  }
});

test('a request id the frame cannot carry (0 is no request; past a u32 would wrap) is refused when sized', () => {
  for (const requestId of [0, 2 ** 32, -1, 1.5]) {
    const frame = new Frame(makeCommand({ ...base, kind: CommandKind.CancelOrder, orderId: 'x' }));
    frame.requestId = requestId;
    assert.throws(() => frameLength(frame), /request id/, String(requestId));
  }
});

test('a truncated frame is a RangeError at every length short of the whole', () => {
  const encoded = encode(everyKind[6]!, { marketKey: 'market' });
  for (let length = 0; length < encoded.length; length++) {
    assert.throws(() => decode(encoded, length), RangeError, `length ${length}`);
  }
  assert.equal(decode(encoded).command.orderIds.length, 3);
});

test('trailing bytes after the last string are a RangeError', () => {
  const encoded = encode(everyKind[3]!);
  const longer = Buffer.alloc(encoded.bytes.length + 3);
  longer.set(encoded.bytes);
  assert.throws(() => decode({ bytes: longer, view: new DataView(longer.buffer), length: encoded.length + 3 }), /trailing bytes/);
});

test('a string whose length byte points past the frame is a RangeError', () => {
  const encoded = encode(everyKind[5]!);
  // The account's length byte sits right after the 80 fixed bytes.
  encoded.bytes[16 + 80] = 250;
  assert.throws(() => decode(encoded), /runs past the frame/);
});

test('an id count past CANCEL_IDS_MAX is a RangeError even when the bytes would fit', () => {
  const encoded = encode(everyKind[7]!);
  // CancelAccount has no ids: the count is the frame's last two bytes.
  encoded.view.setUint16(16 + encoded.length - 2, CANCEL_IDS_MAX + 1, true);
  assert.throws(() => decode(encoded), /too many order ids/);
});

test("a canonical id's words ride in the frame; another id, or a frame without them, carries none", () => {
  const id = `0x${'0123456789abcdef'.repeat(4)}`;
  const words = new Float64Array(ID_WORDS);
  assert.ok(parseIdWords(id, words, 0));
  const frame = new Frame(new Command());
  for (const orderId of [id, 'order-1', id.toUpperCase().replace('0X', '0x'), id]) {
    const init: CommandInit = { ...base, kind: CommandKind.CancelOrder, orderId };
    const encoded = encode(init);
    decodeFrame(frame, encoded.view, encoded.bytes, 16, encoded.length);
    assert.deepEqual(carried(frame.command), carried(makeCommand(init)));
    assertKeyed(frame.command);
    assert.deepEqual(carriedWords(frame.command), orderId === id ? Array.from(words) : null, orderId);
  }
  // A frame from before the words were carried: no flag, no bytes.
  const encoded = encode({ ...base, kind: CommandKind.CancelOrder, orderId: id });
  const flags = encoded.view.getUint8(16 + 3);
  assert.notEqual(flags & 8, 0);
  const old = Buffer.alloc(encoded.bytes.length - 8 * ID_WORDS);
  encoded.bytes.copy(old, 0, 0, old.length);
  const oldView = new DataView(old.buffer, old.byteOffset, old.byteLength);
  oldView.setUint8(16 + 3, flags & ~8);
  assert.equal(carriedWords(decode({ bytes: old, view: oldView, length: encoded.length - 8 * ID_WORDS }).command), null);
  // Words that no id has (NaN) are a malformed frame.
  encoded.view.setFloat64(16 + encoded.length - 8, NaN, true);
  assert.throws(() => decode(encoded), /not words of an id/);
  // Cut into the words: too short.
  assert.throws(() => decode(encoded, encoded.length - 1), RangeError);
});
