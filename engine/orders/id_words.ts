// An order id's 32 bytes as four float64 words. Exchange order ids are EIP-712 hashes, `0x` and
// 64 lowercase hex digits; the front end parses them once, as it writes the command's frame, and
// the command carries the words (Command.orderIdWords). The order table keeps a live order's
// words beside its record, so a cancel checks that the order it found is the one named by
// comparing four words instead of reading the stored id string, which sits wherever the heap put
// it and missed the cache on nearly every cancel of a deep book.
//
// Words are compared as doubles: four compares where int32 words took eight (callgrind, deep
// flow: +56 instructions a command against +184). Two doubles that are not NaN compare equal
// exactly when their bits do, but for 0 and -0; so an id with a NaN or -0 word (2^-11 of hashes)
// has no words, as an id in any form but the canonical one has none (`0xAB…` and `0xab…` are two
// ids to the engine, with the same bytes). Those are compared as strings. Copying a double that
// is not NaN between typed arrays keeps its bits.

/** Float64 words of an id's 32 bytes. */
export const ID_WORDS = 4;
/** Characters of a canonical id: `0x` and 64 lowercase hex digits. */
export const CANONICAL_ID_LENGTH = 66;

/** The words argument of an id without words (its position -1). */
export const NO_ID_WORDS = new Float64Array(0);

/**
 * Whether a double can be a word of an id: not NaN or -0, the two that do not compare as their
 * bits (NaN equals nothing, -0 equals 0).
 */
export function isIdWord(value: number): boolean {
  return value === value && !Object.is(value, -0);
}

/** A hex digit's value by character code (lowercase only), or -1. */
const DIGITS = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit += 1) DIGITS['0123456789abcdef'.charCodeAt(digit)] = digit;

/** One double's bytes, written as two int32 halves. */
const scratch = new Float64Array(1);
const halves = new Int32Array(scratch.buffer);

/** The value of the eight hex digits of `id` from `from`, or -1 when one is not a lowercase digit. */
function eightDigits(id: string, from: number): number {
  let value = 0;
  for (let index = from; index < from + 8; index += 1) {
    const code = id.charCodeAt(index);
    const nibble = code < 128 ? DIGITS[code]! : -1;
    if (nibble < 0) return -1;
    value = value * 16 + nibble;
  }
  return value;
}

/**
 * Writes the words of `id` at `out[at .. at + ID_WORDS)` and returns true, or returns false (what
 * it wrote meaning nothing) when `id` is not canonical or a word would be NaN or -0.
 */
export function parseIdWords(id: string, out: Float64Array, at: number): boolean {
  if (id.length !== CANONICAL_ID_LENGTH || id.charCodeAt(0) !== 0x30 || id.charCodeAt(1) !== 0x78) return false;
  for (let word = 0; word < ID_WORDS; word += 1) {
    const high = eightDigits(id, 2 + 16 * word);
    const low = eightDigits(id, 10 + 16 * word);
    if (high < 0 || low < 0) return false;
    halves[0] = low | 0;
    halves[1] = high | 0;
    const value = scratch[0]!;
    if (!isIdWord(value)) return false;
    out[at + word] = value;
  }
  return true;
}
