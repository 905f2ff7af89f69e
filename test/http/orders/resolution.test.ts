// Admin resolution is atomic across the engine and the catalog. The route writes the engine
// first and the catalog second; a crash between the two used to leave a market the engine had
// resolved open in the catalog, and a retry answered 400 "the market is resolved", so nothing
// could repair it. Now the start makes the catalog follow the engine, and a repeat of the call is
// done, not refused. Checked here at the exact point (the engine resolved, the catalog not, then
// a restart), and with kill -9 at seeded points of resolutions of deep books.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../http/config.js';
import { createLogger } from '../../../http/log.js';
import { startServer as startInProcess, type Server } from '../../../http/server.js';
import { Prng } from '../../engine/prng.js';
import { removeDataDir, request, startServer, temporaryDataDir } from '../../support/server.js';
import { ADMIN_TOKEN, restMany, startTrading } from './trader.js';

type CatalogMarket = { closed: boolean; acceptingOrders: boolean };

function admin(clobUrl: string, path: string, body?: unknown) {
  return request<Record<string, unknown>>(`${clobUrl}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function catalogFlags(catalogUrl: string, conditionId: string): Promise<[boolean, boolean]> {
  const market = await request<CatalogMarket>(`${catalogUrl}/markets/${conditionId}`);
  assert.equal(market.status, 200, market.text);
  return [market.body.closed, market.body.acceptingOrders];
}

async function start(dataDir: string): Promise<Server> {
  const config = loadConfig({
    DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: '1', LOG_LEVEL: 'silent', SEED_DEMO: '0', ADMIN_TOKEN,
  }, new Map());
  return startInProcess(config, createLogger(config.logLevel));
}

test('a resolution the engine made and the catalog missed is repaired at the start, and repeating the call is safe', async () => {
  const dataDir = temporaryDataDir();
  let server = await start(dataDir);
  try {
    const created = await request<{ markets: { conditionId: string; outcomes: string }[] }>(`${server.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Crash between the writes', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Resolved?' }, { question: 'Paused?' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const [resolvedMarket, pausedMarket] = created.body.markets.map((market) => market.conditionId) as [string, string];
    // What a crash right after the engine's commit leaves: the engine resolved (and, in the
    // other market, paused), the catalog not told.
    await server.trading.client.resolveMarket(resolvedMarket, 1);
    await server.trading.client.setAccepting(pausedMarket, false);
    assert.deepEqual(await catalogFlags(server.urls.catalog, resolvedMarket), [false, true]);
    await server.stop();
    server = await start(dataDir);
    assert.deepEqual(await catalogFlags(server.urls.catalog, resolvedMarket), [true, false], 'the start closed the resolved market');
    assert.deepEqual(await catalogFlags(server.urls.catalog, pausedMarket), [false, false], 'and stopped the paused one accepting');
    const outcomes = JSON.parse(created.body.markets[0]!.outcomes) as string[];
    const again = await admin(server.urls.clob, `/admin/markets/${resolvedMarket}/resolve`, { winner: outcomes[1] });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body['winner'], outcomes[1]);
  } finally {
    await server.stop();
    removeDataDir(dataDir);
  }
});

test('kill -9 at any point of a resolution of a deep book: after the restart engine and catalog agree, and the call can be repeated', async () => {
  const prng = new Prng(38);
  const { server: first, markets, traders } = await startTrading([51], { SHARDS: '1' }, 100_000_000_000);
  let server = first;
  const trader = traders[0]!;
  const ordersPerMarket = 3_000;
  try {
    // Round 0 measures a whole resolution; the others are killed at seeded points within it.
    let fullMs = 0;
    for (const [round, market] of markets.entries()) {
      await restMany(trader, market, ordersPerMarket, 1_000_000 * (round + 1));
      const started = Date.now();
      const resolving = admin(server.urls.clob, `/admin/markets/${market.conditionId}/resolve`, { winner: market.outcomes[0] });
      if (round === 0) {
        assert.equal((await resolving).status, 200);
        fullMs = Date.now() - started;
        continue;
      }
      // Answered or cut off by the kill: either is fine, the state after the restart is what counts.
      const settled = resolving.catch(() => undefined);
      const killAtMs = Math.floor(prng.below(1000) / 1000 * fullMs * 1.2);
      await new Promise((resolve) => setTimeout(resolve, killAtMs));
      assert.equal(await server.stop('SIGKILL'), null);
      await settled;
      server = await startServer({ dataDir: server.dataDir, env: { ADMIN_TOKEN, SHARDS: '1' } });
      trader.clobUrl = server.urls.clob;
      const [closed, accepting] = await catalogFlags(server.urls.catalog, market.conditionId);
      // The engine's view: a resolved market no longer accepts orders (nothing here pauses one).
      const probe = await trader.place({ tokenId: market.yes, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000, salt: 9_000_000 + round });
      const engineResolved = probe.status === 400 && /not yet ready to process new orders/.test(probe.text);
      if (!engineResolved) assert.equal(probe.status, 200, probe.text);
      assert.equal(closed, engineResolved, `round ${round} (killed at ${killAtMs} of ${fullMs} ms): the catalog says closed=${closed}, the engine ${probe.status} ${probe.text}`);
      assert.equal(accepting, !engineResolved);
      if (!engineResolved) await trader.send('DELETE', '/order', { orderID: probe.orderId });
      const repeated = await admin(server.urls.clob, `/admin/markets/${market.conditionId}/resolve`, { winner: market.outcomes[0] });
      assert.equal(repeated.status, 200, `round ${round}: ${repeated.text}`);
      assert.deepEqual(await catalogFlags(server.urls.catalog, market.conditionId), [true, false]);
    }
    const status = await request<{ invariantsHold: boolean }>(`${server.urls.clob}/admin/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(status.body.invariantsHold, true);
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});
