// The isolation benchmark's server and the accounts on it. The real server (bench/support/
// server.ts) with the interface's default request caps (that is what is measured), the demo
// catalog (whose tokens the WebSocket attacker subscribes to), the compatibility listener, and:
//
// - the victim: its own plain market, account, API key and deposit;
// - the busiest address: an account with BUSIEST_FILLS fills, whose GET /activity past offset
//   10 000 the first pattern reads;
// - the reader: an account with READER_FILLS fills and READER_KEYS API keys, which reads its
//   own GET /data/trades.
//
// Fills are made fast: the resting orders go in through the internal trading client (the bench
// server's rest route), then one signed FAK over HTTP takes them all.
import { ADMIN_TOKEN, type Credentials } from '../../test/http/orders/trader.js';
import { admin, BenchTrader, createMarkets, tokensOf, type CreatedMarket } from '../orders/exchange.js';
import { restPath } from '../support/rest_route.js';
import { spawnBenchServer, type BenchServer } from '../support/spawn.js';
import { Victim } from './victim.js';

/** Past GET /activity's deepest offset (10 000) by a page of 500. */
export const BUSIEST_FILLS = 11_000;
export const READER_FILLS = 9_000;
/** The reader's keys: the many-address variant reads with a key per connection. */
export const READER_KEYS = 8;
/** Seconds a signed request stays valid: every phase's requests are signed before it starts. */
const AUTH_WINDOW_S = 3600;
const SHARES_MICROS = 5_000_000;
const MAKER_PRICE_UNITS = 100;
const TAKER_PRICE_UNITS = 9_900;
const VICTIM_SEED = 9_100_000;
const BUSIEST_SEED = 9_200_000;
const READER_SEED = 9_300_000;
/** Collateral of the victim: far more than the orders a run leaves resting at any time. */
const VICTIM_DEPOSIT_MICROS = 1_000_000 * 1_000_000;

export interface Arena {
  readonly server: BenchServer;
  readonly compatUrl: string;
  readonly victim: Victim;
  /** The account with BUSIEST_FILLS fills. */
  readonly busiest: string;
  /** The account with READER_FILLS fills, and its keys. */
  readonly reader: { readonly trader: BenchTrader; readonly keys: readonly Credentials[] };
  /** Every token of every open market, demo catalog and the benchmark's own. */
  readonly tokens: readonly string[];
}

/**
 * Gives `trader` API credentials for `nonce` (the test client's createKey without its answer
 * check against the API document, whose compilation alone takes seconds here).
 */
async function createKey(trader: BenchTrader, nonce: number): Promise<Credentials> {
  const response = await fetch(`${trader.clobUrl}/auth/api-key`, { method: 'POST', headers: trader.l1Headers(nonce) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`create key: ${response.status} ${text}`);
  trader.credentials = JSON.parse(text) as Credentials;
  return trader.credentials;
}

/** Rests `fills` BUYs of the market's YES at 0.01 from accounts of its own, then `taker` takes them all (a mint each). */
async function giveFills(server: BenchServer, market: CreatedMarket, taker: BenchTrader, fills: number, firstAccount: number, prefix: number): Promise<void> {
  const clobUrl = server.urls.clob;
  const rest = await fetch(`${clobUrl}${restPath}?market=${market.conditionId}&outcome=0&price=${MAKER_PRICE_UNITS}&count=${fills}&first=${firstAccount}&prefix=${prefix}`);
  if (rest.status !== 200) throw new Error(`resting the makers' orders: ${rest.status} ${await rest.text()}`);
  await rest.arrayBuffer();
  await admin(clobUrl, '/admin/deposits', { address: taker.address, amount: String(fills * SHARES_MICROS) }, 200);
  const { body } = taker.placementBody({ tokenId: tokensOf(market)[1], side: 'BUY', priceUnits: TAKER_PRICE_UNITS, sizeMicros: fills * SHARES_MICROS, orderType: 'FAK' });
  const text = JSON.stringify(body);
  const response = await fetch(`${clobUrl}/order`, { method: 'POST', headers: { ...taker.l2Headers('POST', '/order', text), 'content-type': 'application/json' }, body: text });
  const answer = (await response.json()) as { success?: boolean; status?: string; takingAmount?: string };
  if (response.status !== 200 || answer.status !== 'matched' || Number(answer.takingAmount) * 1_000_000 !== fills * SHARES_MICROS) {
    throw new Error(`the taker of ${fills} fills: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/** Every token of the open markets the CLOB listener lists (all pages). */
async function allTokens(clobUrl: string): Promise<string[]> {
  const tokens: string[] = [];
  let cursor = 'MA==';
  for (let pages = 0; cursor !== 'LTE=' && pages < 100; pages++) {
    const page = (await (await fetch(`${clobUrl}/sampling-markets?next_cursor=${cursor}`)).json()) as { data: { tokens: { token_id: string }[] }[]; next_cursor: string };
    tokens.push(...page.data.flatMap((market) => market.tokens.map((token) => token.token_id)));
    cursor = page.next_cursor;
  }
  return tokens;
}

export async function prepareArena(): Promise<Arena> {
  const server = await spawnBenchServer({
    ADMIN_TOKEN, AUTH_WINDOW_S: String(AUTH_WINDOW_S), RATE_LIMITS: '', COMPAT_PORT: '0', BENCH_REST_ROUTE: '1',
  });
  try {
    const clobUrl = server.urls.clob;
    if (server.compatUrl === undefined) throw new Error('the bench server did not open the compatibility listener');
    const [victimMarket, busiestMarket, readerMarket] = await createMarkets(clobUrl, 'Isolation benchmark', 3);
    if (victimMarket === undefined || busiestMarket === undefined || readerMarket === undefined) throw new Error('the markets were not created');
    const busiest = new BenchTrader(clobUrl, BUSIEST_SEED);
    const reader = new BenchTrader(clobUrl, READER_SEED);
    const victimTrader = new BenchTrader(clobUrl, VICTIM_SEED);
    await createKey(busiest, 0);
    const keys: Credentials[] = [];
    for (let nonce = READER_KEYS - 1; nonce >= 0; nonce--) keys.push(await createKey(reader, nonce));
    // The last key made (nonce 0) is the one the reader's taker is signed with. The two seeds go
    // at once: their markets may be on different shards.
    await Promise.all([
      giveFills(server, busiestMarket, busiest, BUSIEST_FILLS, 0, 0x150), giveFills(server, readerMarket, reader, READER_FILLS, 10, 0x151),
    ]);
    await createKey(victimTrader, 0);
    await admin(clobUrl, '/admin/deposits', { address: victimTrader.address, amount: String(VICTIM_DEPOSIT_MICROS) }, 200);
    return {
      server, compatUrl: server.compatUrl, victim: new Victim(victimTrader, tokensOf(victimMarket)[0]), busiest: busiest.address,
      reader: { trader: reader, keys }, tokens: await allTokens(clobUrl),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
