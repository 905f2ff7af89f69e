// Pages of a feed merged from several streams (one per shard, or per market), each read newest
// first from an index that seeks: a page costs what it reads, never what lies before it. A page
// ends with a cursor that holds, per stream, where the next page starts: the last entry the page
// took from that stream, or the last it looked at when nothing there passed the filters, or 'end'.
// Streams are in index order (seq, fill index, role), which is time order within a shard; the
// merge across streams is by the caller's order (time first).
import { compareEntries, type FillEntry } from '../../engine/shard/feed_tables.js';
import { badRequest, HttpError } from '../errors.js';

/** Where a stream's next page starts: after this entry; null: from its newest; 'end': nothing is left. */
export type StreamPosition = FillEntry | null | 'end';
export type FeedCursor = readonly StreamPosition[];

/**
 * Items a long read takes between turns of the front end's event loop (1 to 2 ms of its thread
 * here): a page of thousands is read as slices, each from the cursor the one before ended with,
 * so it never holds the thread that also takes orders for longer than a slice.
 */
export const FEED_SLICE = 100;

/** One slice of a long read: up to `want` items from `cursor`, and the cursor after them. */
export type SliceReader<T> = (want: number, cursor: FeedCursor | undefined) => { readonly items: T[]; readonly next: FeedCursor | undefined };

/**
 * Reads `skip` items and then up to `limit` through `read`, FEED_SLICE at a time, each slice from
 * the cursor the one before ended with, the event loop turning between slices; gives the kept
 * items to `take` and returns the cursor after the last. The items `skip` passes over are read,
 * never given. A slice shorter than asked looked at all a page may (FEED_SCAN_MAX): the read ends
 * there with what it found.
 */
export async function readSliced<T>(
  read: SliceReader<T>, start: FeedCursor | undefined, skip: number, limit: number, take: (items: T[]) => void,
): Promise<FeedCursor | undefined> {
  let cursor = start;
  let remaining = limit;
  for (let first = true; ; first = false) {
    if (!first) await nextTurn();
    const want = Math.min(FEED_SLICE, skip + remaining);
    const slice = read(want, cursor);
    cursor = slice.next;
    const dropped = Math.min(skip, slice.items.length);
    skip -= dropped;
    const kept = slice.items.slice(dropped, dropped + remaining);
    remaining -= kept.length;
    if (kept.length > 0) take(kept);
    if (remaining === 0 || cursor === undefined || slice.items.length < want) return cursor;
  }
}

/**
 * Long reads take turns: at most `concurrent` are in progress at once on this thread, the others
 * wait in order (at most `waitingMax`; past that a read is refused with 429). Slices alone let
 * the event loop turn, but eight reads in progress put eight slices between an order and its
 * turn; two put two.
 */
export class ReadTurns {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrent: number, private readonly waitingMax: number) {}

  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrent) this.active++;
    else {
      if (this.waiting.length >= this.waitingMax) throw new HttpError(429, 'Too Many Requests', undefined, [['retry-after', '1']]);
      // The slot is handed over by the read that ends (active stays as it is).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await read();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.active--;
      else next();
    }
  }
}

/** The front end's long reads (the feeds, an account's trades): two at a time, 256 waiting. */
export const longReads = new ReadTurns(2, 256);

/** Resolves on the event loop's next turn, after the I/O that is waiting. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Most entries one page may look at per stream before it answers with what it found. */
export const FEED_SCAN_MAX = 200_000;

export interface PageSpec<T> {
  /** Each stream's items newest first, older than the entry given (all without it). */
  readonly streams: readonly ((after: FillEntry | undefined) => Iterable<T>)[];
  /** Items to take in all; the page is what follows the first `skip` of them. */
  readonly wanted: number;
  readonly skip: number;
  readonly passes: (item: T) => boolean;
  /** The merge order across streams (newest first). */
  readonly order: (a: T, b: T) => number;
  /** The entry an item stands at in its stream's index. */
  readonly entryOf: (item: T) => FillEntry;
}

