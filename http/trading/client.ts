// The internal trading client: everything the order routes (and, until they exist, the tests
// and benchmarks) do to the exchange goes through here. It knows which shard holds each market,
// funds BUY orders from the treasury, finds the shard of an order id for cancels, and runs the
// periodic expiry tick. Money is integers throughout (price units, micros).
import { CommandKind, OUTCOME_ANY, OrderType, Side } from '../../engine/command.js';
import { PRICE_UNITS_PER_ONE, SIZE_MICROS_MAX } from '../../engine/constants.js';
import type { EngineEvent } from '../../engine/events/event_objects.js';
import { takerFeeMicros } from '../../engine/ledger/fee.js';
import { notionalCeilMicros } from '../../engine/ledger/notional.js';
import type { FrameResult } from '../../engine/shard/core.js';
import type { ShardStatus } from '../../engine/shard/protocol.js';
import type { BalanceView, BookView, MarketView, OrderView } from '../../engine/state/reads.js';
import { Reject } from '../../engine/events/reject.js';
import { ShardHints, type OrderHints } from './shard_hints.js';
import type { ShardPool } from './shards.js';
import type { Treasury } from './treasury.js';

export interface MarketSpec {
  /** The condition id. */
  readonly key: string;
  readonly tickUnits: number;
  readonly minSizeMicros: number;
  readonly feeBps: number;
}

interface MarketPlace {
  readonly shard: number;
  readonly market: number;
  readonly feeBps: number;
}

export interface PlaceOrder {
  readonly account: string;
  readonly orderId: string;
  readonly marketKey: string;
  readonly outcome: number;
  readonly side: Side;
  readonly orderType: OrderType;
  readonly priceUnits: number;
  readonly sizeMicros: number;
  readonly expirationMs?: number;
  readonly postOnly?: boolean;
}

/** An answer: the engine's events for the command (fund and sweep movements included). */
export interface TradeResult {
  readonly events: readonly EngineEvent[];
}

export class TradingClient {
  private readonly markets = new Map<string, MarketPlace>();

  private readonly feeReads = new Map<string, Promise<number>>();

  /** `hints`: which shard took each accepted order (unused with one shard: always shard 0). */
  constructor(
    private readonly pool: ShardPool, private readonly treasury: Treasury, private readonly now: () => number,
    private readonly hints: OrderHints = new ShardHints(),
  ) {
    for (let shard = 0; shard < pool.count; shard++) {
      pool.marketKeys(shard).forEach((key, market) => this.markets.set(key, { shard, market, feeBps: -1 }));
    }
    // A market a shard adds that this client did not send (a replica replays the primary's) is
    // learnt from its answer.
    pool.observe({
      answered: (shard, result) => {
        if (result.marketKey !== '' && result.market >= 0 && !this.markets.has(result.marketKey)) {
          this.markets.set(result.marketKey, { shard, market: result.market, feeBps: -1 });
        }
      },
      started: () => undefined,
    });
  }

  /** Keys of every registered market. */
  marketKeys(): string[] {
    return [...this.markets.keys()];
  }

  hasMarket(key: string): boolean {
    return this.markets.has(key);
  }

  /** The shard and engine market of a market key (condition id). */
  placeOf(key: string): { readonly shard: number; readonly market: number } | undefined {
    return this.markets.get(key);
  }

  /** Registers a market with its shard (idempotent: a known key keeps its index). */
  async addMarket(spec: MarketSpec): Promise<void> {
    const shard = this.pool.shardOf(spec.key);
    const result = await this.pool.send(shard, (frame) => {
      const c = frame.command;
      c.kind = CommandKind.AddMarket;
      c.timeMs = this.now();
      c.tickUnits = spec.tickUnits;
      c.minSizeMicros = spec.minSizeMicros;
      c.feeBps = spec.feeBps;
      c.accepting = true;
      c.account = '';
      c.orderId = '';
      frame.marketKey = spec.key;
    });
    const rejected = result.events.find((event) => event.kind === 'COMMAND_REJECTED');
    if (result.error !== '' || rejected !== undefined || result.market < 0) {
      throw new Error(`market ${spec.key} was refused: ${result.error || JSON.stringify(rejected)}`);
    }
    this.markets.set(spec.key, { shard, market: result.market, feeBps: spec.feeBps });
  }

  /**
   * Places an order; unknown markets are refused by the engine as UNKNOWN_MARKET. Not an async
   * function: once the market's fee is known the frame is written at once and the pool's own
   * promise is returned (with one shard, nothing else waits on it), so an order in flight holds
   * no suspended frame and no promise of its own on the front end's thread.
   */
  placeOrder(order: PlaceOrder): Promise<TradeResult> {
    try {
      const place = this.markets.get(order.marketKey);
      const fee = place === undefined ? 0 : this.feeOf(order.marketKey, place);
      if (typeof fee !== 'number') return fee.then((feeBps) => this.sendPlace(order, place, feeBps));
      return this.sendPlace(order, place, fee);
    } catch (error) {
      // As from an async function: every failure is the returned promise's.
      return Promise.reject(error);
    }
  }

