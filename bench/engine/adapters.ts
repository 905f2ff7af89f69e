// What the throughput runner drives: an order book that can replay one flow row at a time.
// clobd runs the full engine (ledger, validation and events included); the baseline runs
// nodejs-order-book, the most used TypeScript limit order book, on the same rows mapped to
// its API in the YES orientation.
import { OrderBook, Side as BaselineSide } from 'nodejs-order-book';
import { Command, CommandKind, OrderType, Side } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import type { EngineOptions } from '../../engine/state/state.js';
import { ROW_PLACE, TICK_UNITS, type Flow, type FlowOracle } from './flows.js';
import { OrderStatus } from '../../engine/orders/order_status.js';

export interface BookAdapter {
  readonly name: string;
  /** Events emitted so far (clobd only; the baseline returns result objects instead). */
  readonly events: number;
  /** Replays row `row` of the flow. */
  execute(flow: Flow, row: number): void;
}

const OPERATOR = '0x00000000000000000000000000000000000000fe';
/** Each account gets this much collateral and mints this many shares of each token. */
const DEPOSIT_MICROS = 2_000_000 * 1_000_000;
const MINTED_SHARES_MICROS = 1_000_000 * 1_000_000;

export class ClobdAdapter implements BookAdapter, FlowOracle {
  readonly name = 'clobd';
  readonly engine: Engine;
  /** The one command object every row is decoded into, as a ring consumer would. */
  private readonly command = new Command();
  private seq = 0;
  private readonly timeMs = 1_700_000_000_000;
  events = 0;

  constructor(flow: Flow, options: Omit<EngineOptions, 'operatorAddress'> = {}) {
    this.engine = new Engine({ operatorAddress: OPERATOR, ...options });
    // Each row's words are in the flow's column, as a frame's are in its ring.
    this.command.orderIdWords = flow.idWords;
    this.run({ kind: CommandKind.AddMarket, market: 0, tickUnits: TICK_UNITS, minSizeMicros: 1_000_000, feeBps: 10 });
    const accounts = flow.accountPool();
    for (const account of accounts) this.run({ kind: CommandKind.Deposit, account, amountMicros: DEPOSIT_MICROS });
    this.mintShares(accounts);
    this.engine.events.clear();
  }

  execute(flow: Flow, row: number): void {
    const command = this.command;
    this.seq += 1;
    command.seq = this.seq;
    command.timeMs = this.timeMs;
    command.account = flow.accounts[flow.account[row]!]!;
    command.orderId = flow.rowIds[row]!;
    command.orderIdKey = flow.idKey[row]!;
    command.orderIdKeyed = command.orderId;
    command.orderIdWordsAt = flow.idWordsAt[row]!;
    if (flow.rowKind[row] === ROW_PLACE) {
      command.kind = CommandKind.PlaceOrder;
      command.market = 0;
      command.outcome = flow.outcome[row]!;
      command.side = flow.side[row] === 0 ? Side.Buy : Side.Sell;
      command.orderType = flow.orderType[row] as OrderType;
      command.postOnly = false;
      command.priceUnits = flow.priceUnits[row]!;
      command.sizeMicros = flow.sizeMicros[row]!;
      command.expirationMs = 0;
    } else {
      command.kind = CommandKind.CancelOrder;
    }
    this.engine.execute(command);
    // The consumer reads the events and clears the buffer after every command.
    this.events += this.engine.events.count;
    this.engine.events.clear();
  }

  /** Whether the order still rests (for flow generation; allocates). */
  rests(orderId: string): boolean {
    return this.engine.getOrder(orderId)?.status === OrderStatus.LIVE;
  }

  private run(fields: Partial<Command> & { kind: CommandKind }): void {
    Object.assign(this.command, { postOnly: false, expirationMs: 0, orderType: OrderType.GTC }, fields);
    this.seq += 1;
    this.command.seq = this.seq;
    this.command.timeMs = this.timeMs;
    this.engine.execute(this.command);
  }

  /** Pairs of accounts mint complete sets so every account holds both tokens to sell. */
  private mintShares(accounts: string[]): void {
    for (let round = 0; round < 2; round += 1) {
      for (let index = 0; index + 1 < accounts.length; index += 2) {
        const [first, second] = round === 0 ? [index, index + 1] : [index + 1, index];
        for (const [account, outcome] of [[first, 0], [second, 1]] as const) {
          this.run({
            kind: CommandKind.PlaceOrder, account: accounts[account]!, orderId: `setup-${round}-${index}-${outcome}`,
            market: 0, outcome, side: Side.Buy, priceUnits: 5000, sizeMicros: MINTED_SHARES_MICROS,
          });
        }
      }
    }
  }
}

// The baseline's TimeInForce enum is not exported; its members are these strings.
type TimeInForce = NonNullable<Parameters<OrderBook['limit']>[0]['timeInForce']>;
const GTC = 'GTC' as TimeInForce;
const IOC = 'IOC' as TimeInForce;
const FOK = 'FOK' as TimeInForce;

export class BaselineAdapter implements BookAdapter {
  readonly name = 'nodejs-order-book';
  readonly events = 0;
  private readonly book = new OrderBook();

  execute(flow: Flow, row: number): void {
    const id = flow.rowIds[row]!;
    if (flow.rowKind[row] !== ROW_PLACE) {
      this.book.cancel(id);
      return;
    }
    const type = flow.orderType[row];
    this.book.limit({
      id, side: flow.isBid(row) ? BaselineSide.BUY : BaselineSide.SELL, size: flow.sizeMicros[row]! / 10_000,
      price: flow.bookPrice(row), timeInForce: type === OrderType.FOK ? FOK : type === OrderType.FAK ? IOC : GTC,
    });
  }
}
