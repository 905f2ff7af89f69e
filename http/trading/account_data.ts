// The front end's read model of the accounts: every live order (by id, and per account in the
// order GET /data/orders pages them), every account's collateral and shares on each shard, and
// the newest finished orders by id, kept from the answers the shards commit (ShardObserver), as
// MarketData keeps the books. The account routes read it and never wait on a matching worker,
// but for one read: an order id the model does not hold (finished before the newest
// ACCOUNT_ORDER_HISTORY, or never placed) is looked up in the worker's finished-order index, a
// hash probe (account_routes.ts).
//
// Start and restart of a shard, as MarketData (shard_model.ts): its answers are held back while the model loads
// the shard's accounts as of an engine sequence number S (the 'accountData' read); then the held
// answers are applied, their events only after S. An order event carries the order's progress and
// a BALANCE event a balance's new value, so applying them in order after the load is exact. The
// pool tells observers of every answer before its requester hears, so a client that reads after
// an answer reads what the answer did.
//
// Memory is bounded by the engines' own bounds: a live order (~310 bytes) per order resting in
// an engine (its order slots; 10 000 per account and shard), a balance (~100 bytes) per non-zero
// engine balance (its accounts and positions), and `finishedMax` finished orders (~360 bytes each).
import { MARKETS_MAX } from '../../engine/constants.js';
import type { BalanceEvent, EngineEvent, OrderCancelledEvent, OrderUpdatedEvent } from '../../engine/events/event_objects.js';
import { CancelReason, finishedStatus, OrderStatus } from '../../engine/orders/order_status.js';
import { OrderNumber, ORDER_NUMBERS, type BalanceView, type OrderView, type PositionView } from '../../engine/state/reads.js';
import type { FrameResult } from '../../engine/shard/core.js';
import type { AccountData as ShardAccountData } from '../../engine/shard/protocol.js';
import type { Logger } from '../log.js';
import { OrderList } from './order_list.js';
import { ShardModel, type LoadedShard } from './shard_model.js';
import type { ShardPool } from './shards.js';

/** A live order: its view's fields, the matched part moving as it fills. */
export class LiveOrder {
  constructor(
    readonly shard: number, readonly orderId: string, readonly owner: string, readonly market: number, readonly outcome: number,
    readonly side: number, readonly orderType: number, readonly priceUnits: number, readonly originalMicros: number,
    public matchedMicros: number, public remainingMicros: number, readonly createdAtMs: number, readonly expirationMs: number,
  ) {}

  /** As the engine shows a live order (engine/state/reads.ts liveOrderView). */
  view(): OrderView {
    return {
      orderId: this.orderId, owner: this.owner, market: this.market, outcome: this.outcome, side: this.side, orderType: this.orderType,
      priceUnits: this.priceUnits, originalMicros: this.originalMicros, matchedMicros: this.matchedMicros,
      remainingMicros: this.remainingMicros, status: OrderStatus.LIVE, cancelReason: CancelReason.NONE, createdAtMs: this.createdAtMs,
      expirationMs: this.expirationMs, updatedAtMs: this.createdAtMs,
    };
  }
}

/** An order as an account read answers it, with the shard that holds it. */
export interface FoundOrder {
  readonly shard: number;
  readonly view: OrderView;
}

/** A finished order: what its view needs, in one object (its view is made when it is read). */
class FinishedOrder {
  constructor(
    readonly shard: number, readonly orderId: string, readonly owner: string, readonly market: number, readonly outcome: number,
    readonly side: number, readonly orderType: number, readonly priceUnits: number, readonly originalMicros: number,
    readonly matchedMicros: number, readonly cancelReason: CancelReason, readonly createdAtMs: number, readonly expirationMs: number,
    readonly updatedAtMs: number,
  ) {}

  /** As the engine and the stored orders show a finished order (engine/shard/finished_orders.ts). */
  found(): FoundOrder {
    return {
      shard: this.shard,
      view: {
        orderId: this.orderId, owner: this.owner, market: this.market, outcome: this.outcome, side: this.side, orderType: this.orderType,
        priceUnits: this.priceUnits, originalMicros: this.originalMicros, matchedMicros: this.matchedMicros, remainingMicros: 0,
        status: finishedStatus(this.cancelReason), cancelReason: this.cancelReason, createdAtMs: this.createdAtMs,
        expirationMs: this.expirationMs, updatedAtMs: this.updatedAtMs,
      },
    };
  }
}

