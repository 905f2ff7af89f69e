// The three benchmark flows, generated from a seed into compact columns (so ten million
// commands fit in memory and replaying them allocates nothing):
// - deep: a fixed mid and a book pre-filled with 20 000 resting orders, a few hundred per
//   level; then steady traffic where 95 % of resting placements are later cancelled and a
//   trickle of marketable orders takes the rest, so the book stays about 20 000 deep.
// - normal: the mid random-walks; orders rest around it, a tenth cross, most are cancelled.
// - fast: the mid jumps in large swings; a third of the orders cross; 15 % of all commands are
//   FOK or FAK.
// Each flow is one binary market. A row is a PlaceOrder or a CancelOrder; the prefill rows come
// first and are run untimed. Like a real client, the generator cancels only orders that still
// rest: an oracle (the engine itself, run alongside during generation) tells it which do.
import { OrderType, Side } from '../../engine/command.js';
import { assert } from '../../engine/assert.js';
import { idKey } from '../../engine/orders/id_buckets.js';
import { ID_WORDS, parseIdWords } from '../../engine/orders/id_words.js';
import { Prng } from '../../test/engine/prng.js';

export const FlowKind = { deep: 'deep', normal: 'normal', fast: 'fast' } as const;
export type FlowKind = (typeof FlowKind)[keyof typeof FlowKind];

export const ROW_PLACE = 1;
export const ROW_CANCEL = 2;

/** The flow's market uses a 0.01 tick: 100 price units. */
export const TICK_UNITS = 100;
const MID_MIN = 1000;
const MID_MAX = 9000;

export class Flow {
  readonly kind: FlowKind;
  readonly length: number;
  /** Rows [0, prefill) build the starting book and are not timed. */
  prefill = 0;
  readonly rowKind: Uint8Array;
  readonly account: Int32Array;
  /** Index into `ids`. */
  readonly id: Int32Array;
  readonly outcome: Uint8Array;
  readonly side: Uint8Array;
  readonly orderType: Uint8Array;
  /** Price in the order's own token units. */
  readonly priceUnits: Int32Array;
  readonly sizeMicros: Float64Array;
  /**
   * The row's order id's key (`idKey`), which the front end computes into a command's frame
   * (engine/shard/frame.ts): a ring consumer reads it with the rest of the row. The generator keys
   * each row as it writes it (`keyRow`); rows loaded without keys are keyed by `keyRows`.
   */
  readonly idKey: Int32Array;
  /**
   * The row's order id's words (ID_WORDS a row, see engine/orders/id_words.ts), which the front end
   * parses into a command's frame as it does the key; set by `keyRow` with the key.
   */
  readonly idWords: Float64Array;
  /** Where the row's words are in `idWords` (the row times ID_WORDS), or -1 when its id has none. */
  readonly idWordsAt: Int32Array;
  readonly ids: string[];
  /**
   * The row's order id itself (`ids[id[row]]`, set by `keyRow`; a decoding view's, by
   * `decodeRows`), so a replay reads it in row order, as a ring consumer reads a frame, and not
   * at a random index of the pool (32 MB of pointers for 2^22 ids), which a cancel of an order
   * placed long before missed in the cache.
   */
  readonly rowIds: string[];
  /** The key and words of each id in `ids` (shared by the flows over one pool). */
  private readonly pool: PoolTables;
  readonly accounts: string[];
  /** For a decoding view (`decodingView`): the flow whose rows it decodes; null otherwise. */
  private readonly source: Flow | null;

  /**
   * A flow of `length` rows over the pools `ids` and `accounts`, or, with `source`, a decoding
   * view of it (see `decodingView`; built there, with the same fields in the same order, so the
   * adapters' code sees one shape).
   */
  constructor(kind: FlowKind, length: number, ids: string[], accounts: string[], source: Flow | null = null) {
    this.kind = kind;
    this.length = length;
    this.rowKind = source?.rowKind ?? new Uint8Array(length);
    this.account = new Int32Array(length);
    this.id = source?.id ?? new Int32Array(length);
    this.outcome = source?.outcome ?? new Uint8Array(length);
    this.side = source?.side ?? new Uint8Array(length);
    this.orderType = source?.orderType ?? new Uint8Array(length);
    this.priceUnits = source?.priceUnits ?? new Int32Array(length);
    this.sizeMicros = source?.sizeMicros ?? new Float64Array(length);
    this.idKey = source?.idKey ?? new Int32Array(length);
    this.idWords = source?.idWords ?? new Float64Array(length * ID_WORDS);
    this.idWordsAt = source?.idWordsAt ?? new Int32Array(length);
    this.ids = ids;
    this.rowIds = holey(length);
    this.pool = source?.pool ?? poolTablesOf(ids);
    this.accounts = accounts;
    this.source = source;
  }