/** One page and the cursor of the next; `next` is undefined once every stream is done. */
export function readPage<T>(spec: PageSpec<T>, cursor: FeedCursor | undefined): { items: T[]; next: FeedCursor | undefined } {
  if (cursor !== undefined && cursor.length !== spec.streams.length) throw badRequest('invalid cursor: it belongs to another query');
  const scans = spec.streams.map((read, stream) => scan(spec, read, cursor?.[stream] ?? null));
  const merged = scans.flatMap((found, stream) => found.items.map((item) => ({ item, stream })));
  merged.sort((a, b) => spec.order(a.item, b.item));
  const taken = merged.slice(0, spec.wanted);
  const takenPerStream = new Array<number>(scans.length).fill(0);
  for (const { stream } of taken) takenPerStream[stream]!++;
  const next = scans.map((found, stream): StreamPosition => {
    const count = takenPerStream[stream]!;
    if (count < found.items.length) return count === 0 ? (cursor?.[stream] ?? null) : spec.entryOf(found.items[count - 1]!);
    return found.done ? 'end' : found.last;
  });
  return { items: taken.slice(spec.skip).map(({ item }) => item), next: next.every((position) => position === 'end') ? undefined : next };
}

/** Up to `wanted` items of one stream that pass, looking at no more than FEED_SCAN_MAX. */
function scan<T>(spec: PageSpec<T>, read: (after: FillEntry | undefined) => Iterable<T>, at: StreamPosition): { items: T[]; last: StreamPosition; done: boolean } {
  const items: T[] = [];
  if (at === 'end') return { items, last: 'end', done: true };
  if (spec.wanted === 0) return { items, last: at, done: false };
  let last: StreamPosition = at;
  let scanned = 0;
  for (const item of read(at ?? undefined)) {
    last = spec.entryOf(item);
    if (spec.passes(item)) {
      items.push(item);
      if (items.length >= spec.wanted) return { items, last, done: false };
    }
    if (++scanned >= FEED_SCAN_MAX) return { items, last, done: false };
  }
  return { items, last, done: true };
}

/** Items of a newest-first walk older than `after` (all without it). */
export function* olderItems<T>(items: Iterable<T>, after: FillEntry | undefined, entryOf: (item: T) => FillEntry): Generator<T> {
  for (const item of items) if (after === undefined || compareEntries(entryOf(item), after) < 0) yield item;
}

// ---- the cursor as the HTTP edge carries it -------------------------------------------------

const CURSOR_PREFIX = 'c1:';
/** The longest cursor text: 64 streams of the longest entry. */
export const CURSOR_LENGTH_MAX = 4096;

/** An opaque text (base64url) for a cursor: per stream `seq.fillIndex.role`, `-` (from the newest) or `x` (done). */
export function encodeCursor(cursor: FeedCursor): string {
  const parts = cursor.map((position) => (position === null ? '-' : position === 'end' ? 'x' : position.join('.')));
  return Buffer.from(CURSOR_PREFIX + parts.join(','), 'latin1').toString('base64url');
}

/** A cursor from its text; a 400 naming the parameter when it is not one this server made. */
export function decodeCursor(text: string, parameter: string): FeedCursor {
  const plain = Buffer.from(text, 'base64url').toString('latin1');
  if (text.length > CURSOR_LENGTH_MAX || !plain.startsWith(CURSOR_PREFIX) || Buffer.from(plain, 'latin1').toString('base64url') !== text) {
    throw badRequest(`invalid ${parameter}`);
  }
  return plain.slice(CURSOR_PREFIX.length).split(',').map((part): StreamPosition => {
    if (part === '-') return null;
    if (part === 'x') return 'end';
    const numbers = part.split('.');
    if (numbers.length !== 3 || !numbers.every((number) => /^(0|[1-9][0-9]{0,15})$/.test(number))) throw badRequest(`invalid ${parameter}`);
    const [seq, fillIndex, role] = numbers.map(Number) as [number, number, number];
    if (!Number.isSafeInteger(seq) || fillIndex > 0xffff_ffff || role > 1) throw badRequest(`invalid ${parameter}`);
    return [seq, fillIndex, role];
  });
}

/** Whether a text is a cursor of this kind (not an older offset cursor). */
export function isFeedCursor(text: string): boolean {
  return Buffer.from(text, 'base64url').toString('latin1').startsWith(CURSOR_PREFIX);
}
