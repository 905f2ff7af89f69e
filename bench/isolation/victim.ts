// The isolation benchmark's victim: a bot on its own account and API key that places and cancels
// orders at a fixed rate whatever the answers do (an open loop: latency runs from each request's
// scheduled send time, so a server that falls behind cannot hide its queue). Its requests
// alternate: a signed GTC BUY of 5 shares at 0.01 (far from any seller, so it rests) and the
// cancel of the order placed CANCEL_LAG orders before. Each phase signs its own orders (real
// EIP-712 orders, the orders benchmark's signer) and sends them once, through the load
// generator every HTTP benchmark uses (bench/load/client.ts).
import { runLoad, type LatencySummary, type RequestSpec } from '../load/client.js';
import type { BenchTrader } from '../orders/exchange.js';

/** The cancel of each pair is for the order placed this many orders earlier: placed, not in flight. */
const CANCEL_LAG = 4;
const PRICE_UNITS = 100;
const SIZE_MICROS = 5_000_000;
const CANCEL_ALL_ATTEMPTS = 3;
/** Longest Retry-After the cancel-all waits. */
const RETRY_AFTER_S_MAX = 5;
/** Keep-alive connections; a request due while all are busy waits, timed from when it was due. */
const CONNECTIONS = 32;

export interface VictimFigures {
  /** Requests due in the phase and written. */
  readonly sent: number;
  /** Requests answered (the rest were still out when the drain ended). */
  readonly answered: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Requests never written: the load generator's backlog was full. */
  readonly skipped: number;
  readonly errors: number;
  readonly latency: LatencySummary;
  /** How late the victim itself wrote its requests (its share of the machine): part of `latency`. */
  readonly sendLag: LatencySummary;
}

export interface Phase {
  /** Base URL the victim sends to: the CLOB listener, or the compatibility listener. */
  readonly url: string;
  readonly ratePerSecond: number;
  readonly durationMs: number;
  readonly drainMs: number;
}

export class Victim {
  constructor(private readonly trader: BenchTrader, private readonly tokenId: string) {}

  /** The phase's requests, signed now: places and cancels, alternating. */
  requests(count: number): RequestSpec[] {
    const ids: string[] = [];
    const requests: RequestSpec[] = [];
    for (let index = 0; requests.length < count; index++) {
      if (index % 2 === 0) {
        const { body, orderId } = this.trader.placementBody({ tokenId: this.tokenId, side: 'BUY', priceUnits: PRICE_UNITS, sizeMicros: SIZE_MICROS });
        ids.push(orderId);
        requests.push(this.signed('POST', '/order', JSON.stringify(body)));
      } else {
        const orderId = ids[Math.max(0, ids.length - 1 - CANCEL_LAG)]!;
        requests.push(this.signed('DELETE', '/order', JSON.stringify({ orderID: orderId })));
      }
    }
    return requests;
  }

  async run(phase: Phase): Promise<VictimFigures> {
    const requests = this.requests(Math.floor((phase.ratePerSecond * phase.durationMs) / 1000));
    const result = await runLoad({
      url: phase.url, requests, connections: CONNECTIONS, durationMs: phase.durationMs, unique: true,
      ratePerSecond: phase.ratePerSecond, drainMs: phase.drainMs,
    });
    return {
      sent: result.sent, answered: result.requests, statusCounts: result.statusCounts, skipped: result.skipped,
      errors: result.errors, latency: result.latency, sendLag: result.sendLag,
    };
  }

  /**
   * Cancels whatever the last phase left resting (cancels that came before their order), untimed.
   * Refused with 429 (the relay's attacker spends the caps of the address the victim shares with
   * the relay), it tries again after Retry-After, a few times.
   */
  async cancelAll(clobUrl: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const { method, path, headers } = this.signed('DELETE', '/cancel-all', '');
      const response = await fetch(`${clobUrl}${path}`, { method, headers: { ...headers } });
      await response.arrayBuffer();
      if (response.status === 200) return;
      if (response.status !== 429 || attempt === CANCEL_ALL_ATTEMPTS) {
        process.stderr.write(`isolation: the victim's cancel-all answered ${response.status}\n`);
        return;
      }
      const waitS = Math.min(Number(response.headers.get('retry-after') ?? '1') || 1, RETRY_AFTER_S_MAX);
      await new Promise((resolve) => setTimeout(resolve, waitS * 1000));
    }
  }

  private signed(method: string, path: string, body: string): RequestSpec {
    const headers = { ...this.trader.l2Headers(method, path, body), ...(body === '' ? {} : { 'Content-Type': 'application/json' }) };
    return body === '' ? { method, path, headers } : { method, path, headers, body };
  }
}