/** An account's live orders on every shard: all of them, and those of each market. */
class AccountOrders {
  readonly all = new OrderList<LiveOrder>();
  /** By marketSlot(shard, market). */
  readonly byMarket = new Map<number, OrderList<LiveOrder>>();

  constructor(readonly address: string) {}

  add(order: LiveOrder): void {
    this.all.insert(order);
    const slot = marketSlot(order.shard, order.market);
    let list = this.byMarket.get(slot);
    if (list === undefined) this.byMarket.set(slot, list = new OrderList());
    list.insert(order);
  }

  remove(order: LiveOrder): void {
    this.all.remove(order);
    const slot = marketSlot(order.shard, order.market);
    const list = this.byMarket.get(slot);
    if (list === undefined) return;
    list.remove(order);
    if (list.size === 0) this.byMarket.delete(slot);
  }
}

/** One engine market of one shard, as one number. */
function marketSlot(shard: number, market: number): number {
  return shard * MARKETS_MAX + market;
}

/** What an account holds on one shard: its collateral, and its non-zero shares by market * 2 + outcome. */
interface ShardBalance {
  collateralFreeMicros: number;
  collateralReservedMicros: number;
  readonly positions: Map<number, [free: number, reserved: number]>;
}

interface ShardState extends LoadedShard {
  /** The shard's live orders by id. */
  live: Map<string, LiveOrder>;
  /** By address: accounts with collateral or shares on the shard. */
  balances: Map<string, ShardBalance>;
}

export class AccountData extends ShardModel<ShardState, ShardAccountData> {
  /** By address: accounts with a live order on some shard. */
  private readonly accounts = new Map<string, AccountOrders>();
  /** The newest finished orders by id, oldest first (a Map keeps its insertion order). */
  private readonly finished = new Map<string, FinishedOrder>();

  constructor(pool: ShardPool, log: Logger, private readonly finishedMax: number) {
    super(pool, log, 'account data', () => ({ held: [], baseSeq: 0, generation: 0, live: new Map(), balances: new Map() }));
  }

  // ---- Reads. ----

  /** The order with this id: live on a shard (the first, in shard order), or among the newest finished. */
  order(orderId: string): FoundOrder | undefined {
    for (const [shard, state] of this.shards.entries()) {
      const live = state.live.get(orderId);
      if (live !== undefined) return { shard, view: live.view() };
    }
    return this.finished.get(orderId)?.found();
  }

  /** The account's live orders in GET /data/orders' order: all of them, or those of one engine market. */
  liveOrders(address: string, market?: { readonly shard: number; readonly market: number }): OrderList<LiveOrder> | undefined {
    const orders = this.accounts.get(address);
    if (orders === undefined || market === undefined) return orders?.all;
    return orders.byMarket.get(marketSlot(market.shard, market.market));
  }

  /** The engine markets ([shard, market]) in which the account has live orders. */
  *liveMarkets(address: string): IterableIterator<[shard: number, market: number]> {
    const orders = this.accounts.get(address);
    if (orders === undefined) return;
    for (const slot of orders.byMarket.keys()) yield [Math.floor(slot / MARKETS_MAX), slot % MARKETS_MAX];
  }

  /** The account's collateral on the shard: free, reserved. */
  collateral(address: string, shard: number): [free: number, reserved: number] {
    const balance = this.shards[shard]!.balances.get(address);
    return balance === undefined ? [0, 0] : [balance.collateralFreeMicros, balance.collateralReservedMicros];
  }

  /** The account's shares of `outcome` of engine market `market` on the shard: free, reserved. */
  shares(address: string, shard: number, market: number, outcome: number): [free: number, reserved: number] {
    return this.shards[shard]!.balances.get(address)?.positions.get(2 * market + outcome) ?? [0, 0];
  }

  /** The account's live orders on the shard as the engine lists them (openOrdersOf), for checks. */
  openOrdersOn(address: string, shard: number): OrderView[] {
    const views: OrderView[] = [];
    for (const order of this.accounts.get(address)?.all.values() ?? []) if (order.shard === shard) views.push(order.view());
    return views;
  }

