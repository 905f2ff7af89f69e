// Random command flows for the differential and replay tests: several markets with different
// ticks and fees, a handful of accounts, every order type, post-only, GTD expiries, cancels of
// live, finished, foreign and unknown ids, account-wide cancels, pauses, tick changes,
// resolutions (a resolved market is replaced by a fresh index), deposits, withdrawals and a
// sprinkle of invalid input. Prices random-walk around a mid per market so orders both rest
// and cross. Sizes are whole lots of 0.01 share or, often, finer, down to the market's size step
// (the tick's decimals + 2): most FOK and FAK BUYs are sized as Polymarket's clients size a
// market BUY (an amount of USDC over the worst price), and the remainders they leave rest on the
// orders they end on. The generator reads balances from the engine under test only to size SELL
// orders so that most of them are fundable.
import { parseIdWords } from '../../engine/orders/id_words.js';
import { CommandKind, OrderType, OUTCOME_ANY, Side, makeCommand, type Command } from '../../engine/command.js';
import { idKey } from '../../engine/orders/id_buckets.js';
import type { Engine } from '../../engine/engine.js';
import { Prng } from './prng.js';

const TICKS = [100, 10, 25, 50, 1, 1000];
const LOT = 10_000;

/** A market's size step in micros: the largest power of ten dividing its tick's units, at most a thousand. */
function sizeStepOf(tick: number): number {
  return [1000, 100, 10, 1].find((step) => tick % step === 0)!;
}
const START_MS = 1_700_000_000_000;

export interface FlowOptions {
  readonly accounts: number;
  readonly markets: number;
  readonly marketsMax: number;
}

interface LiveMarket {
  index: number;
  tick: number;
  mid: number;
}

export class RandomCommands {
  private readonly prng: Prng;
  private readonly options: FlowOptions;
  private readonly accounts: string[];
  private readonly markets: LiveMarket[] = [];
  private readonly recentIds: string[] = [];
  private nextMarketIndex = 0;
  private seq = 0;
  private timeMs = START_MS;
  private orderCount = 0;
  private marketOwed = false;

