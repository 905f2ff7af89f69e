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
// A record's second half holds the order id's words (id_words.ts), where its placement carried
// them: a cancel that carries its id's words compares them on the line it reads anyway, instead of
// the stored id string, which sat wherever the heap had put it when the order rested and missed
// the cache on nearly every cancel of a deep book (see bench/engine/README.md, "What a cancel's id
// costs"). The rest of a record fits the first half: sizes in lots, and the expiration and serial,
// which cancels and fills do not read, in arrays of their own.
//
// Sizes reach the engine in whole lots of 0.01 share but for a market BUY's, which never rests;
// a finer size rests only as what fills of one leave (the remainder a market BUY leaves on the
// order it ends on, and what a later order leaves of itself against such a remainder). So the
// record keeps a size as int32 lots, and a size that is not whole lots as NOT_WHOLE_LOTS there and
// its micros in `fineSizes`, a line only such an order's reads touch: the record stays one cache
// line, where two float64 sizes would have pushed its time out of it.
//
// Index arithmetic is truncated with `| 0`, so TurboFan drops its overflow checks (see events.ts).
import { assert } from '../assert.js';
import { MARKETS_MAX, ORDER_SLOTS_LIMIT, PRICE_LEVELS_COUNT, SIZE_MICROS_MAX, SIZE_MICROS_PER_LOT } from '../constants.js';
import { NIL, type SlotLinks } from '../market/ladder.js';
import { OrderType, type Outcome, type Side } from '../command.js';
import { ID_WORDS } from './id_words.js';

/** Int32 words per slot (64 bytes, a cache line: the buffer is page-aligned); the Float64 view sees half as many. */
export const ORDER_WORDS = 16;
const ORDER_AMOUNTS = ORDER_WORDS / 2;

// A slot's links.
const LINK_WORDS = 4;
const L_NEXT = 0;
const L_PREV = 1;
const L_ACCOUNT_NEXT = 2;
const L_ACCOUNT_PREV = 3;