  /** The account's balances on the shard as the engine shows them (balanceOf), for checks; undefined when it holds nothing. */
  balanceOn(address: string, shard: number): BalanceView | undefined {
    const balance = this.shards[shard]!.balances.get(address);
    if (balance === undefined) return undefined;
    const positions: PositionView[] = [...balance.positions].map(([key, [freeMicros, reservedMicros]]) => ({
      market: Math.floor(key / 2), outcome: key % 2, freeMicros, reservedMicros,
    }));
    positions.sort((a, b) => a.market - b.market || a.outcome - b.outcome);
    return {
      account: address, collateralFreeMicros: balance.collateralFreeMicros, collateralReservedMicros: balance.collateralReservedMicros, positions,
    };
  }

  /** The finished orders the model holds, oldest first, for checks. */
  *finishedOrders(): IterableIterator<FoundOrder> {
    for (const order of this.finished.values()) yield order.found();
  }

  // ---- Loading and applying. ----

  protected read(shard: number): Promise<ShardAccountData> {
    return this.pool.read<ShardAccountData>(shard, { kind: 'accountData' });
  }

  protected restore(shard: number, state: ShardState, data: ShardAccountData): Record<string, number> {
    for (const order of state.live.values()) this.unlist(order);
    state.live = new Map();
    state.balances = new Map();
    this.restoreAccounts(shard, state, data);
    return { accounts: data.accounts.addresses.length, orders: state.live.size };
  }

  /** The shard's accounts as the load read them. */
  private restoreAccounts(shard: number, state: ShardState, { accounts }: ShardAccountData): void {
    const { addresses, collateralMicros, positionAccounts, positionMarkets, positionOutcomes, positionMicros } = accounts;
    const balances: (ShardBalance | undefined)[] = addresses.map((_, index) => {
      const free = collateralMicros[2 * index]!;
      const reserved = collateralMicros[2 * index + 1]!;
      return free === 0 && reserved === 0 ? undefined : { collateralFreeMicros: free, collateralReservedMicros: reserved, positions: new Map() };
    });
    for (let position = 0; position < positionAccounts.length; position++) {
      const index = positionAccounts[position]!;
      const balance = balances[index] ??= { collateralFreeMicros: 0, collateralReservedMicros: 0, positions: new Map() };
      balance.positions.set(2 * positionMarkets[position]! + positionOutcomes[position]!, [positionMicros[2 * position]!, positionMicros[2 * position + 1]!]);
    }
    balances.forEach((balance, index) => {
      if (balance !== undefined) state.balances.set(addresses[index]!, balance);
    });
    const { orderIdBytes, orderIdEnds, orderAccounts, orderNumbers } = accounts;
    const ids = Buffer.from(orderIdBytes.buffer, orderIdBytes.byteOffset, orderIdBytes.byteLength);
    for (let order = 0; order < orderIdEnds.length; order++) {
      const number = (field: number): number => orderNumbers[order * ORDER_NUMBERS + field]!;
      const orderId = ids.toString('latin1', order === 0 ? 0 : orderIdEnds[order - 1]!, orderIdEnds[order]!);
      const owner = this.ordersOf(addresses[orderAccounts[order]!]!).address;
      const original = number(OrderNumber.originalMicros);
      const remaining = number(OrderNumber.remainingMicros);
      this.addLive(state, new LiveOrder(
        shard, orderId, owner, number(OrderNumber.market), number(OrderNumber.outcome), number(OrderNumber.side), number(OrderNumber.orderType),
        number(OrderNumber.priceUnits), original, original - remaining, remaining, number(OrderNumber.createdAtMs), number(OrderNumber.expirationMs),
      ));
    }
  }

  protected apply(shard: number, state: ShardState, result: FrameResult): void {
    const base = state.baseSeq;
    // Sequence numbers rise through an answer, so what a load already holds is a prefix.
    for (const event of result.events) if (event.seq > base) this.applyOrderEvent(shard, state, event, result.timeMs);
    for (const balance of result.balances) if (balance.seq > base) this.applyBalance(state, balance);
  }

