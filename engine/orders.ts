// Live orders in preallocated slots, one 64-byte record per slot in a single buffer, so placing
// and cancelling allocate nothing and touching an order costs one cache line (a column per
// field cost a cache miss per field once the book is deep, and a second line of the record, for
// the times only events and reads need, cost one more miss on every cancel).
//
// A slot is linked into two intrusive lists: its price level's FIFO (next/prev, used by the
// ladder) and its owner's list of open orders (accountNext/accountPrev), which makes
// cancel-all and per-account caps O(orders of that account). The four links of every slot sit
// apart from the records, 16 bytes a slot in one array: unlinking an order writes its
// neighbours' links, and in the records those were two more random cache lines per list (a
// book of 20 000 orders is 1.3 MB of records, its links 320 KB). Freed slots chain through
// `next`; slots above the high-water mark were never used, so construction touches no record and
// the memory of unused slots is never committed.
//
// Index arithmetic is truncated with `| 0`, so TurboFan drops its overflow checks (see events.ts).
import { assert } from './assert.js';
import { MARKETS_MAX, ORDER_SLOTS_LIMIT, PRICE_LEVELS_COUNT } from './constants.js';
import { NIL, type SlotLinks } from './ladder.js';
import type { OrderType, Outcome, Side } from './command.js';

/** Int32 words per slot; the Float64 view sees half as many. */
export const ORDER_WORDS = 16;
const ORDER_AMOUNTS = ORDER_WORDS / 2;

// A slot's links.
const LINK_WORDS = 4;
const L_NEXT = 0;
const L_PREV = 1;
const L_ACCOUNT_NEXT = 2;
const L_ACCOUNT_PREV = 3;

// Float64 amounts of a record (amounts 2 and 3 are the Int32 words below; amount 7 is free).
// What a fill or a cancel reads is in the first 48 bytes and the serial last: malloc aligns
// the buffer to 16 bytes only, and a buffer this large is a fresh mapping starting 16 bytes past
// a page, so those 48 bytes share one cache line. A page-aligned buffer (a WebAssembly.Memory)
// measured no faster on the deep flow.
const A_EXPIRATION = 0;
const A_CREATED = 1;
const A_REMAINING = 4;
const A_ORIGINAL = 5;
const A_SERIAL = 6;
// Int32 words of a record.
const W_ACCOUNT = 4;
const W_POSITION = 5;
const W_PACKED = 6;
const W_ID_HASH = 7;

// The packed word: market (12 bits), book price (14), outcome (1), side (1), type (2), live (1).
const PRICE_SHIFT = 12;
const OUTCOME_SHIFT = 26;
const SIDE_SHIFT = 27;
const TYPE_SHIFT = 28;
const LIVE_BIT = 1 << 30;
assert(MARKETS_MAX <= 1 << PRICE_SHIFT, 'markets fit the packed word');
assert(PRICE_LEVELS_COUNT <= 1 << (OUTCOME_SHIFT - PRICE_SHIFT), 'prices fit the packed word');
assert(ORDER_SLOTS_LIMIT * ORDER_WORDS < 2 ** 31, 'record indexes stay int32 (the `| 0` below)');

// The fields of a record's packed word (OrderTable.packedOf), for a path that reads it once.

export function packedMarket(packed: number): number {
  return packed & ((1 << PRICE_SHIFT) - 1);
}

export function packedLevel(packed: number): number {
  return (packed >>> PRICE_SHIFT) & ((1 << (OUTCOME_SHIFT - PRICE_SHIFT)) - 1);
}

export function packedOutcome(packed: number): Outcome {
  return ((packed >>> OUTCOME_SHIFT) & 1) as Outcome;
}

export function packedSide(packed: number): Side {
  return ((packed >>> SIDE_SHIFT) & 1) as Side;
}

export function packedOrderType(packed: number): OrderType {
  return ((packed >>> TYPE_SHIFT) & 3) as OrderType;
}

/** Per-account heads and tails of the open-order lists; owned by Accounts (it grows them). */
export interface AccountOrderLists {
  orderHead: Int32Array;
  orderTail: Int32Array;
  orderCount: Int32Array;
}

