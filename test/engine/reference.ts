// The reference engine: the same contract as engine/, written the slow, obvious way so the two
// can be compared event for event. Plain objects and arrays, a sort whenever order matters,
// BigInt for every money product, and the level and balance events found by diffing the whole
// state before and after each command. It shares nothing with the fast engine but the command,
// event and rejection definitions.
import { createHash } from 'node:crypto';
import { CommandKind, OrderType, Side, OUTCOME_ANY, type Command } from '../../engine/command.js';
import type { EngineEvent } from '../../engine/events/event_objects.js';
import { Reject } from '../../engine/events/reject.js';

const ONE = 10_000;
const LOT = 10_000;
const SIZE_MAX = 10_000_000 * 1_000_000;
const LEVEL_MAX = 2 ** 52;
const SUPPLY_MAX = 2 ** 51;
const FEE_MAX = 1_000;
const TICKS = [1000, 100, 10, 1, 25, 50];
const GTD_LEAD_MS = 60_000;
const TIME_MAX = 2 ** 47;
const ID_LENGTH_MAX = 128;
const CANCEL_IDS_MAX = 1000;
/** Cancel reasons and fill kinds as the event definitions number them. */
const CANCELED = 1;
const EXPIRED = 2;
const MARKET_RESOLVED = 3;
const NORMAL = 0;
const MINT = 1;
const MERGE = 2;
const BID = 0;
const ASK = 1;

export interface ReferenceLimits {
  readonly orderSlots: number;
  readonly accountOrdersMax: number;
  readonly orderHistory: number;
  readonly marketsMax: number;
  readonly accountsMax: number;
  readonly positionsMax: number;
}

interface Order {
  id: string; owner: string; market: number; outcome: number; side: number; type: number;
  price: number; original: number; remaining: number; createdAt: number; expiration: number; serial: number;
}

interface Finished { id: string; owner: string }

interface Market {
  tick: number; minSize: number; fee: number; accepting: boolean; resolved: boolean; winner: number; sets: number;
  orders: Order[];
}

interface Account { index: number; free: number; reserved: number; shares: Map<number, [number, number, number, number]> }

/** YES-orientation side and price of an order. */
function bookSide(order: { outcome: number; side: number }): number {
  return order.outcome === 0 ? (order.side === Side.Buy ? BID : ASK) : (order.side === Side.Buy ? ASK : BID);
}

function bookPrice(outcome: number, price: number): number {
  return outcome === 0 ? price : ONE - price;
}

/** price × size / 10_000 rounded down (a fill) and up (a BUY's reserve), computed in BigInt. */
function notionalOf(price: number, size: number): number {
  return Number((BigInt(price) * BigInt(size)) / BigInt(LOT));
}

function notionalUpOf(price: number, size: number): number {
  return Number((BigInt(price) * BigInt(size) + BigInt(LOT - 1)) / BigInt(LOT));
}

/** A size must be whole steps of its market's tick: the largest power of ten dividing the tick's units, at most 1000. */
function sizeStepOf(tick: number): number {
  return [1000, 100, 10, 1].find((step) => tick % step === 0)!;
}

/**
 * A fill's collateral: a resting SELL receives the floor, a resting BUY pays what its rounded-up
 * reserve drops by; the taker pays or receives the same when both trade one token, else the rest
 * of the complete set's collateral.
 */
function fillCollateral(maker: Order, size: number, kind: number): { maker: number; taker: number } {
  const makerAmount = maker.side === Side.Sell
    ? notionalOf(maker.price, size)
    : notionalUpOf(maker.price, maker.remaining) - notionalUpOf(maker.price, maker.remaining - size);
  return { maker: makerAmount, taker: kind === NORMAL ? makerAmount : size - makerAmount };
}

function feeOf(notional: number, bps: number): number {
  return Number((BigInt(notional) * BigInt(bps)) / 10_000n);
}

