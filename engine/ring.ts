// A bounded multi-producer, single-consumer ring of byte frames in a SharedArrayBuffer, after
// Vyukov's bounded queue. The buffer is cut into fixed-size slots; a frame takes one or more
// consecutive slots (never wrapping: the tail of the buffer is padded instead). Each slot holds
// a sequence word: equal to its position when free for that position, position + 1 once the
// frame starting there is published, position + slotCount after the consumer released it.
// Producers claim slots with one compare-and-swap on the tail, write in place, then publish;
// a full ring refuses the claim at once, so callers answer 503 instead of queueing.
//
// Waiting: the consumer spins for a bounded time, then sleeps on a wake word with
// Atomics.wait (or Atomics.waitAsync on a thread that must keep its event loop). A producer
// notifies only when the consumer said it is going to sleep, so the hot path makes no syscall.

const tailIndex = 0;
const headIndex = 1;
const sleepIndex = 2;
const headerWords = 4;
const frameHeaderBytes = 4;
/** Polls of an empty ring between two looks at the clock while spinning. */
const SPIN_POLLS = 32;
/** Frame length that marks padding up to the end of the buffer. */
const skipMarker = 0xffff_ffff;

export interface RingLayout {
  /** A power of two. */
  readonly slotCount: number;
  /** A multiple of 8, at least 16. */
  readonly slotBytes: number;
}

/** A claimed, not yet published region: write `length` bytes at `offset` of `bytes`. */
export interface Claim {
  readonly position: number;
  readonly offset: number;
}

/** A published frame at the head: `length` bytes at `offset` of `bytes`. */
export interface Frame {
  readonly offset: number;
  readonly length: number;
  readonly slots: number;
}

function assertLayout(layout: RingLayout): void {
  const { slotCount, slotBytes } = layout;
  if (!(Number.isInteger(slotCount) && slotCount >= 2 && slotCount <= 1 << 24 && (slotCount & (slotCount - 1)) === 0)) {
    throw new Error(`ring slotCount must be a power of two from 2 to 2^24, got ${slotCount}`);
  }
  if (!(Number.isInteger(slotBytes) && slotBytes >= 16 && slotBytes % 8 === 0 && slotBytes <= 65_536)) {
    throw new Error(`ring slotBytes must be a multiple of 8 from 16 to 65536, got ${slotBytes}`);
  }
}

export class Ring {
  readonly slotCount: number;
  readonly slotBytes: number;
  /** The largest frame a claim accepts: one frame may use at most half the ring. */
  readonly frameBytesMax: number;
  /** The slots' bytes, as a Buffer so frames' strings decode with one latin1 slice. */
  readonly bytes: Buffer;
  /** The same bytes as a plain Uint8Array, whose slice copies (a Buffer's is a view). */
  private readonly plain: Uint8Array;
  readonly view: DataView;
  private readonly control: Int32Array;
  private readonly sequence: Int32Array;
  private readonly dataOffset: number;
  private readonly mask: number;

  /** Allocates and initialises the shared memory of a ring. */
  static allocate(layout: RingLayout): SharedArrayBuffer {
    assertLayout(layout);
    const buffer = new SharedArrayBuffer((headerWords + layout.slotCount) * 4 + layout.slotCount * layout.slotBytes);
    const sequence = new Int32Array(buffer, headerWords * 4, layout.slotCount);
    for (let slot = 0; slot < layout.slotCount; slot++) sequence[slot] = slot;
    return buffer;
  }

  /** Attaches to shared memory made by `allocate` with the same layout (on any thread). */
  constructor(buffer: SharedArrayBuffer, layout: RingLayout) {
    assertLayout(layout);
    this.slotCount = layout.slotCount;
    this.slotBytes = layout.slotBytes;
    this.mask = layout.slotCount - 1;
    this.frameBytesMax = (layout.slotCount / 2) * layout.slotBytes - frameHeaderBytes;
    this.control = new Int32Array(buffer, 0, headerWords);
    this.sequence = new Int32Array(buffer, headerWords * 4, layout.slotCount);
    this.dataOffset = (headerWords + layout.slotCount) * 4;
    this.bytes = Buffer.from(buffer, this.dataOffset, layout.slotCount * layout.slotBytes);
    this.plain = new Uint8Array(buffer, this.dataOffset, layout.slotCount * layout.slotBytes);
    this.view = new DataView(buffer, this.dataOffset, layout.slotCount * layout.slotBytes);
    if (buffer.byteLength !== this.dataOffset + layout.slotCount * layout.slotBytes) throw new Error('ring buffer does not match its layout');
  }

  /** Frames claimed but not yet released by the consumer, in slots. */
  depthSlots(): number {
    return (Atomics.load(this.control, tailIndex) - Atomics.load(this.control, headIndex)) | 0;
  }

  // ---- producers -------------------------------------------------------------------------

  /**
   * Claims room for a frame of `length` bytes, or returns undefined when the ring is full.
   * The caller writes the frame at `claim.offset` and then calls `publish(claim, length)`.
   */
  claim(length: number): Claim | undefined {
    if (!(length >= 0 && length <= this.frameBytesMax)) throw new Error(`ring frame of ${length} bytes exceeds ${this.frameBytesMax}`);
    const needed = Math.ceil((length + frameHeaderBytes) / this.slotBytes);
    for (;;) {
      const position = Atomics.load(this.control, tailIndex);
      const slot = position & this.mask;
      const padding = slot + needed > this.slotCount ? this.slotCount - slot : 0;
      const last = (position + padding + needed - 1) | 0;
      const distance = (Atomics.load(this.sequence, last & this.mask) - last) | 0;
      if (distance < 0) return undefined;
      if (distance > 0) continue;
      if (Atomics.compareExchange(this.control, tailIndex, position, (position + padding + needed) | 0) !== position) continue;
      if (padding > 0) {
        this.view.setUint32(slot * this.slotBytes, skipMarker, true);
        this.view.setUint32(slot * this.slotBytes + 4, padding, true);
        Atomics.store(this.sequence, slot, (position + 1) | 0);
      }
      const start = (position + padding) | 0;
      return { position: start, offset: (start & this.mask) * this.slotBytes + frameHeaderBytes };
    }
  }

