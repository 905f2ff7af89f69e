// What a matching worker counts for the operator (GET /metrics): its durable commits, the
// commands each carried and the time each took (as histograms), and the size of its books after
// the latest commit. The counters live in a SharedArrayBuffer that the front end allocates per
// shard and keeps across worker restarts, so they never go back. The worker is the only writer:
// plain stores of whole float64 words, no lock and no allocation per commit; the front end reads
// them when scraped, without a message to the worker (a status message would hash the state).

/** Upper bounds of the commands-per-commit buckets (a batch holds at most OPEN_BATCH_FRAMES_MAX). */
export const COMMANDS_PER_COMMIT_BOUNDS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384] as const;
/** Upper bounds of the commit-duration buckets, in seconds. */
export const COMMIT_SECONDS_BOUNDS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

// Word offsets.
const COMMITS = 0;
const COMMANDS = 1;
const COMMIT_SECONDS = 2;
const RESTING_ORDERS = 3;
const OPEN_INTEREST_MICROS = 4;
const COLLATERAL_MICROS = 5;
const LAST_BATCH = 6;
const COMMANDS_BUCKETS = 7;
const SECONDS_BUCKETS = COMMANDS_BUCKETS + COMMANDS_PER_COMMIT_BOUNDS.length + 1;
const WORDS = SECONDS_BUCKETS + COMMIT_SECONDS_BOUNDS.length + 1;

/**
 * A histogram as read: counts per bucket (the last is +Inf), not cumulative. Its count is the
 * buckets' total, so a reading taken while the writer records stays consistent in itself.
 */
export interface HistogramReading {
  readonly bounds: readonly number[];
  readonly buckets: ArrayLike<number>;
  readonly sum: number;
}

/** The bucket of `value` among ascending upper `bounds` (bounds.length for above them all). */
export function bucketOf(bounds: readonly number[], value: number): number {
  let bucket = 0;
  while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
  return bucket;
}

export class ShardCounters {
  private readonly words: Float64Array;

  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(WORDS * Float64Array.BYTES_PER_ELEMENT);
  }

  constructor(readonly buffer: SharedArrayBuffer = ShardCounters.allocate()) {
    if (buffer.byteLength !== WORDS * Float64Array.BYTES_PER_ELEMENT) throw new Error('shard counters: wrong buffer size');
    this.words = new Float64Array(buffer);
  }

  /** One durable commit of `commands` frames that took `seconds`. */
  recordCommit(commands: number, seconds: number): void {
    const words = this.words;
    words[COMMITS]!++;
    words[COMMANDS]! += commands;
    words[COMMIT_SECONDS]! += seconds;
    words[COMMANDS_BUCKETS + bucketOf(COMMANDS_PER_COMMIT_BOUNDS, commands)]!++;
    words[SECONDS_BUCKETS + bucketOf(COMMIT_SECONDS_BOUNDS, seconds)]!++;
  }

  /** The last batch the shard committed (or recovered to). */
  recordBatch(batch: number): void {
    this.words[LAST_BATCH] = batch;
  }

  get lastBatch(): number {
    return this.words[LAST_BATCH]!;
  }

  /** The books as the latest commit (or recovery) left them. */
  recordBooks(restingOrders: number, openInterestMicros: number, collateralMicros: number): void {
    this.words[RESTING_ORDERS] = restingOrders;
    this.words[OPEN_INTEREST_MICROS] = openInterestMicros;
    this.words[COLLATERAL_MICROS] = collateralMicros;
  }

  get commits(): number {
    return this.words[COMMITS]!;
  }

  get commandsCommitted(): number {
    return this.words[COMMANDS]!;
  }

  get commitSeconds(): number {
    return this.words[COMMIT_SECONDS]!;
  }

  get restingOrders(): number {
    return this.words[RESTING_ORDERS]!;
  }

  get openInterestMicros(): number {
    return this.words[OPEN_INTEREST_MICROS]!;
  }

  get collateralMicros(): number {
    return this.words[COLLATERAL_MICROS]!;
  }

  commandsPerCommit(): HistogramReading {
    return {
      bounds: COMMANDS_PER_COMMIT_BOUNDS, buckets: this.words.subarray(COMMANDS_BUCKETS, SECONDS_BUCKETS),
      sum: this.commandsCommitted,
    };
  }

  commitDuration(): HistogramReading {
    return { bounds: COMMIT_SECONDS_BOUNDS, buckets: this.words.subarray(SECONDS_BUCKETS, WORDS), sum: this.commitSeconds };
  }
}