export class OrderTable {
  readonly capacity: number;
  /** The level FIFO links, for the ladders. */
  readonly links: SlotLinks;
  private readonly words: Int32Array;
  private readonly amounts: Float64Array;
  /** LINK_WORDS per slot: level FIFO next/prev, then owner's list next/prev. */
  private readonly chains: Int32Array;
  /** Each live slot's order id ('' once freed; holes above the high-water mark). */
  readonly ids: string[];
  private freeHead = NIL;
  private highWater = 0;
  private liveCount = 0;

  constructor(capacity: number) {
    assert(Number.isInteger(capacity) && capacity > 0, 'order table capacity');
    this.capacity = capacity;
    const buffer = new ArrayBuffer(capacity * ORDER_WORDS * 4);
    this.words = new Int32Array(buffer);
    this.amounts = new Float64Array(buffer);
    // Holes until a slot is used: reading an id is only done for live slots.
    this.ids = new Array<string>(capacity);
    this.chains = new Int32Array(capacity * LINK_WORDS);
    this.links = { words: this.chains, stride: LINK_WORDS, nextOffset: L_NEXT, prevOffset: L_PREV };
  }

  count(): number {
    return this.liveCount;
  }

  hasFreeSlot(): boolean {
    return this.freeHead !== NIL || this.highWater < this.capacity;
  }

  /**
   * Takes a free slot and fills it but for its times, which the caller sets (setCreatedAt,
   * setExpiration: a time crossing a call TurboFan did not inline is boxed, see OrderHistory's
   * record); the caller also links it into its level and account lists.
   */
  allocate(
    id: string, idHash: number, account: number, position: number, market: number, outcome: number, side: number,
    orderType: number, bookPrice: number, originalMicros: number, remainingMicros: number, serial: number,
  ): number {
    assert(this.hasFreeSlot(), 'allocate: a free slot was checked for');
    let slot = this.freeHead;
    if (slot === NIL) slot = this.highWater++;
    else this.freeHead = this.chains[(slot * LINK_WORDS + L_NEXT) | 0]!;
    this.chains[(slot * LINK_WORDS + L_NEXT) | 0] = NIL;
    this.chains[(slot * LINK_WORDS + L_PREV) | 0] = NIL;
    const base = (slot * ORDER_WORDS) | 0;
    this.words[(base + W_ACCOUNT) | 0] = account;
    this.words[(base + W_POSITION) | 0] = position;
    this.words[(base + W_PACKED) | 0] = market | (bookPrice << PRICE_SHIFT) | (outcome << OUTCOME_SHIFT) |
      (side << SIDE_SHIFT) | (orderType << TYPE_SHIFT) | LIVE_BIT;
    this.words[(base + W_ID_HASH) | 0] = idHash;
    const amounts = (slot * ORDER_AMOUNTS) | 0;
    this.amounts[(amounts + A_REMAINING) | 0] = remainingMicros;
    this.amounts[(amounts + A_ORIGINAL) | 0] = originalMicros;
    this.amounts[(amounts + A_SERIAL) | 0] = serial;
    this.ids[slot] = id;
    this.liveCount += 1;
    return slot;
  }

  /** Returns a slot that is already unlinked from its level and its account. */
  release(slot: number): void {
    assert(this.isLive(slot), 'release: slot is live');
    this.words[(slot * ORDER_WORDS + W_PACKED) | 0] = 0;
    this.chains[(slot * LINK_WORDS + L_NEXT) | 0] = this.freeHead;
    this.ids[slot] = '';
    this.freeHead = slot;
    this.liveCount -= 1;
  }

  isLive(slot: number): boolean {
    return (this.packedOf(slot) & LIVE_BIT) !== 0;
  }

  idOf(slot: number): string {
    return this.ids[slot]!;
  }

  idHashOf(slot: number): number {
    return this.words[(slot * ORDER_WORDS + W_ID_HASH) | 0]!;
  }

  accountOf(slot: number): number {
    return this.words[(slot * ORDER_WORDS + W_ACCOUNT) | 0]!;
  }

  /** The owner's position (account, market) in the ledger, resolved once at placement. */
  positionOf(slot: number): number {
    return this.words[(slot * ORDER_WORDS + W_POSITION) | 0]!;
  }