export class ReferenceEngine {
  readonly limits: ReferenceLimits;
  readonly markets = new Map<number, Market>();
  readonly accounts = new Map<string, Account>();
  readonly live = new Map<string, Order>();
  readonly finished: Finished[] = [];
  readonly positions = new Set<string>();
  supply = 0;
  fees = 0;
  serial = 1;
  now = 0;
  private events: EngineEvent[] = [];
  private seq = 0;
  private fillIndex = 0;
  private readonly operator: string;

  constructor(operator: string, limits: ReferenceLimits) {
    this.operator = operator;
    this.limits = limits;
    this.accounts.set(operator, { index: 0, free: 0, reserved: 0, shares: new Map() });
  }

  execute(command: Command): EngineEvent[] {
    this.events = [];
    this.seq = command.seq;
    this.now = command.timeMs;
    this.fillIndex = 0;
    const levelsBefore = this.levelSizes();
    const balancesBefore = this.balances();
    this.expireDue();
    this.dispatch(command);
    this.pushLevelDiffs(levelsBefore);
    this.pushBalanceDiffs(balancesBefore);
    return this.events;
  }

  private dispatch(command: Command): void {
    switch (command.kind) {
      case CommandKind.PlaceOrder: return this.place(command);
      case CommandKind.CancelOrder: return this.cancelIds(command.account, [command.orderId]);
      case CommandKind.CancelOrders:
        if (command.orderIds.length > CANCEL_IDS_MAX) return this.cancelRejected('', command.account, Reject.TOO_MANY_CANCEL_IDS);
        return this.cancelIds(command.account, command.orderIds);
      case CommandKind.CancelAccount: return this.cancelWhere((o) => o.owner === command.account);
      case CommandKind.CancelAccountMarket: return this.cancelAccountMarket(command);
      case CommandKind.Deposit: return this.deposit(command);
      case CommandKind.Withdraw: return this.withdraw(command);
      case CommandKind.AddMarket: return this.addMarket(command);
      case CommandKind.SetMarketAccepting: return this.setAccepting(command);
      case CommandKind.SetTickSize: return this.setTick(command);
      case CommandKind.ResolveMarket: return this.resolve(command);
      case CommandKind.ExpireOrders: return;
    }
  }

  // ---- orders ----

  private place(c: Command): void {
    const reject = this.validate(c) || this.checkFunds(c) || this.checkBook(c) || this.checkPosition(c);
    if (reject !== 0) {
      this.push({ kind: 'ORDER_REJECTED', seq: this.seq, orderId: c.orderId, account: c.account, market: c.market,
        outcome: c.outcome, side: c.side, priceUnits: c.priceUnits, sizeMicros: c.sizeMicros, orderType: c.orderType, reason: reject as Reject });
      return;
    }
    this.positions.add(`${c.account}|${c.market}`);
    const market = this.markets.get(c.market)!;
    const order: Order = { id: c.orderId, owner: c.account, market: c.market, outcome: c.outcome, side: c.side,
      type: c.orderType, price: c.priceUnits, original: c.sizeMicros, remaining: c.sizeMicros, createdAt: this.now,
      expiration: c.expirationMs, serial: 0 };
    const account = this.accounts.get(c.account)!;
    const reserve = c.side === Side.Buy ? this.buyReserve(c.priceUnits, c.sizeMicros, market.fee) : 0;
    if (c.side === Side.Buy) { account.free -= reserve; account.reserved += reserve; }
    else { this.moveShares(c.account, c.market, c.outcome, -c.sizeMicros, c.sizeMicros); }
    const spent = this.match(order, market);
    const rests = order.remaining > 0 && (order.type === OrderType.GTC || order.type === OrderType.GTD);
    this.settleTakerReserve(order, reserve - spent, rests);
    this.push({ kind: 'ORDER_ACCEPTED', seq: this.seq, orderId: order.id, account: order.owner, market: order.market,
      outcome: order.outcome, side: order.side, priceUnits: order.price, sizeMicros: order.original, orderType: order.type,
      matchedMicros: order.original - order.remaining, remainingMicros: order.remaining, expirationMs: order.expiration, rests });
    if (rests) {
      order.serial = this.serial++;
      market.orders.push(order);
      this.live.set(order.id, order);
    } else {
      if (order.remaining > 0) this.pushCancelled(order, order.remaining, CANCELED);
      this.remember(order);
    }
  }