  /**
   * This flow's rows with their order ids and accounts as the server's decoder gives them to the
   * engine: a fresh flat string per command (`decodeFrame`), young, with no hash cached, where
   * the flow itself hands out its pools' long-lived strings. Row r reads its id from `rowIds[r]`
   * and its account from slot r % `window` of the view's own `accounts`, which `decodeRows` fills
   * (and a window later lets go of); the other columns are this flow's.
   */
  decodingView(window: number): Flow {
    const view = new Flow(this.kind, this.length, this.ids, holey(window), this);
    view.prefill = this.prefill;
    for (let row = 0; row < this.length; row += 1) view.account[row] = row % window;
    return view;
  }

  /** The accounts the rows trade for (a decoding view's are its source's), to fund them. */
  accountPool(): string[] {
    return this.source?.accounts ?? this.accounts;
  }

  /** Whether this is a decoding view, whose rows must be decoded (`decodeRows`) before they run. */
  decodes(): boolean {
    return this.source !== null;
  }

  /** Decodes rows [from, to) of a decoding view: at most its window's worth, before they run. */
  decodeRows(from: number, to: number): void {
    const source = this.source;
    const window = this.accounts.length;
    assert(source !== null && to - from <= window, 'decodeRows: a view, a window at a time');
    // The window before's ids have run: let them go, as a decoder's are once the engine is done.
    for (let row = Math.max(0, from - window); row < from; row += 1) this.rowIds[row] = '';
    for (let row = from; row < to; row += 1) {
      this.rowIds[row] = flat(source.rowIds[row]!);
      this.accounts[this.account[row]!] = flat(source.accounts[source.account[row]!]!);
    }
  }

  /** Fills `rowIds`, `idKey` and the words from the rows' pool ids (for rows written without them). */
  keyRows(): void {
    for (let row = 0; row < this.length; row += 1) this.keyRow(row);
  }

  /**
   * Sets a row's id, its key and its words from its pool id (a flow's own: a decoding view shares
   * its source's keys and words, and decodes its ids).
   */
  keyRow(row: number): void {
    assert(this.source === null, 'keyRow: not on a decoding view');
    const id = this.id[row]!;
    const { keys, words } = this.pool;
    this.idKey[row] = keys[id]!;
    this.rowIds[row] = this.ids[id]!;
    const first = words[id * ID_WORDS]!;
    this.idWordsAt[row] = first === first ? row * ID_WORDS : -1;
    this.idWords.set(words.subarray(id * ID_WORDS, (id + 1) * ID_WORDS), row * ID_WORDS);
  }

  /** The YES-orientation (bid?, price) a place row trades at. */
  isBid(row: number): boolean {
    return (this.outcome[row]! ^ this.side[row]!) === 0;
  }

  bookPrice(row: number): number {
    return this.outcome[row] === 0 ? this.priceUnits[row]! : 10_000 - this.priceUnits[row]!;
  }
}

/** Each id's key (`idKey`) and words (ID_WORDS each, NaN in all four for an id without). */
interface PoolTables {
  readonly keys: Int32Array;
  readonly words: Float64Array;
}

const tablesByPool = new WeakMap<string[], PoolTables>();

/** The key and words of every id in a pool, computed once per pool. */
function poolTablesOf(ids: string[]): PoolTables {
  let tables = tablesByPool.get(ids);
  if (tables === undefined) {
    const words = new Float64Array(ids.length * ID_WORDS);
    for (let index = 0; index < ids.length; index += 1) {
      if (!parseIdWords(ids[index]!, words, index * ID_WORDS)) words.fill(NaN, index * ID_WORDS, (index + 1) * ID_WORDS);
    }
    tables = { keys: Int32Array.from(ids, idKey), words };
    tablesByPool.set(ids, tables);
  }
  return tables;
}

