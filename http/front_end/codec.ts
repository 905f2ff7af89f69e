// The bytes of a link message (link.ts): an array of numbers, strings, booleans, byte arrays,
// string arrays and undefined, each element a tag byte and its value. msgpack did this first;
// its reader spent a quarter of the main thread on the many short strings of a request's headers
// (a V8 profile of GET /book through a front-end thread: msgpackr's tryExtractStrings 23 %), where
// this one decodes each with one utf8Slice.
const UNDEFINED = 0;
const NUMBER = 1;
const STRING = 2;
const BYTES = 3;
const TRUE = 4;
const FALSE = 5;
const STRINGS = 6;

export type Value = number | string | boolean | Uint8Array | readonly string[] | undefined;

/** Encodes messages into one growing buffer, reused: what encode returns is valid until the next call. */
export class Encoder {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  encode(message: readonly Value[]): Buffer {
    this.at = 0;
    this.room(4);
    this.buffer.writeUInt32LE(message.length, 0);
    this.at = 4;
    for (const value of message) this.value(value);
    return this.buffer.subarray(0, this.at);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.at + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  private string(text: string): void {
    // At most 3 bytes a UTF-16 unit.
    this.room(4 + text.length * 3);
    const length = this.buffer.write(text, this.at + 4, 'utf8');
    this.buffer.writeUInt32LE(length, this.at);
    this.at += 4 + length;
  }

  private value(value: Value): void {
    this.room(9);
    const { buffer } = this;
    if (value === undefined) {
      buffer[this.at++] = UNDEFINED;
    } else if (typeof value === 'number') {
      buffer[this.at++] = NUMBER;
      buffer.writeDoubleLE(value, this.at);
      this.at += 8;
    } else if (typeof value === 'string') {
      buffer[this.at++] = STRING;
      this.string(value);
    } else if (typeof value === 'boolean') {
      buffer[this.at++] = value ? TRUE : FALSE;
    } else if (value instanceof Uint8Array) {
      buffer[this.at++] = BYTES;
      this.room(4 + value.byteLength);
      this.buffer.writeUInt32LE(value.byteLength, this.at);
      this.buffer.set(value, this.at + 4);
      this.at += 4 + value.byteLength;
    } else {
      buffer[this.at++] = STRINGS;
      this.room(4);
      this.buffer.writeUInt32LE(value.length, this.at);
      this.at += 4;
      for (const text of value) this.string(text);
    }
  }
}

/** Decodes one message from `bytes` (copies what it keeps: the ring's bytes are reused). */
export function decode(bytes: Buffer): Value[] {
  let at = 0;
  const count = bytes.readUInt32LE(0);
  at = 4;
  const string = (): string => {
    const length = bytes.readUInt32LE(at);
    const text = bytes.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
    return text;
  };
  const message: Value[] = new Array<Value>(count);
  for (let index = 0; index < count; index++) {
    const tag = bytes[at++];
    switch (tag) {
      case UNDEFINED: message[index] = undefined; break;
      case NUMBER: message[index] = bytes.readDoubleLE(at); at += 8; break;
      case STRING: message[index] = string(); break;
      case TRUE: message[index] = true; break;
      case FALSE: message[index] = false; break;
      case BYTES: {
        const length = bytes.readUInt32LE(at);
        message[index] = new Uint8Array(bytes.subarray(at + 4, at + 4 + length));
        at += 4 + length;
        break;
      }
      case STRINGS: {
        const length = bytes.readUInt32LE(at);
        at += 4;
        const texts = new Array<string>(length);
        for (let item = 0; item < length; item++) texts[item] = string();
        message[index] = texts;
        break;
      }
      default: throw new Error(`link message: unknown tag ${String(tag)} at byte ${at - 1}`);
    }
  }
  return message;
}
