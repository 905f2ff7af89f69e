// Answers of any size on a result ring. An answer up to FRAGMENT_BYTES long is one ring frame,
// read in place: the common case, unchanged. A longer one (a taker that fills 100 000 makers, a
// resolution that cancels every order of a deep book and pays every holder, an expiry tick that
// expires a whole book) goes as consecutive fragment frames, each
//   u32 FRAGMENT_MARK, u32 the whole answer's length, then up to FRAGMENT_BYTES of it,
// and the reader puts them back together before decoding. The shard is the ring's only producer,
// so a long answer's fragments are never interleaved with another answer; the producer waits
// while the ring is full, so an answer larger than the ring streams through it as the reader
// frees slots. An answer's first word is its request id, which is never FRAGMENT_MARK.
import type { Claim, Ring } from '../ring.js';

/** The first word of a fragment: no request has id 0. */
export const FRAGMENT_MARK = 0;
/** Bytes of an answer one frame carries: 1 MiB, a quarter of the result ring's largest frame. */
export const FRAGMENT_BYTES = 1 << 20;
/** A fragment frame's header: FRAGMENT_MARK and the whole answer's length. */
export const FRAGMENT_HEADER_BYTES = 8;
/**
 * The longest answer: its length must fit the fragment's u32. The engine's own limits keep every
 * answer far below it (a taker fills at most ORDER_SLOTS_LIMIT orders, ~440 bytes of answer each).
 */
export const ANSWER_BYTES_MAX = 0xffff_ffff;

/**
 * Writes `length` bytes of `source` from `offset` as one answer, in fragments when it is long;
 * `waitForRoom` is called whenever the ring is full, until the reader has freed enough slots.
 */
export function writeAnswer(ring: Ring, source: Uint8Array, offset: number, length: number, waitForRoom: () => void): void {
  // A ring whose largest frame is under a fragment (only a small test ring) takes smaller ones.
  const fragmentBytes = Math.min(FRAGMENT_BYTES, ring.frameBytesMax - FRAGMENT_HEADER_BYTES);
  if (length <= fragmentBytes) {
    const claim = claimWaiting(ring, length, waitForRoom);
    ring.bytes.set(source.subarray(offset, offset + length), claim.offset);
    ring.publish(claim, length);
    return;
  }
  if (length > ANSWER_BYTES_MAX) throw new RangeError(`an answer of ${length} bytes is longer than ${ANSWER_BYTES_MAX}`);
  for (let at = 0; at < length; at += fragmentBytes) {
    const chunk = Math.min(fragmentBytes, length - at);
    const frameLength = FRAGMENT_HEADER_BYTES + chunk;
    const claim = claimWaiting(ring, frameLength, waitForRoom);
    ring.view.setUint32(claim.offset, FRAGMENT_MARK, true);
    ring.view.setUint32(claim.offset + 4, length, true);
    ring.bytes.set(source.subarray(offset + at, offset + at + chunk), claim.offset + FRAGMENT_HEADER_BYTES);
    ring.publish(claim, frameLength);
  }
}

function claimWaiting(ring: Ring, length: number, waitForRoom: () => void): Claim {
  for (;;) {
    const claim = ring.claim(length);
    if (claim !== undefined) return claim;
    waitForRoom();
  }
}

/** Whether the frame at `offset` of the ring is a fragment of a long answer. */
export function isFragment(ring: Ring, offset: number): boolean {
  return ring.view.getUint32(offset, true) === FRAGMENT_MARK;
}

/** Puts a long answer's fragments back together (one reader, one ring). */
export class AnswerAssembler {
  private buffer: Buffer | undefined = undefined;
  private filled = 0;

  /**
   * Copies the fragment at [offset, offset + length) of the ring's bytes; returns the whole
   * answer once its last fragment is in (valid until the next call), else undefined.
   */
  add(ring: Ring, offset: number, length: number): Buffer | undefined {
    const total = ring.view.getUint32(offset + 4, true);
    const chunk = length - FRAGMENT_HEADER_BYTES;
    if (this.buffer === undefined) {
      this.buffer = Buffer.allocUnsafe(total);
      this.filled = 0;
    } else if (this.buffer.length !== total) {
      throw new Error(`answer fragment of a ${total}-byte answer inside one of ${this.buffer.length} bytes`);
    }
    if (chunk <= 0 || this.filled + chunk > total) throw new Error(`answer fragment of ${chunk} bytes at ${this.filled} of ${total}`);
    this.buffer.set(ring.bytes.subarray(offset + FRAGMENT_HEADER_BYTES, offset + length), this.filled);
    this.filled += chunk;
    if (this.filled < total) return undefined;
    const whole = this.buffer;
    this.buffer = undefined;
    return whole;
  }

  /** Whether a long answer is half read (its next frame must be its next fragment). */
  inProgress(): boolean {
    return this.buffer !== undefined;
  }
}