/**
 * Distinct addresses (0x + 40 hex) that look like real ones: an address is the tail of a keccak
 * hash, so two of them differ within their first few characters. Counted addresses (0x000…01f3)
 * would share 38 characters, and every string comparison a `Map` lookup makes between two of
 * them would read them almost whole, a cost no real account pays.
 */
export function makeAccounts(count: number): string[] {
  return randomHex(count, 40, 0xacc0);
}

/**
 * Distinct EIP-712-shaped order ids (0x + 64 hex), reused cyclically by long flows.
 */
export function makeIds(count: number, seed: number): string[] {
  return randomHex(count, 64, seed);
}

/**
 * `count` strings of `0x` and `digits` seeded random hex digits (distinct but for odds of 2^-100
 * or less in every use here), built as flat strings, as a request decoder produces them: a string
 * assembled by `+` is a rope whose characters are slow to read, which would charge the engine for
 * the generator.
 */
function randomHex(count: number, digits: number, seed: number): string[] {
  const prng = new Prng(seed);
  const texts = new Array<string>(count);
  const bytes = Buffer.alloc(2 + digits);
  bytes.write('0x', 0, 'latin1');
  for (let index = 0; index < count; index += 1) {
    for (let word = 0; 8 * word < digits; word += 1) {
      bytes.write(prng.nextUint32().toString(16).padStart(8, '0'), 2 + 8 * word, 8, 'latin1');
    }
    texts[index] = bytes.toString('latin1');
  }
  return texts;
}

/** One flat id (see randomHex) from a counter. */
export function counterId(counter: number): string {
  return flat(`0x${counter.toString(16).padStart(64, '0')}`);
}

/** The same text as a new flat string, as a decoder reads it from a frame's bytes. */
function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

/**
 * An array of `length` empty strings with the pools' elements kind (they are filled from
 * `new Array(count)` too), so a view's arrays and a flow's give the adapters one kind to read.
 */
function holey(length: number): string[] {
  const strings = new Array<string>(length);
  for (let index = 0; index < length; index += 1) strings[index] = '';
  return strings;
}

interface Shape {
  readonly prefill: number;
  /**
   * Shares of timed rows: resting placements, crossing placements; cancels take the rest. A
   * resting placement turns into a cancel while the book is 5 % deeper than its prefill, and a
   * cancel into a placement while it is 5 % shallower, so it keeps its depth whatever fills take.
   */
  readonly placePassive: number;
  readonly placeCrossing: number;
  /** The share of crossing placements that are FOK or FAK. */
  readonly fokFakShare: number;
  readonly depthTicks: number;
}

const SHAPES: Record<FlowKind, Shape> = {
  deep: { prefill: 20_000, placePassive: 0.5, placeCrossing: 0.025, fokFakShare: 0.5, depthTicks: 20 },
  normal: { prefill: 5_000, placePassive: 0.5, placeCrossing: 0.1, fokFakShare: 0.2, depthTicks: 10 },
  fast: { prefill: 2_000, placePassive: 0.35, placeCrossing: 0.35, fokFakShare: 0.15 / 0.35, depthTicks: 20 },
};

/** Answers, while a flow is generated, whether an order placed by an earlier row still rests. */
export interface FlowOracle {
  execute(flow: Flow, row: number): void;
  rests(orderId: string): boolean;
}

/** Generates `timed` commands after the flow's prefill, replaying each row on the oracle. */
export function generateFlow(
  kind: FlowKind, timed: number, seed: number, ids: string[], accounts: string[], oracle: (flow: Flow) => FlowOracle,
): Flow {
  const shape = SHAPES[kind];
  const flow = new Flow(kind, shape.prefill + timed, ids, accounts);
  flow.prefill = shape.prefill;
  const generator = new Generator(flow, shape, new Prng(seed), oracle(flow));
  for (let row = 0; row < flow.length; row += 1) generator.row(row, row < shape.prefill);
  return flow;
}

class Generator {
  private readonly flow: Flow;
  private readonly shape: Shape;
  private readonly prng: Prng;
  private mid = 5000;
  private nextId = 0;
  /** Ids of GTC orders that may still rest, for O(1) random cancels (swap-remove). */
  private readonly live: Int32Array;
  private liveCount = 0;
  private readonly liveSet: Uint8Array;
  /** The account that placed each id last. */
  private readonly owner: Int32Array;