  private buyReserve(price: number, size: number, fee: number): number {
    const notional = notionalUpOf(price, size);
    return notional + feeOf(notional, fee);
  }

  private settleTakerReserve(order: Order, leftover: number, rests: boolean): void {
    const account = this.accounts.get(order.owner)!;
    if (order.side === Side.Buy) {
      const keep = rests ? notionalUpOf(order.price, order.remaining) : 0;
      account.reserved -= leftover - keep;
      account.free += leftover - keep;
    } else if (!rests) {
      this.moveShares(order.owner, order.market, order.outcome, order.remaining, -order.remaining);
    }
  }

  private validate(c: Command): number {
    if (c.orderId.length === 0 || c.orderId.length > ID_LENGTH_MAX) return Reject.INVALID_ORDER_ID;
    const market = this.markets.get(c.market);
    if (market === undefined) return Reject.UNKNOWN_MARKET;
    if (!market.accepting || market.resolved) return Reject.MARKET_NOT_ACCEPTING;
    if (c.outcome !== 0 && c.outcome !== 1) return Reject.INVALID_OUTCOME;
    if (c.postOnly && (c.orderType === OrderType.FOK || c.orderType === OrderType.FAK)) return Reject.POST_ONLY_INVALID_TYPE;
    if (c.orderType === OrderType.GTD) {
      const e = c.expirationMs;
      if (!Number.isInteger(e) || e < this.now + GTD_LEAD_MS || e > TIME_MAX) return Reject.INVALID_EXPIRATION;
    } else if (c.expirationMs !== 0) {
      return Reject.INVALID_EXPIRATION;
    }
    const p = c.priceUnits;
    if (!Number.isInteger(p) || p % market.tick !== 0 || p < market.tick || p > ONE - market.tick) return Reject.INVALID_TICK;
    const step = sizeStepOf(market.tick);
    if (!Number.isInteger(c.sizeMicros) || c.sizeMicros <= 0 || c.sizeMicros % step !== 0) return Reject.INVALID_SIZE_PRECISION;
    if (c.sizeMicros > SIZE_MAX) return Reject.SIZE_ABOVE_MAX;
    if (c.sizeMicros < market.minSize) return Reject.SIZE_BELOW_MIN;
    if (this.live.has(c.orderId) || this.finished.some((f) => f.id === c.orderId)) return Reject.DUPLICATE_ORDER;
    return 0;
  }

  private checkFunds(c: Command): number {
    const account = this.accounts.get(c.account);
    if (account === undefined) return Reject.NOT_ENOUGH_BALANCE;
    if (c.side === Side.Buy) {
      const need = this.buyReserve(c.priceUnits, c.sizeMicros, this.markets.get(c.market)!.fee);
      return account.free < need ? Reject.NOT_ENOUGH_BALANCE : 0;
    }
    const shares = account.shares.get(c.market);
    const free = shares === undefined ? 0 : shares[2 * c.outcome]!;
    return free < c.sizeMicros ? Reject.NOT_ENOUGH_BALANCE : 0;
  }

  /** Resting orders the order would trade with, best first. */
  private crossing(c: { market: number; outcome: number; side: number; priceUnits: number }): Order[] {
    const side = bookSide(c);
    const limit = bookPrice(c.outcome, c.priceUnits);
    const market = this.markets.get(c.market)!;
    const opposite = market.orders.filter((o) => bookSide(o) !== side);
    const crosses = opposite.filter((o) => {
      const level = bookPrice(o.outcome, o.price);
      return side === BID ? level <= limit : level >= limit;
    });
    return crosses.sort((a, b) => {
      const pa = bookPrice(a.outcome, a.price);
      const pb = bookPrice(b.outcome, b.price);
      return pa !== pb ? (side === BID ? pa - pb : pb - pa) : a.serial - b.serial;
    });
  }

