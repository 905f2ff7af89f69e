// One case of the big-taker benchmark, in a process of its own (bench/bigfill.ts starts it with
// the server's Node options): the real server in this process on a fresh DATA_DIR (SHARDS=1,
// admin on, no demo catalog, no request caps), two plain markets made through the admin API, and
// `fills` resting BUYs of the first one's YES token at 0.01, 5 shares each, placed through the
// internal trading client from accounts of 10 000 orders each. One taker of 1 000 resting orders
// in the second market warms the server's fill path first, untimed, the same in every case.
// Then, timed, over HTTP from one trader with API credentials: `takers` signed FAK BUYs of the NO
// token at 0.99, which together mint against every resting order, sent one after another, each
// after the whole answer to the one before (the response body read). Prints one JSON line.
//
//   node dist/bench/bigfill/taker_case.js <fills> <takers>
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../http/config.js';
import { createLogger } from '../../http/log.js';
import { startServer, type Server } from '../../http/server.js';
import { ADMIN_TOKEN } from '../../test/http/orders/trader.js';
import { MIN_SHARES, ONE_MICROS, restOrders } from '../../test/http/trading/support.js';
import { admin, BenchTrader, createMarkets, tokensOf } from '../orders/exchange.js';
import { collectGarbage } from '../support/collect.js';
import { peakResidentBytes, residentBytes, resetPeakResident } from '../support/memory.js';

export interface CaseReport {
  readonly suite: 'bigfill-case';
  readonly fills: number;
  readonly takers: number;
  /** From the first taker's send to the last answer's body read. */
  readonly seconds: number;
  /** Each taker's own time, send to body read. */
  readonly takerMs: readonly number[];
  /** The HTTP answers' bodies, in bytes, summed over the takers. */
  readonly answerBytes: number;
  /** Resting orders the answers say were filled (shares bought / 5). */
  readonly filled: number;
  /** Placing the resting orders through the internal client, untimed by the case. */
  readonly restSeconds: number;
  /** This process (server, matching worker, HTTP client): resident memory before the takers, and its peak while they ran. */
  readonly rssBeforeBytes: number;
  readonly rssPeakBytes: number;
}

const MAKER_PRICE_UNITS = 100;
const TAKER_PRICE_UNITS = 9_900;
const SHARES_MICROS = MIN_SHARES * ONE_MICROS;
/** Seconds a signed request stays valid: the case signs every taker before it times them. */
const AUTH_WINDOW_S = 3600;
const TRADER_SEED = 7_000_000;
/** The warm-up taker's fills; its makers' accounts and order ids are apart from the measured ones'. */
const WARM_UP_FILLS = 1_000;
const WARM_UP_FIRST_ACCOUNT = 100_000;
const WARM_UP_ID_PREFIX = 2;

interface Answer {
  readonly success: boolean;
  readonly status: string;
  readonly takingAmount: string;
}

