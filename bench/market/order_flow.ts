// A steady order flow inside the bench server, so book reads are measured while the books
// change: `rate` orders per second through the internal trading client (no HTTP, no signature:
// the flow's own cost stays small beside the reads it disturbs). Orders are BUYs of either token
// of the demo markets within a few ticks of 0.5, half resting (GTC) and half marketable (FAK), so
// levels appear, grow, shrink and vanish; the accounts cancel everything once a second to keep
// the books bounded. Counts are served on a raw route for the benchmark to read.
import { OrderType, Side } from '../../engine/command.js';
import type { TradingRuntime } from '../../http/trading/runtime.js';

const ACCOUNTS = 20;
const TICK_UNITS = 100;
const SIZE_MICROS = 10_000_000;
const FUND_MICROS = 10_000_000_000_000;
const CANCEL_EVERY_MS = 1_000;
const BATCH_EVERY_MS = 10;
/** Most orders one tick sends when the loop fell behind (the rest wait for the next ticks). */
const BURST_MAX = 1_000;

export interface FlowCounts {
  placed: number;
  filled: number;
  refused: number;
}

export function startOrderFlow(trading: TradingRuntime, marketKeys: readonly string[], rate: number): { counts: FlowCounts; stop(): void } {
  const counts: FlowCounts = { placed: 0, filled: 0, refused: 0 };
  const accounts = Array.from({ length: ACCOUNTS }, (_, index) => `0x${(0xf10f0000 + index).toString(16).padStart(40, '0')}`);
  for (const account of accounts) trading.client.deposit(account, FUND_MICROS);
  let sequence = 0;
  let random = 0x2545f491;
  const next = (): number => {
    random ^= random << 13;
    random ^= random >>> 17;
    random ^= random << 5;
    return random >>> 0;
  };
  // Each tick sends what the rate makes due since the start, so a busy event loop that runs the
  // ticks late does not lower the rate.
  const startedAt = performance.now();
  let sent = 0;
  const place = (): void => {
    const choice = next();
    const marketable = (choice & 1) === 1;
    const offset = (1 + ((choice >>> 1) % 5)) * TICK_UNITS;
    sequence++;
    trading.client.placeOrder({
      account: accounts[sequence % ACCOUNTS]!, orderId: `0x${sequence.toString(16).padStart(64, '0')}`,
      marketKey: marketKeys[(choice >>> 4) % marketKeys.length]!, outcome: (choice >>> 8) & 1, side: Side.Buy,
      orderType: marketable ? OrderType.FAK : OrderType.GTC, priceUnits: 5_000 + (marketable ? offset : -offset), sizeMicros: SIZE_MICROS,
    }).then((result) => {
      counts.placed++;
      if (result.events.some((event) => event.kind === 'FILL')) counts.filled++;
    }, () => {
      counts.refused++;
    });
  };
  const placing = setInterval(() => {
    const due = Math.min(BURST_MAX, Math.floor((rate * (performance.now() - startedAt)) / 1000) - sent);
    for (let count = 0; count < due; count++) place();
    sent += Math.max(0, due);
  }, BATCH_EVERY_MS);
  const cancelling = setInterval(() => {
    for (const account of accounts) trading.client.cancelAll(account).catch(() => undefined);
  }, CANCEL_EVERY_MS);
  return {
    counts,
    stop() {
      clearInterval(placing);
      clearInterval(cancelling);
    },
  };
}
