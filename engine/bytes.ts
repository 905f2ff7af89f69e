// Little-endian binary writing and reading, the primitives of the shard's binary layouts (answers
// on the result ring, stored fills and orders). Strings are u8-length latin1: ids and addresses,
// which the edge and the frame codec keep ASCII and at most ORDER_ID_LENGTH_MAX long.
//
// The writer refuses a value its field cannot hold (a count past 65 535 in a u16, a negative u32)
// with a RangeError naming it: DataView would store it modulo the field's range, and the reader
// would then decode something else, or throw far from the cause.
import { ORDER_ID_LENGTH_MAX } from './constants.js';

/** The longest string field: an order id (addresses are shorter). */
const STRING_BYTES_MAX = ORDER_ID_LENGTH_MAX;

/** Appends to one growing buffer; `reset` to reuse it. */
export class ByteWriter {
  protected bytes: Buffer;
  protected view: DataView;
  protected at = 0;

  constructor(initialBytes: number) {
    this.bytes = Buffer.allocUnsafe(initialBytes);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
  }

  /** Forgets everything written (the bytes are reused). */
  reset(): void {
    this.at = 0;
  }

  /** Where the next write goes (the end of what is written). */
  end(): number {
    return this.at;
  }

  /** The bytes written at [offset, offset + length): a view, valid until the next write. */
  slice(offset: number, length: number): Buffer {
    return this.bytes.subarray(offset, offset + length);
  }

  u8(value: number): void {
    if (!(value >= 0 && value <= 0xff && Math.floor(value) === value)) outOfRange('u8', value);
    this.reserve(1);
    this.view.setUint8(this.at, value);
    this.at += 1;
  }

  u16(value: number): void {
    if (!(value >= 0 && value <= 0xffff && Math.floor(value) === value)) outOfRange('u16', value);
    this.reserve(2);
    this.view.setUint16(this.at, value, true);
    this.at += 2;
  }

  u32(value: number): void {
    if (!(value >= 0 && value <= 0xffff_ffff && Math.floor(value) === value)) outOfRange('u32', value);
    this.reserve(4);
    this.view.setUint32(this.at, value, true);
    this.at += 4;
  }

  i32(value: number): void {
    if ((value | 0) !== value) outOfRange('i32', value);
    this.reserve(4);
    this.view.setInt32(this.at, value, true);
    this.at += 4;
  }

  f64(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.at, value, true);
    this.at += 8;
  }

  str(value: string): void {
    if (value.length > STRING_BYTES_MAX) throw new RangeError(`a string of ${value.length} characters`);
    this.reserve(1 + value.length);
    this.view.setUint8(this.at, value.length);
    this.bytes.write(value, this.at + 1, value.length, 'latin1');
    this.at += 1 + value.length;
  }

  /** u16 length, then the string's utf-8 bytes. */
  text16(value: string): void {
    const utf8 = Buffer.from(value, 'utf8');
    if (utf8.length > 0xffff) throw new RangeError(`a text of ${utf8.length} bytes`);
    this.u16(utf8.length);
    this.reserve(utf8.length);
    this.bytes.set(utf8, this.at);
    this.at += utf8.length;
  }

  protected reserve(bytes: number): void {
    if (this.at + bytes <= this.bytes.length) return;
    let length = this.bytes.length * 2;
    while (length < this.at + bytes) length *= 2;
    const grown = Buffer.allocUnsafe(length);
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }
}

function outOfRange(field: string, value: number): never {
  throw new RangeError(`${value} does not fit ${field.startsWith('i') ? 'an' : 'a'} ${field} field`);
}

/** Reads what a ByteWriter wrote, from a position in a buffer. */
export class ByteReader {
  protected bytes: Buffer = Buffer.alloc(0);
  protected view: DataView = new DataView(new ArrayBuffer(0));
  protected at = 0;

  /** Reads `bytes` from `offset` on (the view is made again only for another buffer). */
  protected start(bytes: Buffer, offset: number): void {
    if (this.bytes !== bytes) {
      this.bytes = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    this.at = offset;
  }

  u8(): number {
    const value = this.view.getUint8(this.at);
    this.at += 1;
    return value;
  }

  u16(): number {
    const value = this.view.getUint16(this.at, true);
    this.at += 2;
    return value;
  }

  u32(): number {
    const value = this.view.getUint32(this.at, true);
    this.at += 4;
    return value;
  }

  i32(): number {
    const value = this.view.getInt32(this.at, true);
    this.at += 4;
    return value;
  }

  f64(): number {
    const value = this.view.getFloat64(this.at, true);
    this.at += 8;
    return value;
  }

  str(): string {
    const length = this.view.getUint8(this.at);
    const value = this.bytes.toString('latin1', this.at + 1, this.at + 1 + length);
    this.at += 1 + length;
    return value;
  }

  text16(): string {
    const length = this.u16();
    const value = this.bytes.toString('utf8', this.at, this.at + length);
    this.at += length;
    return value;
  }
}
