// Every order a shard finished (filled, cancelled, expired, a taker that did not rest), kept
// forever for reads by id and for refusing a finished id placed again:
//
//   finished-orders   n → the orders n, n + 1 … as they finished, a group of up to
//                     GROUP_RECORDS_MAX (stored_codec.ts); n = 1, 2, 3 … in commit order, each group
//                     keyed by its first order's n (an older version stored one order per key)
//
// plus an index in memory, id → n: the IdBuckets of the engine's own id indexes (a 30-bit hash
// of the id and n, 8 bytes a bucket, at most half full), the id compared against the stored
// order only where the hash matches. It is rebuilt from the table at every start, reading only
// each id from the raw bytes: ~0.9 s per million finished orders on this machine (decoding each
// order whole took ~1.35 s). A shard with tens of millions of them starts that much slower; the
// lever then is to keep the index in the snapshots.
//
// Why not a table keyed by the id: order ids are hashes, so every finished order landed on a
// page of its own in a large B-tree, and each commit copied and wrote one 4 KB page per order
// and searched the tree for each. On this machine a random-key insert into a table of 200 000
// orders cost ~4 µs and its share of the commit 8 to 30 µs (the fewer orders per commit, the
// more), an append ~0.5 µs and ~1 µs; the id-keyed table was a quarter of a shard's durable
// throughput, and the placing path read it once per order to refuse duplicates. Appended one per
// key, the orders were still a put each (~2.5 µs, about as many as a batch has commands); in
// groups a batch makes a put per 64 orders.
//
// Limits: the index holds up to INDEXED_MAX orders; n is a 32-bit signed integer, so a shard
// stores at most 2^31 − 1 finished orders. Reaching either stops the shard with an assertion.
//
// A store an older version wrote has an `orders` table keyed by id; it is moved into this table
// when the store opens, in transactions of MIGRATE_BATCH that each copy and delete, so a crash
// in between leaves nothing twice.
import { randomInt } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import { assert } from '../assert.js';
import { hashOrderId, idKey, IdBuckets, seededHash } from '../orders/id_buckets.js';
import type { OrderView } from '../state/reads.js';
import { decoded, putInGroups, readStoredOrders, storedOrderIdsOf, StoredWriter } from './stored_codec.js';

/** Orders the in-memory index can hold (2^28 buckets, 2 GiB, at its largest). */
const INDEXED_MAX = 2 ** 27;
const N_MAX = 2 ** 31 - 1;
const MIGRATE_BATCH = 10_000;

export class StoredOrders {
  /** Values: read them with readStoredOrders. */
  private readonly table: Database<unknown, number>;
  private readonly index = new IdBuckets(INDEXED_MAX);
  /** A fresh seed at every start: nobody can make ids that collide in the index. */
  private readonly seed = randomInt(0x7fffffff);
  private readonly writer = new StoredWriter();
  /** The n of the next order written. */
  private next: number;
  /** Written in the open transaction, indexed once it commits: [id, n]. */
  private readonly uncommitted: [string, number][] = [];
  /** The id being probed for, and its stored order once found (see probe). */
  private probing = '';
  private probed: OrderView | undefined = undefined;
  /** Made once: placing an order probes for its id, and this runs only where a hash matches. */
  private readonly matchesProbe = (n: number): boolean => {
    const view = this.orderAt(n);
    if (view?.orderId !== this.probing) return false;
    this.probed = view;
    return true;
  };

  constructor(private readonly root: RootDatabase) {
    this.table = root.openDB({ name: 'finished-orders', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    this.migrate(root.openDB({ name: 'orders', encoding: 'msgpack' }));
    // The same table as raw bytes: the index needs only each id, read in place.
    const raw = root.openDB<Buffer, number>({ name: 'finished-orders', encoding: 'binary', keyEncoding: 'ordered-binary' });
    for (const { key, value } of raw.getRange()) {
      const ids = storedOrderIdsOf(value) ?? this.decode(key, this.table.get(key)).map((view) => view.orderId);
      ids.forEach((id, index) => this.indexAt(id, key + index));
    }
    this.next = this.lastN() + 1;
  }

  /** Inside the caller's write transaction: appends `orders`; they are found once `committed()`. */
  write(orders: ReadonlyMap<string, OrderView>): void {
    const firstN = this.next;
    putInGroups(orders, ([id, view]) => {
      assert(this.next <= N_MAX, 'stored orders: n fits 32 bits');
      this.uncommitted.push([id, this.next++]);
      return this.writer.order(view);
    }, (first, value) => this.table.putSync(firstN + first, value));
  }

  /** The transaction of the last `write` committed. */
  committed(): void {
    for (const [id, n] of this.uncommitted) this.indexAt(id, n);
    this.uncommitted.length = 0;
  }

  /** The transaction of the last `write` was aborted. */
  aborted(): void {
    this.next -= this.uncommitted.length;
    this.uncommitted.length = 0;
  }

  /** Whether `id` (whose idKey is `key`) is stored. */
  has(id: string, key = idKey(id)): boolean {
    return this.find(id, key) !== undefined;
  }

  get(id: string): OrderView | undefined {
    return this.find(id, idKey(id));
  }

  /** Every stored order, in the order they finished. */
  all(): OrderView[] {
    return [...this.table.getRange().flatMap(({ key, value }) => this.decode(key, value))];
  }

  /** Decodes every stored order (a check of the table); returns how many there are. */
  decodeAll(): number {
    let count = 0;
    for (const { key, value } of this.table.getRange()) count += this.decode(key, value).length;
    return count;
  }

  /** Records that `id` is stored at `n`; an id stored again points at its newest copy. */
  private indexAt(id: string, n: number): void {
    const hash = hashOrderId(id, this.seed);
    const bucket = this.probe(id, hash);
    if (bucket !== -1) {
      this.index.setValueAt(bucket, n);
      return;
    }
    assert(this.index.entries < INDEXED_MAX, 'stored orders: the index has room');
    this.index.reserveOne();
    this.index.insert(hash, n);
  }

  private find(id: string, key: number): OrderView | undefined {
    return this.probe(id, seededHash(key, this.seed)) === -1 ? undefined : this.probed;
  }

  /** The bucket of `id`, or -1; when found, its stored order is in `probed`. */
  private probe(id: string, hash: number): number {
    this.probing = id;
    this.probed = undefined;
    return this.index.findMatch(hash, this.matchesProbe);
  }

  /** The n of the newest stored order, 0 when none is. */
  private lastN(): number {
    for (const { key, value } of this.table.getRange({ reverse: true, limit: 1 })) return key + this.decode(key, value).length - 1;
    return 0;
  }

  /** Stored order `n`, read from the group that holds it. */
  private orderAt(n: number): OrderView | undefined {
    for (const { key, value } of this.table.getRange({ start: n, reverse: true, limit: 1 })) return this.decode(key, value)[n - key];
    return undefined;
  }

  /** The orders of the value at key `n`: orders n, n + 1 … */
  private decode(n: number, value: unknown): OrderView[] {
    return decoded(readStoredOrders(value), `stored orders from ${n}`);
  }

  /** Moves what an older version stored by id into this table (see the file comment). */
  private migrate(legacy: Database<unknown, string>): void {
    for (;;) {
      const entries = [...legacy.getRange({ limit: MIGRATE_BATCH })];
      if (entries.length === 0) break;
      let next = this.lastN() + 1;
      this.root.transactionSync(() => {
        for (const { key, value } of entries) {
          this.table.putSync(next++, value);
          legacy.removeSync(key);
        }
      });
    }
  }
}
