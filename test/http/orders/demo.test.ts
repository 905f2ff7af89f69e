// The demo's accounts against the real server: a fresh data directory starts with the demo market
// maker's two-sided quotes on every open demo market, placed through the same signed-order path as
// any bot; its key (and the flow's) is made at random for that directory and kept in
// DATA_DIR/demo.json (0600), never the public key of versions before, and the same after a
// restart. A directory seeded by such a version is rotated: the public maker's orders cancelled,
// its collateral withdrawn, new random keys take over the demo's markets.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { removeDataDir, request, startServer, type RunningServer } from '../../support/server.js';
import { demoFileMode, demoTrader, liveOrders, readDemoFile, demoFilePath } from './demo_accounts.js';
import { ADMIN_TOKEN, deposit, Trader } from './trader.js';

const LEGACY_SECRET = keccak_256(new TextEncoder().encode('clobd demo market maker'));

interface CatalogMarket {
  conditionId: string;
  acceptingOrders: boolean;
  closed: boolean;
  enableOrderBook: boolean;
}

async function openMarkets(server: RunningServer): Promise<CatalogMarket[]> {
  return (await request<CatalogMarket[]>(`${server.urls.catalog}/markets?limit=500`)).body.filter((m) => m.acceptingOrders && !m.closed && m.enableOrderBook);
}

/** Asserts the maker's quotes: three bids on both tokens of each market, below 0.50. */
async function assertQuotes(maker: Trader, markets: readonly CatalogMarket[]): Promise<void> {
  const orders = await liveOrders(maker);
  assert.equal(orders.count, markets.length * 6);
  for (const market of markets) {
    const rows = orders.data.filter((row) => row.market === market.conditionId);
    assert.equal(rows.length, 6, `quotes on ${market.conditionId}`);
    assert.equal(new Set(rows.map((row) => row.assetId)).size, 2, 'both tokens quoted');
    assert.ok(rows.every((row) => row.side === 'BUY' && Number(row.price) < 0.5));
  }
}

test('the demo maker quotes every open demo market with a key made at random for its data directory, kept private and across a restart', async () => {
  const legacy = new Trader('', LEGACY_SECRET);
  let server = await startServer({ env: { SHARDS: '2' } });
  let other: RunningServer | undefined;
  try {
    const file = readDemoFile(server.dataDir);
    assert.equal(demoFileMode(server.dataDir), 0o600, 'demo.json is readable by its owner only');
    assert.equal(file.starts, 1);
    const maker = await demoTrader(server.urls.clob, file.maker);
    assert.notEqual(maker.address, legacy.address, 'not the public key of earlier versions');
    assert.equal(new Set([file.maker, ...file.traders]).size, 1 + file.traders.length, 'every demo account has a key of its own');
    // Nothing the repository knows derives a key this server knows: the old maker has none.
    legacy.clobUrl = server.urls.clob;
    assert.notEqual((await request(`${server.urls.clob}/auth/derive-api-key`, { headers: legacy.l1Headers() }, { documented: false })).status, 200);
    const open = await openMarkets(server);
    assert.ok(open.length >= 30);
    assert.deepEqual(open.map((market) => market.conditionId).filter((id) => !file.markets.includes(id)), [], 'every open market is the demo\'s');
    await assertQuotes(maker, open);

    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir: server.dataDir, env: { SHARDS: '2' } });
    const again = readDemoFile(server.dataDir);
    assert.deepEqual({ ...again, starts: 0 }, { ...file, starts: 0 }, 'the same keys, anchor and markets after a restart');
    assert.equal(again.starts, 2);
    assert.equal(demoFileMode(server.dataDir), 0o600);
    maker.clobUrl = server.urls.clob;
    await assertQuotes(maker, open);

    other = await startServer({ env: { SHARDS: '2' } });
    const second = readDemoFile(other.dataDir);
    assert.notEqual(second.maker, file.maker, 'another data directory, another key');
    assert.ok(second.traders.every((key) => !file.traders.includes(key)));
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    if (other !== undefined) {
      await other.stop();
      removeDataDir(other.dataDir);
    }
  }
});