  private checkBook(c: Command): number {
    const crossing = this.crossing(c);
    const available = crossing.reduce((sum, o) => sum + o.remaining, 0);
    if (c.postOnly && crossing.length > 0) return Reject.POST_ONLY_CROSSES;
    if (c.orderType === OrderType.FOK) return available < c.sizeMicros ? Reject.FOK_NOT_FILLED : 0;
    if (c.orderType === OrderType.FAK) return crossing.length === 0 ? Reject.FAK_NO_MATCH : 0;
    const side = bookSide(c);
    const price = bookPrice(c.outcome, c.priceUnits);
    const levelSize = this.markets.get(c.market)!.orders
      .filter((o) => bookSide(o) === side && bookPrice(o.outcome, o.price) === price)
      .reduce((sum, o) => sum + o.remaining, 0);
    if (levelSize + c.sizeMicros > LEVEL_MAX) return Reject.LEVEL_FULL;
    const accountFull = [...this.live.values()].filter((o) => o.owner === c.account).length >= this.limits.accountOrdersMax;
    const bookFull = this.live.size >= this.limits.orderSlots;
    if ((accountFull || bookFull) && available < c.sizeMicros) return accountFull ? Reject.TOO_MANY_ORDERS : Reject.BOOK_FULL;
    return 0;
  }

  private checkPosition(c: Command): number {
    if (this.positions.has(`${c.account}|${c.market}`)) return 0;
    return this.positions.size >= this.limits.positionsMax ? Reject.POSITIONS_FULL : 0;
  }

  /** Fills the taker against the book; returns the collateral a BUY taker spent. */
  private match(taker: Order, market: Market): number {
    let spent = 0;
    for (const maker of this.crossing({ ...taker, priceUnits: taker.price })) {
      if (taker.remaining === 0) break;
      spent += this.fill(taker, maker, market);
    }
    return spent;
  }

  private fill(taker: Order, maker: Order, market: Market): number {
    const size = Math.min(taker.remaining, maker.remaining);
    const level = bookPrice(maker.outcome, maker.price);
    const takerPrice = bookPrice(taker.outcome, level);
    const kind = maker.outcome === taker.outcome ? NORMAL : taker.side === Side.Buy ? MINT : MERGE;
    const collateral = fillCollateral(maker, size, kind);
    const takerNotional = collateral.taker;
    const makerNotional = collateral.maker;
    const fee = feeOf(takerNotional, market.fee);
    const takerAccount = this.accounts.get(taker.owner)!;
    let spent = 0;
    if (taker.side === Side.Buy) {
      takerAccount.reserved -= takerNotional + fee;
      spent = takerNotional + fee;
      this.moveShares(taker.owner, taker.market, taker.outcome, size, 0);
    } else {
      this.moveShares(taker.owner, taker.market, taker.outcome, 0, -size);
      takerAccount.free += takerNotional - fee;
    }
    this.accounts.get(this.operator)!.free += fee;
    this.fees += fee;
    this.settleMaker(maker, makerNotional, size);
    if (kind === MINT) market.sets += size;
    if (kind === MERGE) market.sets -= size;
    taker.remaining -= size;
    maker.remaining -= size;
    this.push({ kind: 'FILL', seq: this.seq, fillIndex: this.fillIndex++, market: taker.market,
      takerOrderId: taker.id, takerAccount: taker.owner, takerOutcome: taker.outcome, takerSide: taker.side,
      takerPriceUnits: takerPrice, makerOrderId: maker.id, makerAccount: maker.owner, makerOutcome: maker.outcome,
      makerSide: maker.side, makerPriceUnits: maker.price, sizeMicros: size, takerFeeMicros: fee, fillKind: kind });
    this.push({ kind: 'ORDER_UPDATED', seq: this.seq, orderId: maker.id, account: maker.owner, market: maker.market,
      outcome: maker.outcome, side: maker.side, orderType: maker.type, priceUnits: maker.price, sizeMicros: maker.original,
      matchedMicros: maker.original - maker.remaining, remainingMicros: maker.remaining, createdAtMs: maker.createdAt,
      expirationMs: maker.expiration });
    if (maker.remaining === 0) this.unrest(maker);
    return spent;
  }