  /**
   * Makes a claimed frame visible to the consumer and wakes it if it sleeps (`wake`: a producer
   * that publishes several frames in a row may wake it once, after the last: wakeIfSleeping).
   */
  publish(claim: Claim, length: number, wake = true): void {
    const slot = claim.position & this.mask;
    this.view.setUint32(slot * this.slotBytes, length, true);
    Atomics.store(this.sequence, slot, (claim.position + 1) | 0);
    if (wake) this.wakeIfSleeping();
  }

  /** Wakes the consumer if it said it is going to sleep. */
  wakeIfSleeping(): void {
    if (Atomics.load(this.control, sleepIndex) !== 0) this.wakeConsumer();
  }

  /** Copies `payload` in as one frame; false when the ring is full. */
  write(payload: Uint8Array, wake = true): boolean {
    const claim = this.claim(payload.length);
    if (claim === undefined) return false;
    this.bytes.set(payload, claim.offset);
    this.publish(claim, payload.length, wake);
    return true;
  }

  // ---- the consumer ----------------------------------------------------------------------

  /** The published frame at the head, or undefined when there is none (yet). */
  peek(): Frame | undefined {
    for (;;) {
      const position = this.control[headIndex] as number;
      const slot = position & this.mask;
      if (Atomics.load(this.sequence, slot) !== ((position + 1) | 0)) return undefined;
      const length = this.view.getUint32(slot * this.slotBytes, true);
      if (length === skipMarker) {
        const padding = this.view.getUint32(slot * this.slotBytes + 4, true);
        this.release(position, padding);
        continue;
      }
      return { offset: slot * this.slotBytes + frameHeaderBytes, length, slots: Math.ceil((length + frameHeaderBytes) / this.slotBytes) };
    }
  }

  /** Frees the frame at the head (the one `peek` returned). */
  consume(frame: Frame): void {
    this.release(this.control[headIndex] as number, frame.slots);
  }

  /** Reads and frees the head frame into a new array; undefined when empty. */
  read(): Uint8Array | undefined {
    const frame = this.peek();
    if (frame === undefined) return undefined;
    const copy = this.plain.slice(frame.offset, frame.offset + frame.length);
    this.consume(frame);
    return copy;
  }

  /**
   * Blocks the calling thread until a frame is published or `timeoutMs` passes, after polling
   * for up to `spinUs` microseconds: a frame that comes within the spin costs no sleep and no
   * wake-up (~30 µs on this VM). Only for threads that may block (workers), never the
   * event-loop thread. False once `timeoutMs` has passed without a frame, or once `until` holds
   * (something else the thread waits for, whose producer wakes it with wakeConsumer).
   */
  waitForFrame(spinUs: number, timeoutMs: number, until?: () => boolean): boolean {
    const started = performance.now();
    const spinEnd = started + spinUs / 1000;
    // The clock is read once per SPIN_POLLS polls (a poll of an empty ring takes ~7 ns).
    do {
      for (let poll = 0; poll < SPIN_POLLS; poll++) if (this.peek() !== undefined) return true;
      if (until?.() === true) return false;
    } while (performance.now() < spinEnd);
    const deadline = started + timeoutMs;
    for (;;) {
      Atomics.store(this.control, sleepIndex, 1);
      if (this.peek() !== undefined || until?.() === true) {
        Atomics.store(this.control, sleepIndex, 0);
        return this.peek() !== undefined;
      }
      Atomics.wait(this.control, sleepIndex, 1, Math.max(0, deadline - performance.now()));
      Atomics.store(this.control, sleepIndex, 0);
      if (this.peek() !== undefined) return true;
      if (until?.() === true) return false;
      // Woken without a frame: a producer's late wake-up meant for an earlier sleep.
      if (performance.now() >= deadline) return false;
    }
  }

  /** Resolves when a frame may be available, without blocking the event loop. */
  async waitForFrameAsync(timeoutMs: number): Promise<void> {
    if (this.peek() !== undefined) return;
    Atomics.store(this.control, sleepIndex, 1);
    if (this.peek() !== undefined) {
      Atomics.store(this.control, sleepIndex, 0);
      return;
    }
    const waited = Atomics.waitAsync(this.control, sleepIndex, 1, timeoutMs);
    if (waited.async) await waited.value;
    Atomics.store(this.control, sleepIndex, 0);
  }

  /**
   * Wakes a consumer waiting in waitForFrame or waitForFrameAsync: for a frame just published,
   * or with none when its producer has stopped and the consumer should look at why.
   */
  wakeConsumer(): void {
    Atomics.store(this.control, sleepIndex, 0);
    Atomics.notify(this.control, sleepIndex);
  }

  /**
   * Marks `slots` slots from the head free for their next round, in order, and moves the head.
   * Only the consumer releases, and always in position order: that is what lets a producer
   * judge a whole span free by looking at its last slot.
   */
  private release(position: number, slots: number): void {
    for (let index = 0; index < slots; index++) {
      const at = (position + index) | 0;
      Atomics.store(this.sequence, at & this.mask, (at + this.slotCount) | 0);
    }
    Atomics.store(this.control, headIndex, (position + slots) | 0);
  }
}
