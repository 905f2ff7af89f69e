// One front-end thread's link to the main thread: two rings of byte frames in SharedArrayBuffers
// (engine/ring.ts), one each way, each with a single producer and a single consumer. A message is
// an array whose first element says its kind (wire.ts), as codec.ts writes it; one longer than a
// fragment goes as consecutive fragment frames, in the format of a shard's long answers
// (engine/shard/answer_stream.ts; a message's first word, its element count, is never
// FRAGMENT_MARK: every message has its kind).
//
// Wake-ups: a consumer that found its ring empty sleeps, and a producer must wake it (a futex
// call, and a turn of the consumer's event loop). A sender does not wake it per message: the
// first message of a turn of the sender's event loop schedules one wake-up at the turn's end
// (a microtask), which finds every message of the turn waiting; and a reader whose turn found
// messages looks again on its next turn before it sleeps, so a busy link is read without them.
//
// Neither side may block its event loop, so a ring that is full is not waited on: a message that
// finds it full waits in an outbox, in order, that drains as the reader frees slots. A sender says
// per message how many bytes may wait before it: past that the message is refused (the caller
// answers 503 or closes a socket) and never sent later. Answers to requests are never refused:
// the front end holds each request until its answer, so how many wait is bounded by the
// requests it lets in flight.
import { Ring, type RingLayout } from '../../engine/ring.js';
import { AnswerAssembler, FRAGMENT_BYTES, FRAGMENT_HEADER_BYTES, FRAGMENT_MARK, isFragment } from '../../engine/shard/answer_stream.js';
import { decode, Encoder, type Value } from './codec.js';

/** 8 192 slots of 512 bytes: 4 MiB a direction. */
export const LINK_LAYOUT: RingLayout = { slotCount: 8192, slotBytes: 512 };
/** Messages handled per turn of the event loop before the other callbacks get theirs. */
const MESSAGES_PER_TURN = 256;
/** How often a non-empty outbox looks for room again. */
const OUTBOX_RETRY_MS = 1;

/** The shared memory of one link, as the main thread allocates it. */
export interface LinkMemory {
  /** Front end → main thread. */
  readonly up: SharedArrayBuffer;
  /** Main thread → front end. */
  readonly down: SharedArrayBuffer;
}

export function allocateLink(): LinkMemory {
  return { up: Ring.allocate(LINK_LAYOUT), down: Ring.allocate(LINK_LAYOUT) };
}

export type Message = readonly Value[];

export class Link {
  private readonly outgoing: Ring;
  private readonly incoming: Ring;
  private readonly encoder = new Encoder();
  /** A wake-up of the reader is scheduled for the end of this turn. */
  private wakeScheduled = false;
  private readonly wake = (): void => {
    this.wakeScheduled = false;
    this.outgoing.wakeIfSleeping();
  };
  private readonly assembler = new AnswerAssembler();
  /** Encoded frames waiting for room, in order (fragments of a long message included). */
  private readonly outbox: Buffer[] = [];
  private outboxTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** Bytes in the outbox. */
  outboxBytes = 0;
  private reading = false;

  /** `side`: which end of the link this thread is (the main thread sends down and reads up). */
  constructor(memory: LinkMemory, side: 'main' | 'front end') {
    this.outgoing = new Ring(side === 'main' ? memory.down : memory.up, LINK_LAYOUT);
    this.incoming = new Ring(side === 'main' ? memory.up : memory.down, LINK_LAYOUT);
  }

  /**
   * Sends a message, after whatever waits: false (and nothing sent, ever) when that would leave
   * more than `waitingBytesMax` bytes waiting for room. Infinity: always sent (answers).
   */
  send(message: Message, waitingBytesMax = Number.POSITIVE_INFINITY): boolean {
    const bytes = this.encoder.encode(message);
    if (bytes.length <= FRAGMENT_BYTES) {
      if (this.outbox.length === 0 && this.outgoing.write(bytes, false)) {
        if (!this.wakeScheduled) {
          this.wakeScheduled = true;
          queueMicrotask(this.wake);
        }
        return true;
      }
      if (this.outboxBytes + bytes.length > waitingBytesMax) return false;
      // The encoder reuses its buffer: what waits must be a copy.
      this.enqueue(Buffer.from(bytes));
      return true;
    }
    if (this.outboxBytes + bytes.length > waitingBytesMax) return false;
    for (let at = 0; at < bytes.length; at += FRAGMENT_BYTES) {
      const chunk = bytes.subarray(at, Math.min(bytes.length, at + FRAGMENT_BYTES));
      const frame = Buffer.allocUnsafe(FRAGMENT_HEADER_BYTES + chunk.length);
      frame.writeUInt32LE(FRAGMENT_MARK, 0);
      frame.writeUInt32LE(bytes.length, 4);
      frame.set(chunk, FRAGMENT_HEADER_BYTES);
      this.enqueue(frame);
    }
    this.flush();
    return true;
  }

  private enqueue(frame: Buffer): void {
    this.outbox.push(frame);
    this.outboxBytes += frame.length;
    if (this.outbox.length === 1) this.flush();
  }

  private flush(): void {
    if (this.outboxTimer !== undefined) {
      clearTimeout(this.outboxTimer);
      this.outboxTimer = undefined;
    }
    let sent = 0;
    while (sent < this.outbox.length && this.outgoing.write(this.outbox[sent]!)) this.outboxBytes -= this.outbox[sent++]!.length;
    if (sent > 0) this.outbox.splice(0, sent);
    if (this.outbox.length > 0) this.outboxTimer = setTimeout(() => this.flush(), OUTBOX_RETRY_MS);
  }

  /** Reads messages as they come, handing each to `handle`, until stop(). */
  async read(handle: (message: Message) => void): Promise<void> {
    this.reading = true;
    const ring = this.incoming;
    while (this.reading) {
      let handled = 0;
      while (handled < MESSAGES_PER_TURN) {
        const frame = ring.peek();
        if (frame === undefined) break;
        let message: Message | undefined;
        if (isFragment(ring, frame.offset)) {
          const whole = this.assembler.add(ring, frame.offset, frame.length);
          if (whole !== undefined) message = decode(whole);
        } else {
          message = decode(ring.bytes.subarray(frame.offset, frame.offset + frame.length));
        }
        ring.consume(frame);
        if (message === undefined) continue;
        handled++;
        handle(message);
      }
      // A turn that found messages looks again next turn before it sleeps: while they keep coming
      // at least once a turn (a busy link), the sender never has to wake this thread.
      if (handled > 0) await new Promise((resolve) => setImmediate(resolve));
      else await ring.waitForFrameAsync(Number.POSITIVE_INFINITY);
    }
  }

  /** Ends read() (it wakes and returns) and drops what waits to be sent. */
  stop(): void {
    this.reading = false;
    this.incoming.wakeConsumer();
    if (this.outboxTimer !== undefined) clearTimeout(this.outboxTimer);
    this.outboxTimer = undefined;
    this.outbox.length = 0;
    this.outboxBytes = 0;
  }
}
