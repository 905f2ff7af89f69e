// Everything the engine holds, in one object the command handlers share: the order table and
// its id index, the bounded history of finished orders, the expiry heap, markets and books, the
// ledger, the per-command dirty lists and the event buffer. Options are validated here, once.
import { assert } from '../assert.js';
import {
  ACCOUNT_ORDERS_DEFAULT, ACCOUNTS_DEFAULT, ACCOUNTS_MAX, EVENTS_CAPACITY_INITIAL, MARKETS_DEFAULT,
  MARKETS_MAX, ORDER_HISTORY_DEFAULT, ORDER_HISTORY_LIMIT, ORDER_SLOTS_DEFAULT, ORDER_SLOTS_LIMIT,
  POSITIONS_DEFAULT, POSITIONS_LIMIT,
} from '../constants.js';
import { DirtyList } from '../events/dirty_list.js';
import { EventBuffer } from '../events/events.js';
import { ExpiryHeap } from '../orders/expiry_heap.js';
import { FinishedIndex } from '../orders/finished_index.js';
import type { Command } from '../command.js';
import { hashOrderId, idKey, seededHash } from '../orders/id_buckets.js';
import { ID_WORDS, parseIdWords } from '../orders/id_words.js';
import { LiveIndex } from '../orders/live_index.js';
import { Ledger } from '../ledger/ledger.js';
import { Markets } from '../market/markets.js';
import { OrderHistory } from '../orders/order_history.js';
import { OrderTable } from '../orders/orders.js';
import { Taker } from '../market/taker.js';

export interface EngineOptions {
  /** The account credited with taker fees; interned first, as account 0. */
  readonly operatorAddress: string;
  /** Check every invariant (O(state)) after each command; always on in tests. */
  readonly verify?: boolean;
  /** Resting orders at once (BOOK_FULL beyond). */
  readonly orderSlots?: number;
  /** Open orders per account (TOO_MANY_ORDERS beyond). */
  readonly accountOrdersMax?: number;
  /** Finished orders remembered for duplicate detection and reads. */
  readonly orderHistory?: number;
  /** Market indices are below this. */
  readonly marketsMax?: number;
  readonly accountsMax?: number;
  readonly positionsMax?: number;
  readonly eventsCapacity?: number;
  /**
   * Seeds the order-id hash. It changes only the id table's internal layout, never events or
   * state, so the runtime should pass a random value: then no one can precompute ids that
   * collide in the table.
   */
  readonly hashSeed?: number;
}

/** Options with every default filled in; snapshots carry them so a restore is identical. */
export interface EngineConfig {
  readonly operatorAddress: string;
  readonly verify: boolean;
  readonly orderSlots: number;
  readonly accountOrdersMax: number;
  readonly orderHistory: number;
  readonly marketsMax: number;
  readonly accountsMax: number;
  readonly positionsMax: number;
  readonly eventsCapacity: number;
  readonly hashSeed: number;
}

export function resolveOptions(options: EngineOptions): EngineConfig {
  const config: EngineConfig = {
    operatorAddress: options.operatorAddress,
    verify: options.verify ?? false,
    orderSlots: options.orderSlots ?? ORDER_SLOTS_DEFAULT,
    accountOrdersMax: options.accountOrdersMax ?? ACCOUNT_ORDERS_DEFAULT,
    orderHistory: options.orderHistory ?? ORDER_HISTORY_DEFAULT,
    marketsMax: options.marketsMax ?? MARKETS_DEFAULT,
    accountsMax: options.accountsMax ?? ACCOUNTS_DEFAULT,
    positionsMax: options.positionsMax ?? POSITIONS_DEFAULT,
    eventsCapacity: options.eventsCapacity ?? EVENTS_CAPACITY_INITIAL,
    hashSeed: options.hashSeed ?? 0,
  };
  checkRange('orderSlots', config.orderSlots, ORDER_SLOTS_LIMIT);
  checkRange('accountOrdersMax', config.accountOrdersMax, ORDER_SLOTS_LIMIT);
  checkRange('orderHistory', config.orderHistory, ORDER_HISTORY_LIMIT);
  checkRange('marketsMax', config.marketsMax, MARKETS_MAX);
  checkRange('accountsMax', config.accountsMax, ACCOUNTS_MAX);
  checkRange('positionsMax', config.positionsMax, POSITIONS_LIMIT);
  checkRange('eventsCapacity', config.eventsCapacity, 1 << 24);
  if (!Number.isInteger(config.hashSeed)) throw new RangeError('engine option hashSeed must be an integer');
  if (typeof config.operatorAddress !== 'string' || config.operatorAddress === '') {
    throw new RangeError('engine option operatorAddress must be a non-empty address');
  }
  return Object.freeze(config);
}