  private sendPlace(order: PlaceOrder, place: MarketPlace | undefined, feeBps: number): Promise<TradeResult> {
    const shard = place?.shard ?? this.pool.shardOf(order.marketKey);
    const fund = order.side === Side.Buy ? this.treasury.take(order.account, buyReserveMicros(order, feeBps)) : 0;
    // Refund here only when send throws: once it returned a promise, the pool settles the funding
    // with the answer or refunds it itself when the shard dies first, and refunding again here
    // would credit the address twice.
    let answer: Promise<FrameResult>;
    try {
      answer = this.pool.send(shard, (frame) => {
        const c = frame.command;
        c.kind = CommandKind.PlaceOrder;
        c.timeMs = this.now();
        c.account = order.account;
        c.orderId = order.orderId;
        c.market = place?.market ?? -1;
        c.outcome = order.outcome;
        c.side = order.side;
        c.orderType = order.orderType;
        c.priceUnits = order.priceUnits;
        c.sizeMicros = order.sizeMicros;
        c.expirationMs = order.expirationMs ?? 0;
        c.postOnly = order.postOnly ?? false;
        frame.marketKey = '';
      }, fund);
    } catch (error) {
      this.treasury.refund(order.account, fund);
      throw error;
    }
    if (this.pool.count === 1) return answer;
    return answer.then((result) => {
      if (result.events.some((event) => event.kind === 'ORDER_ACCEPTED')) this.hints.remember(order.orderId, shard);
      return result;
    });
  }