  private settleMaker(maker: Order, notional: number, size: number): void {
    const account = this.accounts.get(maker.owner)!;
    if (maker.side === Side.Buy) {
      account.reserved -= notional;
      this.moveShares(maker.owner, maker.market, maker.outcome, size, 0);
    } else {
      this.moveShares(maker.owner, maker.market, maker.outcome, 0, -size);
      account.free += notional;
    }
  }

  /** Adds to an account's free and reserved shares of one token. */
  private moveShares(owner: string, market: number, outcome: number, freeDelta: number, reservedDelta: number): void {
    const account = this.accounts.get(owner)!;
    const shares = account.shares.get(market) ?? [0, 0, 0, 0];
    shares[2 * outcome] = shares[2 * outcome]! + freeDelta;
    shares[2 * outcome + 1] = shares[2 * outcome + 1]! + reservedDelta;
    account.shares.set(market, shares);
  }

  /** Takes a finished resting order off its book and remembers it. */
  private unrest(order: Order): void {
    const market = this.markets.get(order.market)!;
    market.orders = market.orders.filter((o) => o !== order);
    this.live.delete(order.id);
    this.remember(order);
  }

  private remember(order: Order): void {
    if (this.finished.length === this.limits.orderHistory) this.finished.shift();
    this.finished.push({ id: order.id, owner: order.owner });
  }

  // ---- cancels and expiry ----

  private cancelLive(order: Order, reason: number): void {
    const account = this.accounts.get(order.owner)!;
    if (order.side === Side.Buy) {
      const release = notionalUpOf(order.price, order.remaining);
      account.reserved -= release;
      account.free += release;
    } else {
      this.moveShares(order.owner, order.market, order.outcome, order.remaining, -order.remaining);
    }
    this.pushCancelled(order, order.remaining, reason);
    this.unrest(order);
  }

  private pushCancelled(order: Order, remaining: number, reason: number): void {
    this.push({ kind: 'ORDER_CANCELLED', seq: this.seq, orderId: order.id, account: order.owner, market: order.market,
      outcome: order.outcome, side: order.side, orderType: order.type, priceUnits: order.price, sizeMicros: order.original,
      matchedMicros: order.original - remaining, remainingMicros: remaining, createdAtMs: order.createdAt,
      expirationMs: order.expiration, reason: reason as 1 | 2 | 3 });
  }

  private cancelIds(account: string, ids: readonly string[]): void {
    for (const id of ids) {
      const order = this.live.get(id);
      if (order !== undefined) {
        if (order.owner === account) this.cancelLive(order, CANCELED);
        else this.cancelRejected(id, account, Reject.NOT_OWNER);
        continue;
      }
      const finished = this.finished.find((f) => f.id === id);
      if (finished === undefined) this.cancelRejected(id, account, Reject.ORDER_NOT_FOUND);
      else this.cancelRejected(id, account, finished.owner === account ? Reject.ALREADY_DONE : Reject.NOT_OWNER);
    }
  }

  private cancelRejected(orderId: string, account: string, reason: Reject): void {
    this.push({ kind: 'CANCEL_REJECTED', seq: this.seq, orderId, account, reason });
  }

  /** Cancels matching live orders in placement order. */
  private cancelWhere(matches: (order: Order) => boolean): void {
    const chosen = [...this.live.values()].filter(matches).sort((a, b) => a.serial - b.serial);
    for (const order of chosen) this.cancelLive(order, CANCELED);
  }

