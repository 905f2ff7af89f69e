// An account's live orders in the order GET /data/orders pages them: by creation time, then id
// (what the route sorted every order by before the account read model kept them). Kept sorted in
// chunks of at most CHUNK_MAX, so placing or finishing an order costs O(log n + CHUNK_MAX) and a
// page at an offset skips whole chunks: O(n / CHUNK_MAX + page), never a sort of every order.
// An order almost always arrives last (its time is the newest), which appends to the last chunk.

/** What the list orders its items by. */
export interface Listed {
  readonly createdAtMs: number;
  readonly orderId: string;
  readonly shard: number;
}

/** Most items in a chunk; a fuller one is split in two. */
const CHUNK_MAX = 128;
/** A chunk this small is merged into a neighbour that has room, so chunks stay about half full. */
const CHUNK_MERGE = CHUNK_MAX / 4;

/**
 * Creation time, then id as the route compared them (localeCompare), then code units where
 * localeCompare finds two different ids equal, then the shard (the route's stable sort kept the
 * shards' order): a total order, so a binary search finds each item. Times compare as numbers,
 * which is how their ISO strings compared (same length, same layout).
 */
export function compareListed(a: Listed, b: Listed): number {
  if (a.createdAtMs !== b.createdAtMs) return a.createdAtMs - b.createdAtMs;
  if (a.orderId !== b.orderId) return a.orderId.localeCompare(b.orderId) || (a.orderId < b.orderId ? -1 : 1);
  return a.shard - b.shard;
}

export class OrderList<T extends Listed> {
  private readonly chunks: T[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  insert(item: T): void {
    this.count++;
    const chunks = this.chunks;
    const last = chunks[chunks.length - 1];
    if (last === undefined) {
      chunks.push([item]);
      return;
    }
    // The common case: the newest order goes last.
    let index = compareListed(last[last.length - 1]!, item) < 0 ? chunks.length - 1 : this.chunkOf(item);
    if (index === -1) index = chunks.length - 1;
    const chunk = chunks[index]!;
    chunk.splice(lowerBound(chunk, item), 0, item);
    if (chunk.length > CHUNK_MAX) chunks.splice(index + 1, 0, chunk.splice(CHUNK_MAX / 2));
  }

  /** Removes `item` (the very object); false when it is not in the list. */
  remove(item: T): boolean {
    const index = this.chunkOf(item);
    if (index === -1) return false;
    const chunk = this.chunks[index]!;
    const at = lowerBound(chunk, item);
    if (chunk[at] !== item) return false;
    chunk.splice(at, 1);
    this.count--;
    this.compact(index);
    return true;
  }

  /** Up to `count` items from position `offset` on. */
  page(offset: number, count: number): T[] {
    const items: T[] = [];
    let skip = offset;
    for (const chunk of this.chunks) {
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      for (let at = skip; at < chunk.length && items.length < count; at++) items.push(chunk[at]!);
      skip = 0;
      if (items.length === count) break;
    }
    return items;
  }

  *values(): IterableIterator<T> {
    for (const chunk of this.chunks) yield* chunk;
  }

  /** The first chunk whose last item is not before `item`, or -1. */
  private chunkOf(item: T): number {
    const chunks = this.chunks;
    let low = 0;
    let high = chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = chunks[middle]!;
      if (compareListed(chunk[chunk.length - 1]!, item) < 0) low = middle + 1;
      else high = middle;
    }
    return low === chunks.length ? -1 : low;
  }

  /** Drops an empty chunk, or merges a small one into a neighbour with room. */
  private compact(index: number): void {
    const chunks = this.chunks;
    const chunk = chunks[index]!;
    if (chunk.length === 0) {
      chunks.splice(index, 1);
      return;
    }
    if (chunk.length > CHUNK_MERGE) return;
    const next = chunks[index + 1];
    if (next !== undefined && chunk.length + next.length <= CHUNK_MAX) {
      chunk.push(...next);
      chunks.splice(index + 1, 1);
      return;
    }
    const previous = chunks[index - 1];
    if (previous !== undefined && chunk.length + previous.length <= CHUNK_MAX) {
      previous.push(...chunk);
      chunks.splice(index, 1);
    }
  }
}

/** The first position in the sorted `chunk` whose item is not before `item`. */
function lowerBound<T extends Listed>(chunk: readonly T[], item: T): number {
  let low = 0;
  let high = chunk.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareListed(chunk[middle]!, item) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