  /**
   * Cancels one order: on the shard its hint names, and on every other shard when that one does
   * not know it. With one shard, the pool's own promise (as placeOrder).
   */
  cancelOrder(account: string, orderId: string): Promise<TradeResult> {
    try {
      const cancel = (shard: number): Promise<FrameResult> => this.pool.send(shard, (frame) => {
        const c = frame.command;
        c.kind = CommandKind.CancelOrder;
        c.timeMs = this.now();
        c.account = account;
        c.orderId = orderId;
        frame.marketKey = '';
      });
      return this.pool.count === 1 ? cancel(0) : this.cancelOnShards(orderId, cancel);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async cancelOnShards(orderId: string, cancel: (shard: number) => Promise<FrameResult>): Promise<TradeResult> {
    const unknown = (result: FrameResult): boolean => result.events.some((event) => event.kind === 'CANCEL_REJECTED' && event.reason === Reject.ORDER_NOT_FOUND);
    const hinted = this.shardHint(orderId);
    let first: FrameResult | undefined;
    if (hinted !== undefined) {
      first = await cancel(hinted);
      if (!unknown(first)) return first;
    }
    // Every other shard at once (a send that throws at once, a shard that is down, is a rejected promise too).
    const settled = await Promise.allSettled(this.allShards().filter((shard) => shard !== hinted).map((shard) => {
      try {
        return cancel(shard);
      } catch (error) {
        return Promise.reject(error);
      }
    }));
    const results = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    // The shard that knew the order answers for it, whatever the others did: its cancel is committed.
    const known = results.find((result) => !unknown(result));
    if (known !== undefined) return known;
    // No shard that answered knows it; one that did not answer may: that is a failure to retry.
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return first ?? results[0]!;
  }

  /** Cancels every open order of `account` on every shard. */
  async cancelAll(account: string): Promise<TradeResult> {
    return this.broadcast(CommandKind.CancelAccount, account, -1, OUTCOME_ANY);
  }

  /** Cancels `account`'s orders in one market (one token, or both with OUTCOME_ANY). */
  async cancelMarket(account: string, marketKey: string, outcome: number = OUTCOME_ANY): Promise<TradeResult> {
    const place = this.markets.get(marketKey);
    if (place === undefined) return { events: [] };
    return this.one(place.shard, CommandKind.CancelAccountMarket, account, place.market, outcome);
  }

  async resolveMarket(marketKey: string, winner: number): Promise<TradeResult> {
    const place = this.requireMarket(marketKey);
    return this.one(place.shard, CommandKind.ResolveMarket, '', place.market, winner);
  }

  async setAccepting(marketKey: string, accepting: boolean): Promise<TradeResult> {
    const place = this.requireMarket(marketKey);
    const result = await this.pool.send(place.shard, (frame) => {
      const c = frame.command;
      c.kind = CommandKind.SetMarketAccepting;
      c.timeMs = this.now();
      c.market = place.market;
      c.accepting = accepting;
      c.account = '';
      c.orderId = '';
      frame.marketKey = '';
    });
    return result;
  }

  /**
   * Expires due GTD orders on every shard that serves (the runtime calls it every second); a
   * shard that is down expires its due orders at its first tick once it is back.
   */
  async expire(): Promise<void> {
    const serving = this.allShards().filter((shard) => this.pool.isReady(shard));
    await Promise.all(serving.map((shard) => this.one(shard, CommandKind.ExpireOrders, '', -1, 0)));
  }

  /** Credits external collateral (durable before it returns); false past the supply cap. */
  deposit(account: string, micros: number): boolean {
    return this.depositMany([[account, micros]]);
  }

  /** Credits several deposits in one durable transaction; all or none, false past the supply cap. */
  depositMany(entries: readonly (readonly [account: string, micros: number])[]): boolean {
    for (const [, micros] of entries) {
      if (!Number.isSafeInteger(micros) || micros <= 0) throw new RangeError('deposit must be a positive integer of micros');
    }
    return this.treasury.depositMany(entries, this.now());
  }

  /** Pays out free collateral; false when the free balance is short. */
  withdraw(account: string, micros: number): boolean {
    if (!Number.isSafeInteger(micros) || micros <= 0) throw new RangeError('withdrawal must be a positive integer of micros');
    return this.treasury.withdraw(account, micros);
  }

  /** Free collateral in the treasury plus each shard's view of the account. */
  async balance(account: string): Promise<{ freeMicros: number; shards: (BalanceView | null)[] }> {
    const shards = await Promise.all(this.allShards().map((shard) => this.pool.read<BalanceView | null>(shard, { kind: 'balance', account })));
    return { freeMicros: this.treasury.freeOf(account), shards };
  }

  /** An order by id: from the shard its hint names first. */
  async order(orderId: string): Promise<OrderView | null> {
    const hinted = this.shardHint(orderId);
    const shards = hinted === undefined ? this.allShards() : [hinted, ...this.allShards().filter((shard) => shard !== hinted)];
    for (const shard of shards) {
      const view = await this.pool.read<OrderView | null>(shard, { kind: 'order', orderId });
      if (view !== null) return view;
    }
    return null;
  }

  async book(marketKey: string): Promise<BookView | null> {
    const place = this.requireMarket(marketKey);
    return this.pool.read<BookView | null>(place.shard, { kind: 'book', market: place.market });
  }

  statuses(): Promise<ShardStatus[]> {
    return Promise.all(this.allShards().map((shard) => this.pool.status(shard)));
  }

  private requireMarket(marketKey: string): MarketPlace {
    const place = this.markets.get(marketKey);
    if (place === undefined) throw new RangeError(`unknown market ${marketKey}`);
    return place;
  }

  /**
   * Markets known from a shard's registry learn their fee from the engine once: every order that
   * arrives meanwhile waits on the same read (a burst of first orders must not flood the worker).
   */
  private feeOf(key: string, place: MarketPlace): number | Promise<number> {
    if (place.feeBps >= 0) return place.feeBps;
    let reading = this.feeReads.get(key);
    if (reading === undefined) {
      reading = this.pool.read<MarketView | null>(place.shard, { kind: 'market', market: place.market }).then((view) => {
        const feeBps = view?.feeBps ?? 0;
        this.markets.set(key, { ...place, feeBps });
        return feeBps;
      }).finally(() => this.feeReads.delete(key));
      this.feeReads.set(key, reading);
    }
    return reading;
  }

  /** The shard that took `orderId`, as far as the hints know (with one shard, always 0). */
  private shardHint(orderId: string): number | undefined {
    return this.pool.count === 1 ? 0 : this.hints.guess(orderId);
  }

  private allShards(): number[] {
    return Array.from({ length: this.pool.count }, (_, shard) => shard);
  }

  private one(shard: number, kind: CommandKind, account: string, market: number, outcome: number): Promise<FrameResult> {
    return this.pool.send(shard, (frame) => {
      const c = frame.command;
      c.kind = kind;
      c.timeMs = this.now();
      c.account = account;
      c.orderId = '';
      c.market = market;
      c.outcome = outcome;
      frame.marketKey = '';
    });
  }

  private async broadcast(kind: CommandKind, account: string, market: number, outcome: number): Promise<TradeResult> {
    const results = await Promise.all(this.allShards().map((shard) => this.one(shard, kind, account, market, outcome)));
    return { events: results.flatMap((result) => result.events) };
  }
}

/**
 * What a BUY may reserve: its notional at the limit price, rounded up to the micro as the engine
 * reserves it, plus the most taker fee it can owe. A size off its market's step is the engine's
 * to refuse; the funding then comes back with the answer.
 */
function buyReserveMicros(order: PlaceOrder, feeBps: number): number {
  const { priceUnits, sizeMicros } = order;
  if (!Number.isInteger(priceUnits) || priceUnits <= 0 || priceUnits >= PRICE_UNITS_PER_ONE) return 0;
  if (!Number.isSafeInteger(sizeMicros) || sizeMicros <= 0 || sizeMicros > SIZE_MICROS_MAX) return 0;
  const notional = notionalCeilMicros(priceUnits, sizeMicros);
  return notional + takerFeeMicros(notional, feeBps);
}