  private cancelAccountMarket(c: Command): void {
    if (!this.markets.has(c.market)) return this.commandRejected(Reject.UNKNOWN_MARKET, c.market, c.account);
    if (c.outcome !== OUTCOME_ANY && c.outcome !== 0 && c.outcome !== 1) {
      return this.commandRejected(Reject.INVALID_OUTCOME, c.market, c.account);
    }
    this.cancelWhere((o) => o.owner === c.account && o.market === c.market && (c.outcome === OUTCOME_ANY || o.outcome === c.outcome));
  }

  private expireDue(): void {
    const due = [...this.live.values()]
      .filter((o) => o.type === OrderType.GTD && o.expiration <= this.now)
      .sort((a, b) => a.expiration - b.expiration || a.serial - b.serial);
    for (const order of due) this.cancelLive(order, EXPIRED);
  }

  // ---- markets and collateral ----

  private addMarket(c: Command): void {
    let reject = 0;
    if (!Number.isInteger(c.market) || c.market < 0 || c.market >= this.limits.marketsMax) reject = Reject.INVALID_MARKET_INDEX;
    else if (this.markets.has(c.market)) reject = Reject.MARKET_EXISTS;
    else if (!TICKS.includes(c.tickUnits)) reject = Reject.INVALID_TICK_SIZE;
    else if (!Number.isInteger(c.minSizeMicros) || c.minSizeMicros <= 0 || c.minSizeMicros % LOT !== 0 || c.minSizeMicros > SIZE_MAX) reject = Reject.INVALID_MIN_SIZE;
    else if (!Number.isInteger(c.feeBps) || c.feeBps < 0 || c.feeBps > FEE_MAX) reject = Reject.INVALID_FEE;
    if (reject !== 0) return this.commandRejected(reject, c.market, '');
    this.markets.set(c.market, { tick: c.tickUnits, minSize: c.minSizeMicros, fee: c.feeBps, accepting: true,
      resolved: false, winner: -1, sets: 0, orders: [] });
    this.pushMarket(c.market);
  }

  private openMarketReject(index: number): number {
    const market = this.markets.get(index);
    if (market === undefined) return Reject.UNKNOWN_MARKET;
    return market.resolved ? Reject.MARKET_RESOLVED : 0;
  }

  private setAccepting(c: Command): void {
    const reject = this.openMarketReject(c.market);
    if (reject !== 0) return this.commandRejected(reject, c.market, '');
    this.markets.get(c.market)!.accepting = c.accepting;
    this.pushMarket(c.market);
  }

  private setTick(c: Command): void {
    const reject = this.openMarketReject(c.market) || (TICKS.includes(c.tickUnits) ? 0 : Reject.INVALID_TICK_SIZE);
    if (reject !== 0) return this.commandRejected(reject, c.market, '');
    this.markets.get(c.market)!.tick = c.tickUnits;
    this.pushMarket(c.market);
  }

  private resolve(c: Command): void {
    const reject = this.openMarketReject(c.market) || (c.outcome === 0 || c.outcome === 1 ? 0 : Reject.INVALID_OUTCOME);
    if (reject !== 0) return this.commandRejected(reject, c.market, '');
    const market = this.markets.get(c.market)!;
    const bids = market.orders.filter((o) => bookSide(o) === BID)
      .sort((a, b) => bookPrice(b.outcome, b.price) - bookPrice(a.outcome, a.price) || a.serial - b.serial);
    const asks = market.orders.filter((o) => bookSide(o) === ASK)
      .sort((a, b) => bookPrice(a.outcome, a.price) - bookPrice(b.outcome, b.price) || a.serial - b.serial);
    for (const order of [...bids, ...asks]) this.cancelLive(order, MARKET_RESOLVED);
    for (const account of this.accounts.values()) {
      const shares = account.shares.get(c.market);
      if (shares === undefined) continue;
      account.free += shares[2 * c.outcome]!;
      account.shares.delete(c.market);
    }
    for (const key of [...this.positions]) if (key.endsWith(`|${c.market}`)) this.positions.delete(key);
    market.sets = 0;
    market.resolved = true;
    market.accepting = false;
    market.winner = c.outcome;
    this.pushMarket(c.market);
  }

