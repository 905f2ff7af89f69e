// The demo flow against the real server: with it on, trades show on /trades, /prices-history
// and /activity within seconds and a market-channel WebSocket streams price_change and
// last_trade_price; only the demo's own markets are traded, never one made through the admin API;
// two servers from the same seed place the same orders; each flow account keeps a bounded number
// of resting orders; SIGTERM stops it cleanly and a restart goes on. With it off nothing trades.
// The demo's dates count from the first start; a demo market whose end date passes is closed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { loadConfig } from '../../http/config.js';
import { createLogger } from '../../http/log.js';
import { startServer as startInProcess } from '../../http/server.js';
import { OPEN_ORDERS_MAX } from '../../http/trading/demo_flow.js';
import { readDemoState } from '../../http/trading/demo_state.js';
import { removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../support/server.js';
import { demoTrader, liveOrders, readDemoFile } from './orders/demo_accounts.js';
import { ADMIN_TOKEN } from './orders/trader.js';

const DAY_MS = 86_400_000;

interface Trade {
  conditionId: string;
  outcomeIndex: number;
  side: string;
  size: number;
  price: number;
  timestamp: number;
  proxyWallet: string;
}

interface CatalogMarket {
  conditionId: string;
  clobTokenIds: string;
  acceptingOrders: boolean;
  closed: boolean;
  endDate: string;
}

interface CatalogEvent {
  title: string;
  endDate: string;
  closed: boolean;
}

/** GET /trades (the taker's item of each fill unless `query` says takerOnly=false), newest first. */
async function trades(server: RunningServer, query = ''): Promise<Trade[]> {
  const response = await request<Trade[]>(`${server.urls.data}/trades?limit=500${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function tokensOf(market: CatalogMarket): [string, string] {
  return JSON.parse(market.clobTokenIds) as [string, string];
}

async function catalogMarkets(server: RunningServer): Promise<CatalogMarket[]> {
  return (await request<CatalogMarket[]>(`${server.urls.catalog}/markets?limit=500`)).body;
}

const flowOn = (seed: string): Record<string, string> => ({ DEMO_FLOW: 'on', DEMO_FLOW_RATE: '20', DEMO_FLOW_SEED: seed, SHARDS: '1', ADMIN_TOKEN });

test('with the flow on, the demo markets trade within seconds: /trades, /prices-history, /activity and the market channel fill; admin markets are never traded; the same seed places the same orders', async () => {
  const [one, two] = await Promise.all([startServer({ env: flowOn('7') }), startServer({ env: flowOn('7') })]);
  let socket: WebSocket | undefined;
  try {
    const demoMarkets = readDemoFile(one.dataDir).markets;
    // The operator's own market, made once the flow runs: it must stay untouched.
    const created = await request<{ markets: CatalogMarket[] }>(`${one.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Operator event', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Operator market?' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const own = created.body.markets[0]!;

    const open = (await catalogMarkets(one)).filter((market) => demoMarkets.includes(market.conditionId) && market.acceptingOrders && !market.closed);
    socket = new WebSocket(`${one.urls.clob.replace('http', 'ws')}/ws/market`);
    const events: string[] = [];
    socket.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as Record<string, unknown> | Record<string, unknown>[];
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) events.push(String(message['event_type']));
    });
    await new Promise<void>((resolve, reject) => {
      socket!.once('open', () => resolve());
      socket!.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'market', assets_ids: open.flatMap(tokensOf) }));

    const started = Date.now();
    const seen = await until(() => trades(one), (list) => list.length >= 30, '30 trades');
    assert.ok(Date.now() - started < 15_000, 'trades within seconds');
    assert.ok(seen.every((trade) => demoMarkets.includes(trade.conditionId)), 'only demo markets trade');
    await until(async () => events, (list) => list.includes('price_change') && list.includes('last_trade_price'), 'price_change and last_trade_price on the market channel');

    // Price history of a traded token, and the trading account's activity.
    const traded = seen[0]!;
    const market = open.find((candidate) => candidate.conditionId === traded.conditionId)!;
    const token = tokensOf(market)[traded.outcomeIndex]!;
    const history = await until(
      async () => (await request<{ history: { t: number; p: number }[] }>(`${one.urls.clob}/prices-history?market=${token}&interval=max`)).body.history,
      (points) => points.length > 0, 'a price history point',
    );
    assert.ok(history.every((point) => point.p > 0 && point.p < 1));
    const activity = (await request<{ type: string; conditionId: string }[]>(`${one.urls.data}/activity?user=${traded.proxyWallet}`)).body;
    assert.ok(activity.some((item) => item.type === 'TRADE' && item.conditionId === traded.conditionId), 'the trade is in its account\'s activity');

    // The admin-created market: no trade, nothing resting, while the flow went on around it.
    assert.deepEqual(await trades(one, `&takerOnly=false&market=${own.conditionId}`), []);
    const [yes] = tokensOf(own);
    const book = (await request<{ bids: unknown[]; asks: unknown[] }>(`${one.urls.clob}/book?token_id=${yes}`)).body;
    assert.deepEqual([book.bids, book.asks], [[], []]);

    // Deterministic: the other server, same seed, made the same trades in the same order (its
    // accounts' addresses are its own, and its times).
    const shape = (list: Trade[]) => list.slice().reverse().map(({ conditionId, outcomeIndex, side, size, price }) => ({ conditionId, outcomeIndex, side, size, price }));
    const first = shape(await trades(one));
    const second = shape(await until(() => trades(two), (list) => list.length >= 30, '30 trades on the second server'));
    const common = Math.min(first.length, second.length);
    assert.ok(common >= 30);
    assert.deepEqual(second.slice(0, common), first.slice(0, common));
  } finally {
    socket?.close();
    for (const server of [one, two]) {
      await server.stop();
      removeDataDir(server.dataDir);
    }
  }
});