function checkRange(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`engine option ${name} must be an integer in [1, ${max}], got ${value}`);
  }
}

export class EngineState {
  readonly config: EngineConfig;
  readonly orders: OrderTable;
  /** Live order id → slot. */
  readonly live: LiveIndex;
  readonly history: OrderHistory;
  /** Finished order id → history entry. */
  readonly finished: FinishedIndex;
  readonly expiries: ExpiryHeap;
  readonly levels: DirtyList;
  readonly markets: Markets;
  readonly ledger: Ledger;
  readonly events: EventBuffer;
  /** The order being placed; one reused record. */
  readonly taker = new Taker();
  /** The next placement serial (time priority and expiry order). */
  serialNext = 1;
  /** Fills so far in the current command (the FILL event's index). */
  fillIndex = 0;
  /** The current command's time. */
  timeMs = 0;
  /** Where verify mode's rotating history check continues (see invariants.ts). */
  historyCheckCursor = 0;
  /** Bound once so the expiry heap's compaction allocates no closure per command. */
  readonly isLive: (slot: number, serial: number) => boolean;

  constructor(config: EngineConfig) {
    this.config = config;
    this.orders = new OrderTable(config.orderSlots);
    this.live = new LiveIndex(this.orders);
    this.history = new OrderHistory(config.orderHistory);
    this.finished = new FinishedIndex(this.history);
    this.expiries = new ExpiryHeap(2 * config.orderSlots);
    this.levels = new DirtyList(64);
    this.markets = new Markets(config.marketsMax, this.orders.links, this.levels);
    this.ledger = new Ledger(config.operatorAddress, config.accountsMax, config.positionsMax, config.marketsMax);
    this.events = new EventBuffer(config.eventsCapacity);
    this.isLive = (slot, serial) => this.orders.isLive(slot) && this.orders.serialOf(slot) === serial;
    assert(this.expiries.capacity > this.orders.capacity, 'expiry heap outgrows the live orders');
  }

  /** The hash both id indexes use for `orderId` (seeded, 30 bits). */
  hashId(orderId: string): number {
    return hashOrderId(orderId, this.config.hashSeed);
  }

  /** The hash of the command's order id, from the key it carries when it carries one. */
  commandIdHash(command: Command): number {
    // Object.is compares strings as `!==` does, but returns at once for the same string, before
    // reading it: the decoder sets both fields to one string, and a cancel's id is otherwise
    // read nowhere (see commandIdWordsAt).
    if (!Object.is(command.orderIdKeyed, command.orderId)) return this.hashId(command.orderId);
    if (this.config.verify) assert(command.orderIdKey === idKey(command.orderId), 'a command carries its id\'s key');
    return seededHash(command.orderIdKey, this.config.hashSeed);
  }

  /**
   * Where the command's order id's words are in `command.orderIdWords`, or -1 when it carries
   * none for this id (see Command.orderIdWords). In verify mode the engine checks them.
   */
  commandIdWordsAt(command: Command): number {
    const at = command.orderIdWordsAt;
    if (at < 0 || !Object.is(command.orderIdKeyed, command.orderId)) return -1;
    if (this.config.verify) {
      const words = new Float64Array(ID_WORDS);
      assert(parseIdWords(command.orderId, words, 0), 'a command carries words of a canonical id');
      for (let word = 0; word < ID_WORDS; word += 1) assert(words[word] === command.orderIdWords[at + word], 'a command carries its id\'s words');
    }
    return at;
  }

  /** Whether `orderId` is live or a remembered finished order. */
  knowsOrder(orderId: string, hash: number): boolean {
    return this.live.find(orderId, hash) !== -1 || this.finished.find(orderId, hash) !== -1;
  }
}
