// The demo flow: a few demo accounts trade the demo's own markets at a gentle, steady rate
// (DEMO_FLOW_RATE orders a second), so books move, trades happen, price history, /trades,
// /activity and the WebSocket channels fill on a fresh install. Every order is signed with the
// account's key and goes through readSignedOrder and the trading client as POST /order's do
// (durable before its answer); it does not pass through a listener, so no request cap counts it.
//
// Deterministic: every choice comes from a seeded PRNG (FlowRandom; the seed is DEMO_FLOW_SEED
// mixed with the count of starts), drawn in a fixed order, and from the accounts' balances, which
// only the flow's own orders change on an exchange nobody else trades: two servers from the same
// seed and the same start place the same orders (wall-clock timing aside).
//
// Each step draws a demo market (open, accepting orders, its end date ahead), an account, a
// token, and either rests a GTC order a few ticks from the market's fair price (a random walk per
// market, from its last trade or 0.50) or takes with a FAK order two ticks through it. An account
// sells what it holds (more likely the more it holds, always past POSITION_SHARES_MAX) and buys
// only what its free collateral pays for, so it stays within its balance; each account keeps at
// most OPEN_ORDERS_MAX resting orders (its oldest is cancelled), and each start cancels what an
// earlier one left resting, so nothing grows without bound.
//
// A demo market whose end date passes is closed by the flow: paused in the engine (as
// POST /admin/markets/{id}/pause does), marked closed and not accepting orders in the catalog,
// and the demo accounts' orders in it cancelled. It is not resolved: that is the operator's call
// (POST /admin/markets/{id}/resolve). Markets made through the admin API are never traded.
import { Side } from '../../engine/command.js';
import { PRICE_UNITS_PER_ONE } from '../../engine/constants.js';
import { takerFeeMicros } from '../../engine/ledger/fee.js';
import { notionalMicros } from '../../engine/ledger/notional.js';
import { Reject } from '../../engine/events/reject.js';
import { rejectText } from '../../engine/events/reject_text.js';
import type { ApiKeyRecord } from '../auth/l2.js';
import type { MarketRecord } from '../catalog/model.js';
import type { CatalogStore } from '../catalog/store.js';
import { HttpError } from '../errors.js';
import type { Logger } from '../log.js';
import { placeDemoOrder, type DemoSigner } from './demo_quotes.js';
import type { DemoAccount } from './demo_state.js';
import type { TradingRuntime } from './runtime.js';

const MICROS_PER_SHARE = 1_000_000;
/** Resting orders each flow account keeps at most; placing one more cancels its oldest. */
export const OPEN_ORDERS_MAX = 20;
/** Shares of one token an account holds before it only sells that token. */
const POSITION_SHARES_MAX = 200;
const SIZE_SHARES_MIN = 5;
const SIZE_SHARES_MAX = 25;
/** The share of steps that take liquidity (FAK) rather than rest (GTC). */
const TAKE_SHARE = 0.5;
/** The fair price's step and the distance between levels: 0.01, or the tick when it is coarser. */
const STEP_UNITS = 100;
const FAIR_MIN = 500;
const FAIR_MAX = 9_500;
/** At most one failure warning this often: a shard that is down would otherwise log each step. */
const WARN_EVERY_MS = 10_000;
const NO_CONTEXT = { orderId: '', price: '', tick: '', size: '', minSize: '' };

/** mulberry32: small, fast and seedable; the flow's only source of choices. */
export class FlowRandom {
  private state: number;