test('with DEMO_FLOW=off nothing trades, and the demo is dated from the first start', async () => {
  const server = await startServer({ env: { DEMO_FLOW: 'off', SHARDS: '1' } });
  try {
    const nowMs = Date.now();
    const file = readDemoFile(server.dataDir);
    assert.equal(file.anchor, new Date(Math.floor(nowMs / DAY_MS) * DAY_MS).toISOString(), 'the anchor: UTC midnight of the first start');
    const events = (await request<CatalogEvent[]>(`${server.urls.catalog}/events?limit=500`)).body;
    assert.ok(events.length >= 12);
    for (const event of events) {
      const endMs = Date.parse(event.endDate);
      if (event.closed) assert.ok(endMs <= nowMs, `${event.title} is closed and ended`);
      else assert.ok(endMs > nowMs && endMs < nowMs + 800 * DAY_MS, `${event.title} ends after the first start: ${event.endDate}`);
    }
    const soonest = Math.min(...events.filter((event) => !event.closed).map((event) => Date.parse(event.endDate)));
    assert.ok(soonest <= nowMs + 2 * DAY_MS, 'the daily series ends within days');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.deepEqual(await trades(server, '&takerOnly=false'), []);
    const maker = await demoTrader(server.urls.clob, file.maker);
    const open = (await catalogMarkets(server)).filter((market) => market.acceptingOrders && !market.closed);
    assert.equal((await liveOrders(maker)).count, open.length * 6, 'the maker\'s quotes, untouched');
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

test('each flow account keeps a bounded number of resting orders; SIGTERM stops the flow cleanly and a restart goes on with the same dates', async () => {
  const env = { DEMO_FLOW: 'on', DEMO_FLOW_RATE: '50', SHARDS: '2', LOG_LEVEL: 'info' };
  let server = await startServer({ env });
  const dataDir = server.dataDir;
  try {
    const file = readDemoFile(dataDir);
    // What a restart must keep: each event's title and dates (live figures may change meanwhile).
    const dates = async () => (await request<CatalogEvent[]>(`${server.urls.catalog}/events?limit=500&ascending=true`)).body
      .map(({ title, endDate }) => ({ title, endDate }));
    const events = await dates();
    await until(() => trades(server), (list) => list.length >= 60, '60 trades');
    const traders = await Promise.all(file.traders.map((key) => demoTrader(server.urls.clob, key)));
    const resting = await Promise.all(traders.map(async (trader) => (await liveOrders(trader)).count));
    assert.ok(resting.every((count) => count <= OPEN_ORDERS_MAX), `resting orders ${resting.join(', ')}`);
    assert.ok(resting.some((count) => count > 0));

    assert.equal(await server.stop('SIGTERM'), 0);
    const stopped = server.output().stderr;
    assert.ok(stopped.includes('"demo_flow_stopped"'), 'the flow says it stopped');
    assert.ok(stopped.indexOf('"demo_flow_stopped"') < stopped.indexOf('"shutdown_complete"'));

    server = await startServer({ dataDir, env });
    assert.match(server.output().stderr, /"demo_flow_started".*"start":2/);
    assert.deepEqual(await dates(), events, 'the catalog\'s dates are the first start\'s');
    const count = (await trades(server)).length;
    await until(() => trades(server), (list) => list.length >= Math.min(500, count + 20), 'trades after the restart');
    for (const trader of traders) trader.clobUrl = server.urls.clob;
    const again = await Promise.all(traders.map(async (trader) => (await liveOrders(trader)).count));
    assert.ok(again.every((orders) => orders <= OPEN_ORDERS_MAX), `resting orders after the restart ${again.join(', ')}`);
  } finally {
    await server.stop();
    removeDataDir(dataDir);
  }
});

test('a demo market whose end date passes on a running server is closed: paused, marked closed, the demo\'s orders in it cancelled', async () => {
  const dataDir = temporaryDataDir();
  let offsetMs = 0;
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: '1', LOG_LEVEL: 'silent', DEMO_FLOW_RATE: '20' }, new Map());
  const server = await startInProcess(config, createLogger(config.logLevel), { now: () => Date.now() + offsetMs });
  try {
    const state = readDemoState(dataDir)!;
    const catalog = async () => (await request<CatalogMarket[]>(`${server.urls.catalog}/markets?limit=500`)).body;
    const before = await catalog();
    const nowMs = Date.now();
    const ending = before.filter((market) => !market.closed && Date.parse(market.endDate) <= nowMs + 3 * DAY_MS);
    assert.ok(ending.length >= 2, 'the daily series ends within three days');
    // The maker's quotes rest there until the end.
    const demoAccounts = [state.maker.address, ...state.traders.map((trader) => trader.address)];
    const restingIn = (conditionId: string): number => {
      const place = server.trading.client.placeOf(conditionId)!;
      return demoAccounts.reduce((sum, address) => sum + (server.trading.accountData.liveOrders(address, place)?.size ?? 0), 0);
    };
    assert.ok(ending.every((market) => restingIn(market.conditionId) > 0));

    offsetMs = 3 * DAY_MS + 60_000;
    const closed = await until(catalog, (markets) => ending.every((market) => markets.find((m) => m.conditionId === market.conditionId)?.closed === true), 'the ended markets closed');
    for (const market of ending) {
      const now = closed.find((m) => m.conditionId === market.conditionId)!;
      assert.equal(now.acceptingOrders, false);
      assert.equal(server.trading.marketData.book(market.conditionId)?.accepting, false, 'paused in the engine');
      assert.equal(restingIn(market.conditionId), 0, 'no demo order left in it');
    }
    const stillOpen = closed.filter((market) => !market.closed && market.acceptingOrders);
    assert.ok(stillOpen.length >= 30, 'the others trade on');
    assert.ok(stillOpen.every((market) => Date.parse(market.endDate) > nowMs + 3 * DAY_MS));
  } finally {
    await server.stop();
    removeDataDir(dataDir);
  }
});