test('SEED_DEMO=0 makes no demo.json', async () => {
  const server = await startServer({ env: { SHARDS: '1', SEED_DEMO: '0' } });
  try {
    assert.equal(existsSync(demoFilePath(server.dataDir)), false);
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

interface CreatedEvent {
  markets: { conditionId: string; clobTokenIds: string }[];
}

async function createEvent(server: RunningServer, body: unknown): Promise<CreatedEvent> {
  const created = await request<CreatedEvent>(`${server.urls.clob}/admin/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

test('a data directory an earlier version seeded with the public maker key is rotated at its first start: orders cancelled, collateral withdrawn, new random keys', async () => {
  // The earlier demo's shape: its first event created at 2026-01-05 12:00 UTC (the fixed date it
  // gave), quoted by the maker whose key anyone derives. An event of the operator's own beside it.
  let server = await startServer({ env: { SHARDS: '1', SEED_DEMO: '0', ADMIN_TOKEN } });
  const dataDir = server.dataDir;
  try {
    const demoEvent = await createEvent(server, {
      title: 'An early demo event', createdAt: '2026-01-05T12:00:00Z', endDate: '2031-01-01T00:00:00Z',
      markets: [{ question: 'Early demo market A?' }, { question: 'Early demo market B?' }],
    });
    const own = await createEvent(server, { title: 'The operator\'s event', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Own market?' }] });
    const legacy = new Trader(server.urls.clob, LEGACY_SECRET);
    await legacy.createKey();
    await deposit(server.urls.clob, legacy.address, 1_000_000_000_000);
    const [yes] = JSON.parse(demoEvent.markets[0]!.clobTokenIds) as [string, string];
    const bid = await legacy.place({ tokenId: yes, side: 'BUY', priceUnits: 4900, sizeMicros: 100_000_000 });
    assert.equal(bid.status, 200, bid.text);
    assert.equal(await server.stop(), 0);

    server = await startServer({ dataDir, env: { SHARDS: '1', ADMIN_TOKEN, LOG_LEVEL: 'info', DEMO_FLOW: 'on', DEMO_FLOW_RATE: '20' } });
    const { stderr: logs } = server.output();
    const retired = logs.split('\n').find((line) => line.includes('"demo_legacy_maker_retired"'));
    assert.ok(retired !== undefined, 'a warning names the retired maker');
    assert.match(retired, /"level":"warn"/);
    assert.ok(retired.includes(legacy.address) && retired.includes('"ordersCancelled":1') && retired.includes('"collateralWithdrawnMicros":1000000000000'), retired);
    assert.ok(logs.includes('"demo_rekeyed"'));

    legacy.clobUrl = server.urls.clob;
    assert.equal((await liveOrders(legacy)).count, 0, 'the public maker has no orders left');
    const balance = await legacy.send<{ balance: string }>('GET', '/balance-allowance?asset_type=COLLATERAL');
    assert.equal(balance.body.balance, '0', 'nor collateral');

    const file = readDemoFile(dataDir);
    assert.equal(demoFileMode(dataDir), 0o600);
    assert.equal(file.anchor, null, 'the legacy catalog keeps its own dates');
    assert.deepEqual([...file.markets].sort(), demoEvent.markets.map((market) => market.conditionId).sort(), 'the earlier demo\'s markets, not the operator\'s');
    const maker = await demoTrader(server.urls.clob, file.maker);
    assert.notEqual(maker.address, legacy.address);
    const quotes = (await liveOrders(maker)).data;
    assert.deepEqual([...new Set(quotes.map((row) => row.market))].sort(), [...file.markets].sort(), 'the new maker quotes the demo\'s markets');

    // The flow trades the demo's markets, never the operator's.
    const deadline = Date.now() + 20_000;
    let trades: { conditionId: string }[] = [];
    while (trades.length < 10 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      trades = (await request<{ conditionId: string }[]>(`${server.urls.data}/trades?takerOnly=false&limit=500`)).body;
    }
    assert.ok(trades.length >= 10, `${trades.length} trades`);
    assert.ok(trades.every((trade) => file.markets.includes(trade.conditionId)));
    assert.deepEqual((await request(`${server.urls.data}/trades?takerOnly=false&market=${own.markets[0]!.conditionId}`)).body, []);

    // Rotated once: the next start finds nothing to retire and keeps the new keys.
    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir, env: { SHARDS: '1', ADMIN_TOKEN, LOG_LEVEL: 'info' } });
    assert.equal(server.output().stderr.includes('demo_legacy_maker_retired'), false);
    assert.equal(readDemoFile(dataDir).maker, file.maker);
  } finally {
    await server.stop();
    removeDataDir(dataDir);
  }
});
