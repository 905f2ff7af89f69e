// A read-only replica (`follow --nats URL`) on a real NATS JetStream: it rebuilds the primary's
// state from the replicated journal alone (a fresh data directory), reaches the primary's state
// hash, and serves the same books, catalog, feeds, account reads and WebSocket events; it
// refuses every change with 503, naming the primary.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import WebSocket from 'ws';
import { after, before, test } from 'node:test';
import { removeDataDir, request, startServer, temporaryDataDir, type Response, type RunningServer } from '../support/server.js';
import { natsServerInstalled, startNats, type NatsCluster } from '../support/nats.js';
import { ADMIN_TOKEN, startTrading, type Trader } from '../http/orders/trader.js';
import { run } from '../http/backup/support.js';
import { caughtUp } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';
const CATCH_UP_MS = 40_000;

let nats: NatsCluster;
before(async () => {
  if (skip === false) nats = await startNats(1);
});
after(async () => {
  await nats?.close();
});

async function until(condition: () => boolean, what: string, timeoutMs = CATCH_UP_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a replica follows the primary from the replicated journal: the same state, books, catalog, feeds and accounts; changes refused', { skip }, async () => {
  const env = { NATS: nats.urls, NATS_STREAM: 'follow' };
  const { server: primary, markets, traders } = await startTrading([81, 82], env);
  let replica: RunningServer | undefined;
  try {
    const [maker, taker] = traders as [Trader, Trader];
    for (const [index, market] of markets.entries()) {
      assert.equal((await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000 + 100 * index, sizeMicros: 10_000_000 })).status, 200);
      assert.equal((await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 6000 - 100 * index, sizeMicros: 5_000_000, orderType: 'FOK' })).status, 200);
    }
    replica = await startServer({ args: ['follow'], env: { ADMIN_TOKEN, SHARDS: '2', ...env } });
    await caughtUp(primary, replica);
    // Orders after the replica started reach it too, and its WebSocket readers see them.
    const socket = new WebSocket(`${replica.urls.clob.replace('http', 'ws')}/ws/market`);
    const events: Record<string, unknown>[] = [];
    socket.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as unknown;
      events.push(...(Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[]);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ assets_ids: [markets[0]!.no], type: 'market' }));
    await until(() => events.some((event) => event['event_type'] === 'book'), 'the replica\'s book message');
    const late = await maker.place({ tokenId: markets[0]!.no, side: 'BUY', priceUnits: 1500, sizeMicros: 5_000_000 });
    assert.equal(late.status, 200);
    await until(() => events.some((event) => event['event_type'] === 'price_change'
      && (event['price_changes'] as { price: string; size: string }[]).some((change) => change.price === '0.15' && change.size === '5')), 'the late order on the replica\'s market channel');
    socket.close();
    await caughtUp(primary, replica);

    const same = async (path: (urls: RunningServer['urls']) => string, trader?: Trader): Promise<void> => {
      const read = async (server: RunningServer): Promise<unknown> => {
        if (trader === undefined) {
          const response = await request(path(server.urls));
          assert.equal(response.status, 200, `${path(server.urls)}: ${response.text}`);
          return response.body;
        }
        const before = trader.clobUrl;
        trader.clobUrl = server.urls.clob;
        try {
          const response = await trader.send('GET', path(server.urls));
          assert.equal(response.status, 200, `${path(server.urls)}: ${response.text}`);
          return response.body;
        } finally {
          trader.clobUrl = before;
        }
      };
      assert.deepEqual(await read(replica!), await read(primary), path(primary.urls));
    };
    for (const market of markets) {
      await same((urls) => `${urls.clob}/book?token_id=${market.yes}`);
      await same((urls) => `${urls.clob}/book?token_id=${market.no}`);
      await same((urls) => `${urls.clob}/last-trade-price?token_id=${market.yes}`);
      await same((urls) => `${urls.catalog}/markets?condition_ids=${market.conditionId}`);
    }
    await same((urls) => `${urls.data}/trades?user=${taker.address}`);
    await same((urls) => `${urls.data}/activity?user=${maker.address}`);
    // The traders' keys and balances are the primary's.
    await same(() => '/data/orders', maker);
    await same(() => '/data/trades', taker);
    await same(() => '/balance-allowance?asset_type=COLLATERAL', taker);

    // A change is refused, naming the primary.
    maker.clobUrl = replica.urls.clob;
    const refused = await maker.place({ tokenId: markets[1]!.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
    maker.clobUrl = primary.urls.clob;
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers.get('x-clobd-primary'), primary.urls.clob);
    assert.match(refused.text, new RegExp(`read-only replica.*${primary.urls.clob.replaceAll('.', '\\.')}`));
    const created = await request(`${replica.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x', endDate: '2031-01-01T00:00:00Z', markets: [] }),
    });
    assert.equal(created.status, 503);
  } finally {
    await replica?.stop();
    if (replica !== undefined) removeDataDir(replica.dataDir);
    await primary.stop();
    removeDataDir(primary.dataDir);
  }
});

test('a replica started late from a backup of the primary catches up from the backup\'s batches, not from the start', { skip }, async () => {
  const env = { NATS: nats.urls, NATS_STREAM: 'late' };
  const { server: primary, markets, traders } = await startTrading([83], env);
  const parent = temporaryDataDir();
  let replica: RunningServer | undefined;
  try {
    const trader = traders[0]!;
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    for (const tokenId of tokens) assert.equal((await trader.place({ tokenId, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 })).status, 200);
    const target = join(parent, 'backup');
    const backedUp = await run(primary.dataDir, ['backup', target]);
    assert.equal(backedUp.code, 0, backedUp.stderr);
    // After the backup: orders, a new key and a new market, which only the stream holds.
    for (const tokenId of tokens) assert.equal((await trader.place({ tokenId, side: 'BUY', priceUnits: 200, sizeMicros: 5_000_000 })).status, 200);
    const created = await request<{ markets: { conditionId: string; clobTokenIds: string }[] }>(`${primary.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'After the backup', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Late?' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const [lateYes] = JSON.parse(created.body.markets[0]!.clobTokenIds) as [string, string];
    assert.equal((await trader.place({ tokenId: lateYes, side: 'BUY', priceUnits: 500, sizeMicros: 5_000_000 })).status, 200);

    replica = await startServer({ dataDir: target, args: ['follow'], env: { ADMIN_TOKEN, SHARDS: '2', LOG_LEVEL: 'info', ...env } });
    await caughtUp(primary, replica);
    const logged = replica.output().stdout + replica.output().stderr;
    const shardReady = [...logged.matchAll(/"event":"shard ready".*?"lastBatch":(\d+)/g)].map((match) => Number(match[1]));
    assert.ok(shardReady.length === 2 && shardReady.every((batch) => batch > 0), `the replica's shards start from the backup's batches: ${shardReady.join(', ')}`);
    const replicaUrl = replica.urls.clob;
    for (const path of [`/book?token_id=${lateYes}`, `/book?token_id=${tokens[0]}`]) {
      const ours: Response = await request(`${primary.urls.clob}${path}`);
      const theirs: Response = await request(`${replicaUrl}${path}`);
      assert.equal(theirs.status, 200, theirs.text);
      assert.deepEqual(theirs.body, ours.body, path);
    }
    trader.clobUrl = replica.urls.clob;
    const orders = await trader.send<{ data: unknown[] }>('GET', '/data/orders');
    assert.equal(orders.status, 200, orders.text);
    assert.equal(orders.body.data.length, 2 * tokens.length + 1);
  } finally {
    await replica?.stop();
    await primary.stop();
    removeDataDir(primary.dataDir);
    removeDataDir(parent);
  }
});