  constructor(seed: number, options: FlowOptions) {
    this.prng = new Prng(seed);
    this.options = options;
    this.accounts = Array.from({ length: options.accounts }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
  }

  /** The commands that open the markets and fund the accounts. */
  setup(): Command[] {
    const commands: Command[] = [];
    for (let i = 0; i < this.options.markets; i += 1) commands.push(this.addMarket());
    for (const account of this.accounts) {
      commands.push(this.command({ kind: CommandKind.Deposit, account, amountMicros: this.prng.between(50, 5000) * 1_000_000 }));
    }
    return commands;
  }

  next(engine: Engine): Command {
    if (this.marketOwed) {
      this.marketOwed = false;
      return this.addMarket();
    }
    if (this.prng.chance(0.05)) this.timeMs += this.prng.between(1, 120_000);
    const roll = this.prng.below(1000);
    if (roll < 620) return this.placeOrder(engine);
    if (roll < 800) return this.cancelOne();
    if (roll < 830) return this.cancelMany();
    if (roll < 845) return this.command({ kind: CommandKind.CancelAccount, account: this.account() });
    if (roll < 860) return this.cancelMarket();
    if (roll < 900) return this.command({ kind: CommandKind.ExpireOrders });
    if (roll < 930) return this.collateral();
    return this.admin();
  }

  /**
   * Every other command carries its order id's key and, for a canonical id, its words, as a
   * decoded frame does, so the engine's keyed path and its own hashing and string compares all
   * meet the reference (which has neither).
   */
  private command(init: Omit<Parameters<typeof makeCommand>[0], 'seq' | 'timeMs'>): Command {
    this.seq += 1;
    const command = makeCommand({ ...init, seq: this.seq, timeMs: this.timeMs });
    if (this.seq % 2 === 0) {
      command.orderIdKey = idKey(command.orderId);
      command.orderIdKeyed = command.orderId;
      if (parseIdWords(command.orderId, command.orderIdWords, 0)) command.orderIdWordsAt = 0;
    }
    return command;
  }

  private account(): string {
    return this.prng.chance(0.01) ? '0xunknown' : this.prng.pick(this.accounts);
  }

  private market(): LiveMarket {
    return this.prng.pick(this.markets);
  }

  private addMarket(): Command {
    const index = this.nextMarketIndex % this.options.marketsMax;
    this.nextMarketIndex += 1;
    const tick = this.prng.pick(TICKS);
    this.markets.push({ index, tick, mid: 5000 });
    const feeBps = this.prng.pick([0, 0, 10, 100, 250, 1000]);
    const minSizeMicros = this.prng.pick([1, 5, 10]) * 1_000_000;
    return this.command({ kind: CommandKind.AddMarket, market: index, tickUnits: tick, minSizeMicros, feeBps });
  }

  private placeOrder(engine: Engine): Command {
    const market = this.market();
    market.mid = Math.min(9000, Math.max(1000, market.mid + this.prng.between(-60, 60)));
    const account = this.account();
    const outcome = this.prng.below(2);
    const side = this.prng.chance(0.55) ? Side.Buy : Side.Sell;
    const orderType = this.pickType();
    this.orderCount += 1;
    const orderId = this.orderId();
    return this.command({
      kind: CommandKind.PlaceOrder, account, orderId, market: market.index, outcome, side, orderType,
      postOnly: this.prng.chance(orderType <= OrderType.GTD ? 0.1 : 0.01), priceUnits: this.price(market, outcome, side),
      sizeMicros: this.size(engine, account, market, outcome, side, orderType), expirationMs: this.expiration(orderType),
    });
  }

  private pickType(): OrderType {
    const roll = this.prng.below(100);
    if (roll < 60) return OrderType.GTC;
    if (roll < 75) return OrderType.GTD;
    return roll < 88 ? OrderType.FOK : OrderType.FAK;
  }

  private orderId(): string {
    if (this.prng.chance(0.001)) return '';
    if (this.recentIds.length > 0 && this.prng.chance(0.01)) return this.prng.pick(this.recentIds);
    const id = `0x${this.orderCount.toString(16).padStart(64, '0')}`;
    this.recentIds.push(id);
    if (this.recentIds.length > 300) this.recentIds.shift();
    return id;
  }

  /** A price near the mid in the order's own token, on the tick most of the time. */
  private price(market: LiveMarket, outcome: number, side: number): number {
    const yesMid = outcome === 0 ? market.mid : 10_000 - market.mid;
    const offset = this.prng.between(-8, 8) * market.tick + (side === Side.Buy ? -market.tick : market.tick);
    // Adding 0 turns a -0 from rounding into 0, as the engine's integer columns would.
    let price = Math.round((yesMid + offset) / market.tick) * market.tick + 0;
    if (this.prng.chance(0.01)) price += 1;
    if (this.prng.chance(0.005)) price = this.prng.pick([0, 10_000, -market.tick]);
    return price;
  }

  private size(engine: Engine, account: string, market: LiveMarket, outcome: number, side: number, type: OrderType): number {
    if (this.prng.chance(0.005)) return this.prng.pick([0, 12_345, 1e16, -LOT, 12_345.5]);
    const step = sizeStepOf(market.tick);
    const marketOrder = type === OrderType.FOK || type === OrderType.FAK;
    if (side === Side.Sell && this.prng.chance(0.8)) {
      const held = engine.balanceOf(account)?.positions.find((p) => p.market === market.index && p.outcome === outcome);
      const free = held?.freeMicros ?? 0;
      // Now and then all of it, to its last step: shares bought finely are sold finely.
      if (free >= 100 * LOT && this.prng.chance(0.15)) return free - (free % step);
      const lots = Math.floor(free / LOT);
      if (lots >= 100) return Math.max(100, this.prng.between(1, lots)) * LOT;
    }
    if (side === Side.Buy && marketOrder && this.prng.chance(0.6)) return this.marketBuySize(market, outcome, step);
    const shares = this.prng.chance(0.8) ? this.prng.between(5, 60) * 100 : this.prng.between(1, 6000);
    // A finer part below one lot, on the market's step, for a tenth of the other orders.
    const fine = step < LOT && this.prng.chance(0.1) ? this.prng.between(1, LOT / step - 1) * step : 0;
    return shares * LOT + fine;
  }

  /**
   * What an official client signs for a market BUY of an amount of USDC (2 decimals) at a worst
   * price near the mid: the amount over the price, in shares to the market's step.
   */
  private marketBuySize(market: LiveMarket, outcome: number, step: number): number {
    const amount = this.prng.between(100, 300_000) * LOT;
    const price = Math.max(market.tick, Math.round((outcome === 0 ? market.mid : 10_000 - market.mid) / market.tick) * market.tick);
    const shares = Math.floor((amount * 10_000) / price);
    return shares - (shares % step);
  }

  private expiration(orderType: OrderType): number {
    if (orderType !== OrderType.GTD) return this.prng.chance(0.005) ? this.timeMs + 120_000 : 0;
    if (this.prng.chance(0.03)) return this.timeMs + this.prng.between(0, 59_999);
    return this.timeMs + 60_000 + this.prng.between(0, 600_000);
  }

  private cancelOne(): Command {
    const orderId = this.recentIds.length > 0 && this.prng.chance(0.95) ? this.prng.pick(this.recentIds) : '0xnothing';
    return this.command({ kind: CommandKind.CancelOrder, account: this.account(), orderId });
  }

  private cancelMany(): Command {
    const count = this.prng.between(0, 6);
    const orderIds = Array.from({ length: count }, () => (this.recentIds.length > 0 ? this.prng.pick(this.recentIds) : 'x'));
    return this.command({ kind: CommandKind.CancelOrders, account: this.account(), orderIds });
  }

  private cancelMarket(): Command {
    const market = this.prng.chance(0.02) ? 999 : this.market().index;
    const outcome = this.prng.pick([OUTCOME_ANY, 0, 1, 1, 7]);
    return this.command({ kind: CommandKind.CancelAccountMarket, account: this.account(), market, outcome });
  }

  private collateral(): Command {
    const kind = this.prng.chance(0.6) ? CommandKind.Deposit : CommandKind.Withdraw;
    const amountMicros = this.prng.chance(0.02) ? this.prng.pick([0, -5, 1.5]) : this.prng.between(1, 2000) * 1_000_000;
    const account = this.prng.chance(0.02) ? `0xnew${this.prng.below(40)}` : this.account();
    return this.command({ kind, account, amountMicros });
  }

  private admin(): Command {
    const roll = this.prng.below(100);
    const market = this.market();
    if (roll < 45) return this.command({ kind: CommandKind.SetMarketAccepting, market: market.index, accepting: this.prng.chance(0.85) });
    if (roll < 75) {
      market.tick = this.prng.pick(TICKS);
      return this.command({ kind: CommandKind.SetTickSize, market: market.index, tickUnits: market.tick });
    }
    if (roll < 97 || this.markets.length < 2) {
      return this.command({ kind: CommandKind.SetMarketAccepting, market: market.index, accepting: true });
    }
    return this.resolveAndReplace(market);
  }

  /** Resolves a market; the next command adds a fresh market index in its place. */
  private resolveAndReplace(market: LiveMarket): Command {
    this.markets.splice(this.markets.indexOf(market), 1);
    this.marketOwed = true;
    return this.command({ kind: CommandKind.ResolveMarket, market: market.index, outcome: this.prng.below(2) });
  }
}