  /** What an order event changes, as engine/shard/finished_orders.ts records finished orders. */
  private applyOrderEvent(shard: number, state: ShardState, event: EngineEvent, timeMs: number): void {
    switch (event.kind) {
      case 'ORDER_ACCEPTED':
        if (event.rests) {
          this.addLive(state, new LiveOrder(
            shard, event.orderId, this.ordersOf(event.account).address, event.market, event.outcome, event.side, event.orderType,
            event.priceUnits, event.sizeMicros, event.matchedMicros, event.remainingMicros, timeMs, event.expirationMs,
          ));
        } else if (event.remainingMicros === 0) {
          // A taker filled whole; a remainder that does not rest is cancelled in an ORDER_CANCELLED of its own.
          this.finish(new FinishedOrder(
            shard, event.orderId, event.account, event.market, event.outcome, event.side, event.orderType, event.priceUnits,
            event.sizeMicros, event.matchedMicros, CancelReason.NONE, timeMs, event.expirationMs, timeMs,
          ));
        }
        return;
      case 'ORDER_UPDATED': {
        const live = state.live.get(event.orderId);
        if (live !== undefined) {
          live.matchedMicros = event.matchedMicros;
          live.remainingMicros = event.remainingMicros;
        }
        if (event.remainingMicros === 0) this.finishLive(shard, state, event, CancelReason.NONE, timeMs);
        return;
      }
      case 'ORDER_CANCELLED':
        this.finishLive(shard, state, event, event.reason, timeMs);
        return;
      default:
        return;
    }
  }

  /** An order that finished: no longer live, and among the newest finished. */
  private finishLive(shard: number, state: ShardState, event: OrderUpdatedEvent | OrderCancelledEvent, reason: CancelReason, timeMs: number): void {
    const live = state.live.get(event.orderId);
    if (live !== undefined) {
      state.live.delete(event.orderId);
      this.unlist(live);
    }
    this.finish(new FinishedOrder(
      shard, event.orderId, live?.owner ?? event.account, event.market, event.outcome, event.side, event.orderType, event.priceUnits,
      event.sizeMicros, event.matchedMicros, reason, event.createdAtMs, event.expirationMs, timeMs,
    ));
  }

  private finish(order: FinishedOrder): void {
    if (this.finishedMax === 0) return;
    const finished = this.finished;
    finished.delete(order.orderId);
    finished.set(order.orderId, order);
    if (finished.size > this.finishedMax) finished.delete(finished.keys().next().value!);
  }

  private applyBalance(state: ShardState, event: BalanceEvent): void {
    const { freeMicros, reservedMicros } = event;
    let balance = state.balances.get(event.account);
    if (balance === undefined) {
      if (freeMicros === 0 && reservedMicros === 0) return;
      state.balances.set(event.account, balance = { collateralFreeMicros: 0, collateralReservedMicros: 0, positions: new Map() });
    }
    if (event.market === -1) {
      balance.collateralFreeMicros = freeMicros;
      balance.collateralReservedMicros = reservedMicros;
    } else if (freeMicros === 0 && reservedMicros === 0) {
      balance.positions.delete(2 * event.market + event.outcome);
    } else {
      balance.positions.set(2 * event.market + event.outcome, [freeMicros, reservedMicros]);
    }
    if (balance.collateralFreeMicros === 0 && balance.collateralReservedMicros === 0 && balance.positions.size === 0) {
      state.balances.delete(event.account);
    }
  }

  private addLive(state: ShardState, order: LiveOrder): void {
    state.live.set(order.orderId, order);
    this.ordersOf(order.owner).add(order);
  }

  /** Takes a live order off its account's lists (and forgets an account left with none). */
  private unlist(order: LiveOrder): void {
    const orders = this.accounts.get(order.owner);
    if (orders === undefined) return;
    orders.remove(order);
    if (orders.all.size === 0) this.accounts.delete(order.owner);
  }

  /** The account's lists, made when it has none; its address string is shared by its orders. */
  private ordersOf(address: string): AccountOrders {
    let orders = this.accounts.get(address);
    if (orders === undefined) this.accounts.set(address, orders = new AccountOrders(address));
    return orders;
  }
}
