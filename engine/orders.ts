// Live orders, stored column-wise over preallocated slots so placing and cancelling allocate
// nothing. A slot is linked into two intrusive lists: its price level's FIFO (next/prev, used
// by the ladder) and its owner's list of open orders (accountNext/accountPrev), which makes
// cancel-all and per-account caps O(orders of that account). Free slots chain through `next`.
import { assert } from './assert.js';
import { NIL } from './ladder.js';
import type { OrderType, Outcome, Side } from './command.js';

/** Per-account heads and tails of the open-order lists; owned by Accounts (it grows them). */
export interface AccountOrderLists {
  orderHead: Int32Array;
  orderTail: Int32Array;
  orderCount: Int32Array;
}

export class OrderTable {
  readonly capacity: number;
  readonly next: Int32Array;
  readonly prev: Int32Array;
  readonly accountNext: Int32Array;
  readonly accountPrev: Int32Array;
  readonly live: Uint8Array;
  readonly id: string[];
  /** The id's hash, kept so moving the order to history needs no rehash. */
  readonly idHash: Int32Array;
  readonly account: Int32Array;
  /** The owner's position (account, market) in the ledger, resolved once at placement. */
  readonly position: Int32Array;
  readonly market: Int32Array;
  readonly outcome: Uint8Array;
  readonly side: Uint8Array;
  readonly orderType: Uint8Array;
  /** Price in YES-orientation units, the level index in the market's book. */
  readonly bookPrice: Int32Array;
  readonly originalMicros: Float64Array;
  readonly remainingMicros: Float64Array;
  readonly createdAtMs: Float64Array;
  readonly expirationMs: Float64Array;
  /** Placement number, unique per engine; orders time priority and expiry ties. */
  readonly serial: Float64Array;
  private freeHead: number;
  private liveCount = 0;

  constructor(capacity: number) {
    assert(Number.isInteger(capacity) && capacity > 0, 'order table capacity');
    this.capacity = capacity;
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity).fill(NIL);
    this.accountNext = new Int32Array(capacity).fill(NIL);
    this.accountPrev = new Int32Array(capacity).fill(NIL);
    this.live = new Uint8Array(capacity);
    this.id = new Array<string>(capacity).fill('');
    this.idHash = new Int32Array(capacity);
    this.account = new Int32Array(capacity);
    this.position = new Int32Array(capacity);
    this.market = new Int32Array(capacity);
    this.outcome = new Uint8Array(capacity);
    this.side = new Uint8Array(capacity);
    this.orderType = new Uint8Array(capacity);
    this.bookPrice = new Int32Array(capacity);
    this.originalMicros = new Float64Array(capacity);
    this.remainingMicros = new Float64Array(capacity);
    this.createdAtMs = new Float64Array(capacity);
    this.expirationMs = new Float64Array(capacity);
    this.serial = new Float64Array(capacity);
    for (let slot = 0; slot < capacity; slot += 1) this.next[slot] = slot + 1 < capacity ? slot + 1 : NIL;
    this.freeHead = 0;
  }

  count(): number {
    return this.liveCount;
  }

  hasFreeSlot(): boolean {
    return this.freeHead !== NIL;
  }

  /** Takes a free slot and marks it live; the caller fills its columns. */
  allocate(): number {
    const slot = this.freeHead;
    assert(slot !== NIL, 'allocate: a free slot was checked for');
    this.freeHead = this.next[slot]!;
    this.next[slot] = NIL;
    this.prev[slot] = NIL;
    this.live[slot] = 1;
    this.liveCount += 1;
    return slot;
  }

  /** Returns a slot that is already unlinked from its level and its account. */
  release(slot: number): void {
    assert(this.live[slot] === 1, 'release: slot is live');
    this.live[slot] = 0;
    this.id[slot] = '';
    this.next[slot] = this.freeHead;
    this.freeHead = slot;
    this.liveCount -= 1;
  }

  outcomeOf(slot: number): Outcome {
    return this.outcome[slot] as Outcome;
  }

  sideOf(slot: number): Side {
    return this.side[slot] as Side;
  }

  orderTypeOf(slot: number): OrderType {
    return this.orderType[slot] as OrderType;
  }

  /** Appends the slot to its owner's open-order list (placement order). */
  linkToAccount(slot: number, lists: AccountOrderLists): void {
    const account = this.account[slot]!;
    const tail = lists.orderTail[account]!;
    this.accountPrev[slot] = tail;
    this.accountNext[slot] = NIL;
    if (tail === NIL) lists.orderHead[account] = slot;
    else this.accountNext[tail] = slot;
    lists.orderTail[account] = slot;
    lists.orderCount[account] = lists.orderCount[account]! + 1;
  }

  unlinkFromAccount(slot: number, lists: AccountOrderLists): void {
    const account = this.account[slot]!;
    const before = this.accountPrev[slot]!;
    const after = this.accountNext[slot]!;
    if (before === NIL) lists.orderHead[account] = after;
    else this.accountNext[before] = after;
    if (after === NIL) lists.orderTail[account] = before;
    else this.accountPrev[after] = before;
    this.accountNext[slot] = NIL;
    this.accountPrev[slot] = NIL;
    lists.orderCount[account] = lists.orderCount[account]! - 1;
    assert(lists.orderCount[account]! >= 0, 'account order count stays non-negative');
  }
}
