// Cancel-depth micro benchmarks (tinybench): what one cancel costs at the head of a level 350
// orders deep, at its tail (349 orders ahead of it), and in a level holding a single order, for
// clobd and for the baseline. Each iteration cancels one order in each of 64 levels (timed) and
// then places a replacement at the same depth (untimed, reported through overriddenDuration).
import { performance } from 'node:perf_hooks';
import { OrderBook, Side as BaselineSide } from 'nodejs-order-book';
import { Bench } from 'tinybench';
import { Command, CommandKind, OrderType, Side } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import { counterId } from './flows.js';

/** Levels each iteration cancels in. */
export const CANCEL_LEVELS = 64;
/** Orders in a deep level. */
export const CANCEL_DEPTH = 350;

/** Places and cancels single orders by id at a YES-orientation bid level (price units). */
interface DepthBook {
  place(level: number, id: string): void;
  cancel(id: string): void;
}

class ClobdDepthBook implements DepthBook {
  private readonly engine = new Engine({ operatorAddress: '0xoperator', orderHistory: 1 << 16 });
  private readonly command = new Command();
  private seq = 0;

  constructor() {
    this.run(CommandKind.AddMarket, (c) => { c.market = 0; c.tickUnits = 1; c.minSizeMicros = 10_000; c.feeBps = 0; });
    this.run(CommandKind.Deposit, (c) => { c.account = '0xmaker'; c.amountMicros = 1e12; });
  }

  place(level: number, id: string): void {
    this.run(CommandKind.PlaceOrder, (c) => {
      c.account = '0xmaker'; c.orderId = id; c.market = 0; c.outcome = 0; c.side = Side.Buy; c.orderType = OrderType.GTC;
      c.postOnly = false; c.priceUnits = level; c.sizeMicros = 1_000_000; c.expirationMs = 0;
    });
  }

  cancel(id: string): void {
    this.command.kind = CommandKind.CancelOrder;
    this.command.orderId = id;
    this.seq += 1;
    this.command.seq = this.seq;
    this.engine.execute(this.command);
    this.engine.events.clear();
  }

  private run(kind: CommandKind, fill: (command: Command) => void): void {
    this.command.kind = kind;
    fill(this.command);
    this.seq += 1;
    this.command.seq = this.seq;
    this.engine.execute(this.command);
    this.engine.events.clear();
  }
}

class BaselineDepthBook implements DepthBook {
  private readonly book = new OrderBook();

  place(level: number, id: string): void {
    this.book.limit({ id, side: BaselineSide.BUY, size: 1, price: level });
  }

  cancel(id: string): void {
    this.book.cancel(id);
  }
}

type Position = 'head' | 'tail';

/** CANCEL_LEVELS levels of `depth` orders each, with the ids of every level in FIFO order. */
class DepthFixture {
  private readonly book: DepthBook;
  private readonly queues: string[][] = [];
  private counter = 0;

  constructor(book: DepthBook, depth: number) {
    this.book = book;
    for (let level = 0; level < CANCEL_LEVELS; level += 1) {
      const queue: string[] = [];
      for (let index = 0; index < depth; index += 1) queue.push(this.placeNew(level));
      this.queues.push(queue);
    }
  }

  /** Cancels the order at `position` of every level; returns the milliseconds it took. */
  cancelAll(position: Position): number {
    const started = performance.now();
    for (let level = 0; level < CANCEL_LEVELS; level += 1) {
      const queue = this.queues[level]!;
      this.book.cancel(position === 'head' ? queue[0]! : queue[queue.length - 1]!);
    }
    return performance.now() - started;
  }

  /** Puts the level back to its depth: the cancelled order leaves its queue, a new one joins the tail. */
  replace(position: Position): void {
    for (let level = 0; level < CANCEL_LEVELS; level += 1) {
      const queue = this.queues[level]!;
      if (position === 'head') queue.shift();
      else queue.pop();
      queue.push(this.placeNew(level));
    }
  }

  private placeNew(level: number): string {
    this.counter += 1;
    const id = counterId(this.counter);
    this.book.place(1000 + level * 10, id);
    return id;
  }
}

export interface CancelDepthResult {
  readonly engine: string;
  /** Nanoseconds per cancel. */
  readonly headNs: number;
  readonly tailNs: number;
  readonly singleNs: number;
  readonly tailOverHead: number;
  readonly deepOverSingle: number;
}

async function measureEngine(name: string, makeBook: () => DepthBook, timeMs: number): Promise<CancelDepthResult> {
  const bench = new Bench({ time: timeMs, warmupTime: timeMs / 4 });
  const cases: [string, number, Position][] = [['head', CANCEL_DEPTH, 'head'], ['tail', CANCEL_DEPTH, 'tail'], ['single', 1, 'head']];
  for (const [label, depth, position] of cases) {
    const fixture = new DepthFixture(makeBook(), depth);
    bench.add(label, () => {
      const overriddenDuration = fixture.cancelAll(position);
      fixture.replace(position);
      return { overriddenDuration };
    });
  }
  await bench.run();
  const perCancelNs = (label: string): number => {
    const task = bench.getTask(label);
    const result = task?.result;
    if (result === undefined || !('latency' in result)) throw new Error(`micro benchmark ${label} did not run`);
    return (result.latency.mean * 1e6) / CANCEL_LEVELS;
  };
  const headNs = perCancelNs('head');
  const tailNs = perCancelNs('tail');
  const singleNs = perCancelNs('single');
  return { engine: name, headNs, tailNs, singleNs, tailOverHead: tailNs / headNs, deepOverSingle: tailNs / singleNs };
}

export async function runCancelDepth(timeMs: number): Promise<CancelDepthResult[]> {
  return [
    await measureEngine('clobd', () => new ClobdDepthBook(), timeMs),
    await measureEngine('nodejs-order-book', () => new BaselineDepthBook(), timeMs),
  ];
}