  /** `stream` separates the sequences of one seed: the flow passes the count of starts. */
  constructor(seed: number, stream = 0) {
    let mixed = (seed ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
    mixed = Math.imul(mixed ^ (mixed >>> 16), 0x85ebca6b) >>> 0;
    this.state = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35) >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/** A market as the planner sees it. */
export interface FlowMarket {
  readonly conditionId: string;
  readonly tokenIds: readonly [string, string];
  readonly tickUnits: number;
  readonly minSizeMicros: number;
  readonly takerBaseFeeBps: number;
}

/** What the planner may know of the accounts (by index): free collateral and free shares, in micros. */
export interface FlowBalances {
  collateral(account: number): number;
  shares(account: number, market: FlowMarket, outcome: number): number;
}

export interface PlannedOrder {
  readonly account: number;
  readonly market: FlowMarket;
  readonly outcome: number;
  readonly side: Side;
  readonly priceUnits: number;
  readonly sizeMicros: number;
  readonly orderType: 'GTC' | 'FAK';
}

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

/** The flow's choices: a pure function of its PRNG, the markets offered and the balances read. */
export class FlowPlanner {
  private readonly fair = new Map<string, number>();

  /** `startFair`: a market's fair price (YES, price units) the first time it is drawn. */
  constructor(private readonly random: FlowRandom, private readonly accounts: number, private readonly startFair: (market: FlowMarket) => number) {}

  /** The next order, or undefined when the drawn account can neither buy nor sell (a quiet step). */
  next(markets: readonly FlowMarket[], balances: FlowBalances): PlannedOrder | undefined {
    // Every draw is made, in this order, whatever is chosen: the sequence never depends on a branch.
    const marketDraw = this.random.int(Math.max(1, markets.length));
    const account = this.random.int(this.accounts);
    const outcome = this.random.int(2);
    const take = this.random.next() < TAKE_SHARE;
    const levels = 1 + this.random.int(3);
    const drift = this.random.int(5) - 2;
    const wantedShares = SIZE_SHARES_MIN + this.random.int(SIZE_SHARES_MAX - SIZE_SHARES_MIN + 1);
    const sellDraw = this.random.next();
    const market = markets[marketDraw];
    if (market === undefined) return undefined;

    const tick = market.tickUnits;
    const step = Math.ceil(STEP_UNITS / tick) * tick;
    const low = Math.ceil(FAIR_MIN / tick) * tick;
    const high = Math.floor(FAIR_MAX / tick) * tick;
    const before = this.fair.get(market.conditionId) ?? clamp(Math.round(this.startFair(market) / tick) * tick, low, high);
    const fair = clamp(before + drift * step, low, high);
    this.fair.set(market.conditionId, fair);

    const minShares = Math.ceil(market.minSizeMicros / MICROS_PER_SHARE);
    const heldShares = Math.floor(balances.shares(account, market, outcome) / MICROS_PER_SHARE);
    const canSell = heldShares >= Math.max(1, minShares);
    const sellChance = !canSell ? 0 : heldShares >= POSITION_SHARES_MAX ? 1 : heldShares / POSITION_SHARES_MAX;
    const price = (side: Side): number => {
      const tokenFair = outcome === 0 ? fair : PRICE_UNITS_PER_ONE - fair;
      const toward = side === Side.Buy ? 1 : -1;
      const offset = take ? 2 * step * toward : -levels * step * toward;
      return clamp(tokenFair + offset, tick, PRICE_UNITS_PER_ONE - tick);
    };
    const shares = Math.max(wantedShares, minShares);
    const sell = (): PlannedOrder => ({
      account, market, outcome, side: Side.Sell, priceUnits: price(Side.Sell),
      sizeMicros: Math.min(shares, heldShares) * MICROS_PER_SHARE, orderType: take ? 'FAK' : 'GTC',
    });
    if (sellDraw < sellChance) return sell();
    const buyPrice = price(Side.Buy);
    const sizeMicros = shares * MICROS_PER_SHARE;
    const notional = notionalMicros(buyPrice, sizeMicros);
    if (balances.collateral(account) < notional + takerFeeMicros(notional, market.takerBaseFeeBps)) return canSell ? sell() : undefined;
    return { account, market, outcome, side: Side.Buy, priceUnits: buyPrice, sizeMicros, orderType: take ? 'FAK' : 'GTC' };
  }
}

export interface DemoFlowDeps {
  readonly accounts: readonly { readonly account: DemoAccount; readonly key: ApiKeyRecord }[];
  /** Every demo account (the flow's and the market maker): whose orders are cancelled in a market that ends. */
  readonly demoAddresses: readonly string[];
  /** Condition ids of the demo's markets. */
  readonly markets: readonly string[];
  readonly store: CatalogStore;
  readonly trading: TradingRuntime;
  readonly signer: DemoSigner;
  readonly ratePerSecond: number;
  readonly seed: number;
  /** This start's number (DemoState.starts): its PRNG stream and the top of its order salts. */
  readonly start: number;
  readonly log: Logger;
}

/** What the flow did since it started. */
export interface FlowCounts {
  placed: number;
  /** FAK orders killed with nothing to take. */
  unmatched: number;
  refused: number;
  fills: number;
  cancelled: number;
  quiet: number;
  closedMarkets: number;
}

export class DemoFlow {
  readonly counts: FlowCounts = { placed: 0, unmatched: 0, refused: 0, fills: 0, cancelled: 0, quiet: 0, closedMarkets: 0 };
  private readonly planner: FlowPlanner;
  /** Each account's resting orders, oldest first. */
  private readonly resting: string[][];
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private nextDueMs = 0;
  private salt = 0;
  private warnedAtMs = -Infinity;

  constructor(private readonly deps: DemoFlowDeps) {
    this.planner = new FlowPlanner(new FlowRandom(deps.seed, deps.start), deps.accounts.length, (market) => this.lastPrice(market));
    this.resting = deps.accounts.map(() => []);
    this.intervalMs = 1000 / deps.ratePerSecond;
  }

  /** Cancels what an earlier start's flow left resting, closes markets that ended, then steps at the rate. */
  async start(): Promise<void> {
    for (const { account } of this.deps.accounts) await this.deps.trading.client.cancelAll(account.address);
    await this.closeEnded();
    this.nextDueMs = performance.now();
    this.schedule();
    this.deps.log.info('demo_flow_started', { ratePerSecond: this.deps.ratePerSecond, seed: this.deps.seed, start: this.deps.start, markets: this.deps.markets.length });
  }

  /** Stops stepping; resolves once the step in flight (its order answered, durable) is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    this.deps.log.info('demo_flow_stopped', { ...this.counts });
  }

  private schedule(): void {
    if (this.stopped) return;
    // A step that ran long is not made up for: the next is due one interval after the last was.
    this.nextDueMs = Math.max(this.nextDueMs + this.intervalMs, performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.step().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, Math.max(0, this.nextDueMs - performance.now()));
    this.timer.unref();
  }

  private async step(): Promise<void> {
    try {
      await this.closeEnded();
      const planned = this.planner.next(this.openMarkets(), this.balances());
      if (planned === undefined) {
        this.counts.quiet++;
        return;
      }
      await this.place(planned);
    } catch (error) {
      this.counts.refused++;
      const nowMs = Date.now();
      if (nowMs - this.warnedAtMs >= WARN_EVERY_MS) {
        this.warnedAtMs = nowMs;
        this.deps.log.warn('demo_flow_step_failed', { message: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  private async place(planned: PlannedOrder): Promise<void> {
    const { account, key } = this.deps.accounts[planned.account]!;
    const market = this.deps.store.marketOfCondition(planned.market.conditionId)!;
    // Unique per start and step: the start's number above the step's, as decimal uint256 text.
    const salt = (BigInt(this.deps.start) << 32n) + BigInt(++this.salt);
    let answer;
    try {
      answer = await placeDemoOrder(account, key, {
        tokenId: planned.market.tokenIds[planned.outcome]!, side: planned.side, priceUnits: planned.priceUnits,
        sizeMicros: planned.sizeMicros, orderType: planned.orderType, salt: salt.toString(),
      }, market, this.deps.trading.client, this.deps.signer);
    } catch (error) {
      if (error instanceof HttpError && error.status === 400) {
        this.counts.refused++;
        return;
      }
      throw error;
    }
    const { signed, result } = answer;
    if (!result.events.some((event) => event.kind === 'ORDER_ACCEPTED' && event.orderId === signed.orderId)) {
      const rejected = result.events.find((event) => event.kind === 'ORDER_REJECTED');
      const reason = rejected?.kind === 'ORDER_REJECTED' ? rejected.reason : undefined;
      // A FAK with nothing to take is killed: a quiet book, not a fault.
      if (reason === Reject.FAK_NO_MATCH) {
        this.counts.unmatched++;
        return;
      }
      this.counts.refused++;
      this.deps.log.debug('demo_order_refused', { orderType: planned.orderType, reason: reason === undefined ? '' : rejectText(reason, NO_CONTEXT) });
      return;
    }
    this.counts.placed++;
    let filled = 0;
    for (const event of result.events) {
      if (event.kind === 'FILL' && event.takerOrderId === signed.orderId) {
        filled += event.sizeMicros;
        this.counts.fills++;
      }
    }
    if (planned.orderType !== 'GTC' || filled >= planned.sizeMicros) return;
    const queue = this.resting[planned.account]!;
    queue.push(signed.orderId);
    while (queue.length > OPEN_ORDERS_MAX) {
      const oldest = queue.shift()!;
      const cancelled = await this.deps.trading.client.cancelOrder(account.address, oldest);
      if (cancelled.events.some((event) => event.kind === 'ORDER_CANCELLED')) this.counts.cancelled++;
    }
  }

  /** The demo's markets the flow may trade now: open, accepting orders in the catalog and the engine, not past their end. */
  private openMarkets(): FlowMarket[] {
    const nowMs = this.deps.signer.now();
    const open: FlowMarket[] = [];
    for (const conditionId of this.deps.markets) {
      const market = this.deps.store.marketOfCondition(conditionId);
      if (market === undefined || !tradable(market, nowMs) || this.deps.trading.token(market.tokenIds[0]) === undefined) continue;
      const book = this.deps.trading.marketData.book(conditionId);
      if (book === undefined || !book.accepting || book.resolved) continue;
      open.push(market);
    }
    return open;
  }

  private balances(): FlowBalances {
    const { trading, accounts } = this.deps;
    return {
      collateral: (index) => trading.treasury.freeOf(accounts[index]!.account.address),
      shares: (index, market, outcome) => {
        const place = trading.client.placeOf(market.conditionId);
        return place === undefined ? 0 : trading.accountData.shares(accounts[index]!.account.address, place.shard, place.market, outcome)[0];
      },
    };
  }

  /** A market's last trade (YES orientation), or 0.50. */
  private lastPrice(market: FlowMarket): number {
    const book = this.deps.trading.marketData.book(market.conditionId);
    const yes = book?.lastTrades[0];
    if (yes !== undefined) return yes.priceUnits;
    const no = book?.lastTrades[1];
    return no === undefined ? PRICE_UNITS_PER_ONE / 2 : PRICE_UNITS_PER_ONE - no.priceUnits;
  }

  /** Closes every demo market whose end date has passed and that the catalog still shows open. */
  private async closeEnded(): Promise<void> {
    const { store, trading, log, signer } = this.deps;
    const nowMs = signer.now();
    for (const conditionId of this.deps.markets) {
      const market = store.marketOfCondition(conditionId);
      if (market === undefined || market.closed || !market.enableOrderBook || market.endDateMs > nowMs) continue;
      if (trading.marketData.book(conditionId)?.accepting === true) await trading.client.setAccepting(conditionId, false);
      store.setMarketFlags(market.id, { acceptingOrders: false, closed: true }, nowMs);
      for (const address of this.deps.demoAddresses) await trading.client.cancelMarket(address, conditionId);
      this.counts.closedMarkets++;
      log.info('demo_market_ended', { conditionId, question: market.question, endDate: new Date(market.endDateMs).toISOString() });
    }
  }
}

function tradable(market: MarketRecord, nowMs: number): boolean {
  return market.enableOrderBook && market.acceptingOrders && !market.closed && market.endDateMs > nowMs;
}