  private readonly oracle: FlowOracle;

  constructor(flow: Flow, shape: Shape, prng: Prng, oracle: FlowOracle) {
    this.flow = flow;
    this.shape = shape;
    this.prng = prng;
    this.oracle = oracle;
    this.live = new Int32Array(flow.ids.length);
    this.liveSet = new Uint8Array(flow.ids.length);
    this.owner = new Int32Array(flow.ids.length);
  }

  row(row: number, prefill: boolean): void {
    this.moveMid(row);
    const roll = this.prng.nextUint32() / 2 ** 32;
    const shallow = this.liveCount < 0.95 * this.shape.prefill;
    const deep = this.liveCount > 1.05 * this.shape.prefill;
    if (prefill) this.place(row, false);
    else if (roll < this.shape.placePassive) {
      if (!deep || !this.cancel(row)) this.place(row, false);
    } else if (roll < this.shape.placePassive + this.shape.placeCrossing) {
      this.place(row, true);
    } else if (shallow || !this.cancel(row)) {
      this.place(row, false);
    }
    this.flow.keyRow(row);
    this.oracle.execute(this.flow, row);
  }

  private moveMid(row: number): void {
    if (this.flow.kind === 'normal' && this.prng.chance(0.05)) this.mid += this.prng.chance(0.5) ? TICK_UNITS : -TICK_UNITS;
    if (this.flow.kind === 'fast' && row % 50 === 0) this.mid += this.prng.between(-30, 30) * TICK_UNITS;
    this.mid = Math.min(MID_MAX, Math.max(MID_MIN, this.mid));
  }

  private place(row: number, crossing: boolean): void {
    const flow = this.flow;
    const bid = this.prng.chance(0.5);
    const ticks = crossing ? -this.prng.between(0, this.shape.depthTicks / 2) : this.prng.between(1, this.shape.depthTicks);
    const bookPrice = this.mid + (bid ? -ticks : ticks) * TICK_UNITS;
    const outcome = this.prng.below(2);
    // Bids are BUY YES or SELL NO; asks are SELL YES or BUY NO.
    const side = (bid ? 0 : 1) ^ outcome;
    const type = crossing && this.prng.chance(this.shape.fokFakShare) ? (this.prng.chance(0.5) ? OrderType.FOK : OrderType.FAK) : OrderType.GTC;
    const id = this.takeId();
    flow.rowKind[row] = ROW_PLACE;
    const account = this.prng.below(flow.accounts.length);
    this.owner[id] = account;
    flow.account[row] = account;
    flow.id[row] = id;
    flow.outcome[row] = outcome;
    flow.side[row] = side === 0 ? Side.Buy : Side.Sell;
    flow.orderType[row] = type;
    flow.priceUnits[row] = Math.min(9900, Math.max(100, outcome === 0 ? bookPrice : 10_000 - bookPrice));
    flow.sizeMicros[row] = this.prng.between(1, 100) * 1_000_000;
    if (type === OrderType.GTC) this.addLive(id);
  }

  /** Writes a cancel of a random resting order; false when none rests. */
  private cancel(row: number): boolean {
    while (this.liveCount > 0) {
      const index = this.prng.below(this.liveCount);
      const id = this.live[index]!;
      this.live[index] = this.live[this.liveCount - 1]!;
      this.liveCount -= 1;
      this.liveSet[id] = 0;
      if (!this.oracle.rests(this.flow.ids[id]!)) continue;
      this.flow.rowKind[row] = ROW_CANCEL;
      this.flow.id[row] = id;
      this.flow.account[row] = this.owner[id]!;
      return true;
    }
    return false;
  }

  /** The next pool id that is not expected to be resting. */
  private takeId(): number {
    if (this.liveCount >= this.flow.ids.length) throw new RangeError('flow: the id pool is smaller than the resting orders');
    for (;;) {
      const id = this.nextId;
      this.nextId = (this.nextId + 1) % this.flow.ids.length;
      if (this.liveSet[id] === 0) return id;
    }
  }

  private addLive(id: number): void {
    this.live[this.liveCount] = id;
    this.liveCount += 1;
    this.liveSet[id] = 1;
  }
}