// Int32 words of a record: everything a cancel or a fill reads. Sizes are kept in lots (the
// largest, SIZE_MICROS_MAX, is 10^9 lots), or NOT_WHOLE_LOTS (see above), so the record fits 32 bytes.
const W_ACCOUNT = 0;
const W_POSITION = 1;
const W_PACKED = 2;
const W_ID_HASH = 3;
const W_REMAINING_LOTS = 4;
const W_ORIGINAL_LOTS = 5;
/** A size word's value for a size that is not whole lots: its micros are in `fineSizes`. */
const NOT_WHOLE_LOTS = -1;
// A slot's two entries in `fineSizes`.
const FINE_WORDS = 2;
const F_REMAINING = 0;
const F_ORIGINAL = 1;// Float64 amounts of a record: the time (words 6 and 7), then the id's words (the second half).
const A_CREATED = 3;
const A_ID_WORDS = 4;
assert(A_ID_WORDS + ID_WORDS === ORDER_AMOUNTS, 'the id words fill the record\'s second half');
assert(SIZE_MICROS_MAX / SIZE_MICROS_PER_LOT < 2 ** 31, 'a size in lots fits an int32 word');
const WASM_PAGE_BYTES = 65536;
// The one WebAssembly API used here (the project's TypeScript libraries do not declare it).
declare const WebAssembly: { Memory: new (pages: { initial: number; maximum: number }) => { buffer: ArrayBuffer } };

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
  /** A GTD order's expiration by slot (other types take none: expirationOf answers 0 unread). */
  private readonly expirations: Float64Array;
  /** Each order's placement number by slot (expiry and snapshots read it; cancels and fills do not). */
  private readonly serials: Float64Array;
  /** FINE_WORDS per slot: its remaining and original micros where the record says NOT_WHOLE_LOTS. */
  private readonly fineSizes: Float64Array;
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
    // Page-aligned, so no record straddles two cache lines.
    const pages = Math.ceil((capacity * ORDER_WORDS * 4) / WASM_PAGE_BYTES);
    const buffer = new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer;
    this.expirations = new Float64Array(capacity);
    this.serials = new Float64Array(capacity);
    this.fineSizes = new Float64Array(capacity * FINE_WORDS);
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
   * record); the caller also links it into its level and account lists. The id's words are
   * `idWords[idWordsAt ..]` (id_words.ts), idWordsAt -1 for an id without: its record then holds
   * NaN in their place, which no word is, so idMatches compares its id as a string.
   */
  allocate(
    id: string, idHash: number, idWords: Float64Array, idWordsAt: number, account: number, position: number,
    market: number, outcome: number, side: number, orderType: number, bookPrice: number, originalMicros: number,
    remainingMicros: number, serial: number,
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
    this.setSize(slot, W_REMAINING_LOTS, F_REMAINING, remainingMicros);
    this.setSize(slot, W_ORIGINAL_LOTS, F_ORIGINAL, originalMicros);
    this.keepIdWords(slot, idWords, idWordsAt);
    this.serials[slot] = serial;
    this.ids[slot] = id;
    this.liveCount += 1;
    return slot;
  }

  /**
   * Writes the record's id words (allocate's). Apart, so allocate stays under V8's bytecode limit
   * for inlining a function (--max-inlined-bytecode-size, 460): with it written out, allocate was a
   * call of ~100 instructions more on every place.
   */
  private keepIdWords(slot: number, idWords: Float64Array, idWordsAt: number): void {
    const kept = (slot * ORDER_AMOUNTS + A_ID_WORDS) | 0;
    if (idWordsAt < 0) {
      this.amounts[kept] = NaN;
      return;
    }
    this.amounts[kept] = idWords[idWordsAt]!;
    this.amounts[(kept + 1) | 0] = idWords[(idWordsAt + 1) | 0]!;
    this.amounts[(kept + 2) | 0] = idWords[(idWordsAt + 2) | 0]!;
    this.amounts[(kept + 3) | 0] = idWords[(idWordsAt + 3) | 0]!;
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

  /** Whether the order in `slot` keeps its id's words (its placement carried them; see allocate). */
  hasIdWords(slot: number): boolean {
    const first = this.amounts[(slot * ORDER_AMOUNTS + A_ID_WORDS) | 0]!;
    return first === first;
  }

  /**
   * Whether the live order in `slot` is the order `id`, whose words are `words[at ..]` (at -1: it
   * has none). Where both have words, they decide, and the id string is not read; else the strings.
   */
  idMatches(slot: number, id: string, words: Float64Array, at: number): boolean {
    if (at >= 0) {
      const kept = this.amounts;
      const base = (slot * ORDER_AMOUNTS + A_ID_WORDS) | 0;
      const first = kept[base]!;
      // NaN, which no word is: the order has none (allocate).
      if (first === first) {
        return first === words[at] && kept[(base + 1) | 0] === words[(at + 1) | 0] &&
          kept[(base + 2) | 0] === words[(at + 2) | 0] && kept[(base + 3) | 0] === words[(at + 3) | 0];
      }
    }
    return this.ids[slot] === id;
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
    return this.sizeOf(slot, W_REMAINING_LOTS, F_REMAINING);
  }

  /** Sets the remainder (what a fill leaves). */
  setRemaining(slot: number, remainingMicros: number): void {
    this.setSize(slot, W_REMAINING_LOTS, F_REMAINING, remainingMicros);
  }

  originalOf(slot: number): number {
    return this.sizeOf(slot, W_ORIGINAL_LOTS, F_ORIGINAL);
  }

  /** A size of the record: its word's lots, or its micros in `fineSizes` (see the top of the file). */
  private sizeOf(slot: number, word: number, fine: number): number {
    const lots = this.words[(slot * ORDER_WORDS + word) | 0]!;
    return lots !== NOT_WHOLE_LOTS ? lots * SIZE_MICROS_PER_LOT : this.fineSizes[(slot * FINE_WORDS + fine) | 0]!;
  }

  private setSize(slot: number, word: number, fine: number, sizeMicros: number): void {
    const lots = sizeMicros / SIZE_MICROS_PER_LOT;
    if ((lots | 0) === lots) {
      this.words[(slot * ORDER_WORDS + word) | 0] = lots;
    } else {
      this.words[(slot * ORDER_WORDS + word) | 0] = NOT_WHOLE_LOTS;
      this.fineSizes[(slot * FINE_WORDS + fine) | 0] = sizeMicros;
    }
  }

  /** Placement number, unique per engine; orders time priority and expiry ties. */
  serialOf(slot: number): number {
    return this.serials[slot]!;
  }

  /** Sets the order's time (see allocate); inlined under the server's budget, so never boxed. */
  setCreatedAt(slot: number, createdAtMs: number): void {
    this.amounts[(slot * ORDER_AMOUNTS + A_CREATED) | 0] = createdAtMs;
  }

  /** As setCreatedAt. */
  setExpiration(slot: number, expirationMs: number): void {
    if (expirationMs !== 0) this.expirations[slot] = expirationMs;
  }

  createdAtOf(slot: number): number {
    return this.amounts[(slot * ORDER_AMOUNTS + A_CREATED) | 0]!;
  }

  /**
   * A GTD order's expiration; 0 for the other types, which take none. `packed` is its record's
   * packed word, for a path that has read it (packedOf).
   */
  expirationOf(slot: number, packed = this.packedOf(slot)): number {
    return packedOrderType(packed) === OrderType.GTD ? this.expirations[slot]! : 0;
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
