// Live order id → order slot. Every resting order is here from the moment it rests until it
// leaves the book; its id string stays in the order table, which the probe reads only where a
// hash matches. The index holds only what rests, so for any book a client keeps it stays small
// enough for the core's own caches, and cancels and duplicate checks of live ids find it there.
import { assert } from './assert.js';
import { IdBuckets } from './id_buckets.js';
import type { OrderTable } from './orders.js';

export class LiveIndex {
  private readonly buckets: IdBuckets;
  private readonly orders: OrderTable;

  constructor(orders: OrderTable) {
    this.orders = orders;
    this.buckets = new IdBuckets(orders.capacity);
  }

  size(): number {
    return this.buckets.entries;
  }

  /** The slot of the live order `id` (hashed as `hash`), or -1. */
  find(id: string, hash: number): number {
    return this.buckets.findKey(id, hash, this.orders.ids);
  }

  /** Indexes an order that has just rested in `slot`. */
  add(hash: number, slot: number): void {
    assert(slot >= 0, 'add: a slot');
    this.buckets.reserveOne();
    this.buckets.insert(hash, slot);
  }

  /** Drops the order in `slot` (hashed as `hash`), which is indexed. */
  remove(hash: number, slot: number): void {
    this.buckets.deleteAt(this.buckets.find(hash, slot));
  }
}