  private deposit(c: Command): void {
    let reject = 0;
    if (!Number.isInteger(c.amountMicros) || c.amountMicros <= 0 || c.amountMicros > SUPPLY_MAX) reject = Reject.INVALID_AMOUNT;
    else if (this.supply + c.amountMicros > SUPPLY_MAX) reject = Reject.SUPPLY_LIMIT;
    else if (!this.accounts.has(c.account) && this.accounts.size >= this.limits.accountsMax) reject = Reject.ACCOUNTS_FULL;
    if (reject !== 0) return this.commandRejected(reject, -1, c.account);
    if (!this.accounts.has(c.account)) {
      this.accounts.set(c.account, { index: this.accounts.size, free: 0, reserved: 0, shares: new Map() });
    }
    this.accounts.get(c.account)!.free += c.amountMicros;
    this.supply += c.amountMicros;
  }

  private withdraw(c: Command): void {
    const account = this.accounts.get(c.account);
    let reject = 0;
    if (!Number.isInteger(c.amountMicros) || c.amountMicros <= 0 || c.amountMicros > SUPPLY_MAX) reject = Reject.INVALID_AMOUNT;
    else if (account === undefined || account.free < c.amountMicros) reject = Reject.NOT_ENOUGH_BALANCE;
    if (reject !== 0) return this.commandRejected(reject, -1, c.account);
    account!.free -= c.amountMicros;
    this.supply -= c.amountMicros;
  }

  private commandRejected(reason: number, market: number, account: string): void {
    this.push({ kind: 'COMMAND_REJECTED', seq: this.seq, market, account, reason: reason as Reject });
  }

  private pushMarket(index: number): void {
    const m = this.markets.get(index)!;
    this.push({ kind: 'MARKET', seq: this.seq, market: index, tickUnits: m.tick, minSizeMicros: m.minSize,
      feeBps: m.fee, accepting: m.accepting, resolved: m.resolved, winner: m.winner });
  }

  private push(event: EngineEvent): void {
    this.events.push(event);
  }

  // ---- level and balance changes, by diffing ----

  /** Aggregate size by level key (market, side, price), see levelKey. */
  levelSizes(): Map<number, number> {
    const sizes = new Map<number, number>();
    for (const [index, market] of this.markets) {
      for (const o of market.orders) {
        const key = levelKey(index, bookSide(o), bookPrice(o.outcome, o.price));
        sizes.set(key, (sizes.get(key) ?? 0) + o.remaining);
      }
    }
    return sizes;
  }

  private pushLevelDiffs(before: Map<number, number>): void {
    const after = this.levelSizes();
    const keys = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b);
    for (const key of keys) {
      const size = after.get(key) ?? 0;
      if (size === (before.get(key) ?? 0)) continue;
      const price = key % LEVELS;
      const side = Math.floor(key / LEVELS) % 2;
      const market = Math.floor(key / (2 * LEVELS));
      this.push({ kind: 'LEVEL', seq: this.seq, market, side: side as 0 | 1, priceUnits: price, sizeMicros: size });
    }
  }

  /** [free, reserved] by balance key (account index, asset), see balanceKey. */
  private balances(): Map<number, [number, number]> {
    const result = new Map<number, [number, number]>();
    for (const account of this.accounts.values()) {
      result.set(balanceKey(account.index, -1, -1), [account.free, account.reserved]);
      for (const [market, s] of account.shares) {
        result.set(balanceKey(account.index, market, 0), [s[0]!, s[1]!]);
        result.set(balanceKey(account.index, market, 1), [s[2]!, s[3]!]);
      }
    }
    return result;
  }

  private pushBalanceDiffs(before: Map<number, [number, number]>): void {
    const after = this.balances();
    const addresses = [...this.accounts.entries()].sort((a, b) => a[1].index - b[1].index).map(([address]) => address);
    const keys = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b);
    for (const key of keys) {
      const [free, reserved] = after.get(key) ?? [0, 0];
      const [freeBefore, reservedBefore] = before.get(key) ?? [0, 0];
      if (free === freeBefore && reserved === reservedBefore) continue;
      const asset = key % ASSETS;
      const market = asset === 0 ? -1 : Math.floor((asset - 1) / 2);
      const outcome = asset === 0 ? -1 : (asset - 1) % 2;
      this.push({ kind: 'BALANCE', seq: this.seq, account: addresses[Math.floor(key / ASSETS)]!, market, outcome,
        freeMicros: free, reservedMicros: reserved });
    }
  }
}