  /**
   * The record's packed word: market, level, outcome, side and type, which the functions below
   * decode. A path that uses several of them reads it once (cancelLive, a maker's fill): each
   * read of a record field is a load with its bounds check that TurboFan does not merge with the
   * last one, and a cancel read the packed word ten times.
   */
  packedOf(slot: number): number {
    return this.words[(slot * ORDER_WORDS + W_PACKED) | 0]!;
  }

  marketOf(slot: number): number {
    return packedMarket(this.packedOf(slot));
  }

  /** The price in YES-orientation units: the order's level in its market's book. */
  levelOf(slot: number): number {
    return packedLevel(this.packedOf(slot));
  }

  outcomeOf(slot: number): Outcome {
    return packedOutcome(this.packedOf(slot));
  }

  sideOf(slot: number): Side {
    return packedSide(this.packedOf(slot));
  }

  orderTypeOf(slot: number): OrderType {
    return packedOrderType(this.packedOf(slot));
  }

  remainingOf(slot: number): number {
    return this.amounts[(slot * ORDER_AMOUNTS + A_REMAINING) | 0]!;
  }

  setRemaining(slot: number, remainingMicros: number): void {
    this.amounts[(slot * ORDER_AMOUNTS + A_REMAINING) | 0] = remainingMicros;
  }

  originalOf(slot: number): number {
    return this.amounts[(slot * ORDER_AMOUNTS + A_ORIGINAL) | 0]!;
  }

  /** Placement number, unique per engine; orders time priority and expiry ties. */
  serialOf(slot: number): number {
    return this.amounts[(slot * ORDER_AMOUNTS + A_SERIAL) | 0]!;
  }

  /** Sets the order's time (see allocate); inlined under the server's budget, so never boxed. */
  setCreatedAt(slot: number, createdAtMs: number): void {
    this.amounts[(slot * ORDER_AMOUNTS + A_CREATED) | 0] = createdAtMs;
  }

  /** As setCreatedAt. */
  setExpiration(slot: number, expirationMs: number): void {
    this.amounts[(slot * ORDER_AMOUNTS + A_EXPIRATION) | 0] = expirationMs;
  }

  createdAtOf(slot: number): number {
    return this.amounts[(slot * ORDER_AMOUNTS + A_CREATED) | 0]!;
  }

  expirationOf(slot: number): number {
    return this.amounts[(slot * ORDER_AMOUNTS + A_EXPIRATION) | 0]!;
  }

  /** The next order of the same owner, in placement order, or NIL. */
  accountNextOf(slot: number): number {
    return this.chains[(slot * LINK_WORDS + L_ACCOUNT_NEXT) | 0]!;
  }

  /** Appends the slot to its owner's open-order list (placement order). */
  linkToAccount(slot: number, lists: AccountOrderLists): void {
    const account = this.accountOf(slot);
    const chains = this.chains;
    const tail = lists.orderTail[account]!;
    chains[(slot * LINK_WORDS + L_ACCOUNT_PREV) | 0] = tail;
    chains[(slot * LINK_WORDS + L_ACCOUNT_NEXT) | 0] = NIL;
    if (tail === NIL) lists.orderHead[account] = slot;
    else chains[(tail * LINK_WORDS + L_ACCOUNT_NEXT) | 0] = slot;
    lists.orderTail[account] = slot;
    lists.orderCount[account] = lists.orderCount[account]! + 1;
  }

  /** Unlinks the slot from the open-order list of `account`, its owner. */
  unlinkFromAccount(slot: number, account: number, lists: AccountOrderLists): void {
    const chains = this.chains;
    const base = (slot * LINK_WORDS) | 0;
    const before = chains[(base + L_ACCOUNT_PREV) | 0]!;
    const after = chains[(base + L_ACCOUNT_NEXT) | 0]!;
    if (before === NIL) lists.orderHead[account] = after;
    else chains[(before * LINK_WORDS + L_ACCOUNT_NEXT) | 0] = after;
    if (after === NIL) lists.orderTail[account] = before;
    else chains[(after * LINK_WORDS + L_ACCOUNT_PREV) | 0] = before;
    chains[(base + L_ACCOUNT_NEXT) | 0] = NIL;
    chains[(base + L_ACCOUNT_PREV) | 0] = NIL;
    const count = lists.orderCount[account]! - 1;
    assert(count >= 0, 'account order count stays non-negative');
    lists.orderCount[account] = count;
  }
}