interface SignedRequest {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** POST /order of a signed FAK BUY of `tokenId` at 0.99 for the shares of `orders` resting orders. */
function takerRequest(trader: BenchTrader, tokenId: string, orders: number): SignedRequest {
  const input = { tokenId, side: 'BUY', priceUnits: TAKER_PRICE_UNITS, sizeMicros: orders * SHARES_MICROS, orderType: 'FAK' } as const;
  const body = JSON.stringify(trader.placementBody(input).body);
  return { body, headers: { ...trader.l2Headers('POST', '/order', body), 'content-type': 'application/json' } };
}

/** Sends one request and reads its whole answer; the answer's body, which must be a 200's. */
async function send(url: string, { body, headers }: SignedRequest): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /order answered ${response.status}: ${text}`);
  return text;
}

/** The server's answers' bodies: each a match; the resting orders they filled (shares bought / 5). */
function countFills(bodies: readonly string[]): number {
  let filled = 0;
  for (const text of bodies) {
    const answer = JSON.parse(text) as Answer;
    if (!answer.success || answer.status !== 'matched') throw new Error(`a taker was not matched: ${text}`);
    filled += (Number(answer.takingAmount) * ONE_MICROS) / SHARES_MICROS;
  }
  return filled;
}

/**
 * Rests `fills` orders in one new market and the warm-up's in another, funds the taker, and takes
 * the warm-up's orders over HTTP; returns the measured market's NO token and the rest's seconds.
 */
async function prepare(server: Server, trader: BenchTrader, fills: number): Promise<{ readonly tokenId: string; readonly restSeconds: number }> {
  const clobUrl = server.urls.clob;
  const [market, warmUpMarket] = await createMarkets(clobUrl, 'Big taker', 2);
  if (market === undefined || warmUpMarket === undefined) throw new Error('the markets were not created');
  const restStarted = performance.now();
  await restOrders(server.trading.client, market.conditionId, 0, MAKER_PRICE_UNITS, fills, 0, 1);
  const restSeconds = (performance.now() - restStarted) / 1000;
  await restOrders(server.trading.client, warmUpMarket.conditionId, 0, MAKER_PRICE_UNITS, WARM_UP_FILLS, WARM_UP_FIRST_ACCOUNT, WARM_UP_ID_PREFIX);
  await trader.createKey();
  await admin(clobUrl, '/admin/deposits', { address: trader.address, amount: String((fills + WARM_UP_FILLS) * SHARES_MICROS) }, 200);
  // Also leaves the connection open and idle when the clock starts, as a trading client's would be.
  await send(`${clobUrl}/order`, takerRequest(trader, tokensOf(warmUpMarket)[1], WARM_UP_FILLS));
  return { tokenId: tokensOf(market)[1], restSeconds };
}

/** Sends the requests one after another from a collected heap; times them and the memory's peak. */
async function timeTakers(url: string, requests: readonly SignedRequest[]) {
  collectGarbage();
  const rssBeforeBytes = residentBytes();
  resetPeakResident();
  const bodies: string[] = [];
  const takerMs: number[] = [];
  const started = performance.now();
  for (const request of requests) {
    const sent = performance.now();
    bodies.push(await send(url, request));
    takerMs.push(performance.now() - sent);
  }
  const seconds = (performance.now() - started) / 1000;
  return { bodies, takerMs, seconds, rssBeforeBytes, rssPeakBytes: peakResidentBytes() };
}

async function runCase(fills: number, takers: number): Promise<CaseReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clobd-bench-bigfill-'));
  const server = await startServer(loadConfig({
    DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: '1', LOG_LEVEL: 'warn', SEED_DEMO: '0', ADMIN_TOKEN,
    RATE_LIMITS: 'off', AUTH_WINDOW_S: String(AUTH_WINDOW_S),
  }, new Map()), createLogger('warn'));
  try {
    const trader = new BenchTrader(server.urls.clob, TRADER_SEED);
    const { tokenId, restSeconds } = await prepare(server, trader, fills);
    const requests = Array.from({ length: takers }, () => takerRequest(trader, tokenId, fills / takers));
    const { bodies, ...timed } = await timeTakers(`${server.urls.clob}/order`, requests);
    const filled = countFills(bodies);
    if (filled !== fills) throw new Error(`the answers say ${filled} fills of ${fills}`);
    if (server.trading.pool.restarts(0) !== 0) throw new Error('the matching worker restarted');
    const answerBytes = bodies.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    return { suite: 'bigfill-case', fills, takers, ...timed, answerBytes, filled, restSeconds };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const [fills, takers] = process.argv.slice(2).map(Number);
if (!(Number.isInteger(fills) && Number.isInteger(takers) && takers! > 0 && fills! % takers! === 0)) {
  throw new Error('usage: taker_case.js <fills> <takers>, fills a multiple of takers');
}
console.log(JSON.stringify(await runCase(fills!, takers!)));