/** Levels sort by market, then side (bids first), then price. */
const LEVELS = ONE + 1;
function levelKey(market: number, side: number, price: number): number {
  return (market * 2 + side) * LEVELS + price;
}

/** Balances sort by account index, then collateral, then market and outcome. */
const ASSETS = 2 * 100_000 + 1;
function balanceKey(index: number, market: number, outcome: number): number {
  return index * ASSETS + (market === -1 ? 0 : 1 + 2 * market + outcome);
}

/**
 * The engine emits a command's LEVEL and BALANCE events in the order the command first touched
 * each item; this reference finds them by diffing, in key order. Each run of LEVEL or BALANCE
 * events of the engine's, put in the reference's key order, so the two compare as sets.
 */
export function changesInKeyOrder(events: readonly EngineEvent[], ref: ReferenceEngine): EngineEvent[] {
  const keyOf = (event: EngineEvent): number => {
    if (event.kind === 'LEVEL') return levelKey(event.market, event.side, event.priceUnits);
    if (event.kind === 'BALANCE') return balanceKey(ref.accounts.get(event.account)!.index, event.market, event.outcome);
    return -1;
  };
  const sorted: EngineEvent[] = [];
  for (let start = 0; start < events.length;) {
    let end = start + 1;
    while (end < events.length && events[end]!.kind === events[start]!.kind) end += 1;
    const run = events.slice(start, end);
    if (keyOf(run[0]!) !== -1) run.sort((a, b) => keyOf(a) - keyOf(b));
    sorted.push(...run);
    start = end;
  }
  return sorted;
}

/**
 * The canonical state of engine/state/state_hash.ts, built independently: markets by index with their
 * levels best first and orders oldest first, accounts by address without zero balances.
 */
export function referenceStateHash(ref: ReferenceEngine): string {
  const markets = [...ref.markets.entries()].sort((a, b) => a[0] - b[0]).map(([index, m]) => [
    index, m.tick, m.minSize, m.fee, m.accepting, m.resolved, m.winner, m.sets,
    referenceLevels(m.orders, BID), referenceLevels(m.orders, ASK),
  ]);
  const accounts = [...ref.accounts.entries()]
    .map(([address, a]) => {
      const positions = [...a.shares.entries()].filter(([, s]) => s.some((x) => x !== 0))
        .sort((x, y) => x[0] - y[0]).map(([market, s]) => [market, ...s]);
      return [address, a.free, a.reserved, positions] as const;
    })
    .filter(([, free, reserved, positions]) => free !== 0 || reserved !== 0 || positions.length > 0)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const canonical = ['clobd-engine-state-1', markets, accounts, ref.supply, ref.fees];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

function referenceLevels(orders: Order[], side: number): unknown[] {
  const mine = orders.filter((o) => bookSide(o) === side);
  const prices = [...new Set(mine.map((o) => bookPrice(o.outcome, o.price)))].sort((a, b) => (side === BID ? b - a : a - b));
  return prices.map((price) => [price, mine
    .filter((o) => bookPrice(o.outcome, o.price) === price)
    .sort((a, b) => a.serial - b.serial)
    .map((o) => [o.id, o.owner, o.outcome, o.side, o.type, o.price, o.original, o.remaining, o.createdAt, o.expiration])]);
}
