// Heartbeats over HTTP: the id chain, a wrong id answered with the expected one, the plain
// heartbeat resetting the chain, and the dead-man switch cancelling open orders (freeing their
// reservations) once the heartbeats stop.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { removeDataDir, type RunningServer } from '../../support/server.js';
import { deposit, startTrading, Trader, type PlainMarket } from './trader.js';

const TIMEOUT_MS = 1000;
let server: RunningServer;
let market: PlainMarket;
let bot: Trader;
let idle: Trader;

before(async () => {
  // Signatures are checked inline here (VERIFY_THREADS=0); the other order tests use the pool.
  const setup = await startTrading([21, 22], { HEARTBEAT_TIMEOUT_MS: String(TIMEOUT_MS), VERIFY_THREADS: '0' });
  server = setup.server;
  market = setup.markets[0]!;
  [bot, idle] = setup.traders as [Trader, Trader];
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

test('the id chain, a wrong id, and the plain heartbeat', async () => {
  const first = await bot.send<{ heartbeat_id: string }>('POST', '/v1/heartbeats', { heartbeat_id: '' });
  assert.equal(first.status, 200);
  assert.match(first.body.heartbeat_id, /^[0-9a-f-]{36}$/);
  const second = await bot.send<{ heartbeat_id: string }>('POST', '/v1/heartbeats', { heartbeat_id: first.body.heartbeat_id });
  assert.notEqual(second.body.heartbeat_id, first.body.heartbeat_id);
  const wrong = await bot.send('POST', '/v1/heartbeats', { heartbeat_id: first.body.heartbeat_id });
  assert.equal(wrong.status, 400);
  assert.deepEqual(wrong.body, { error: 'Invalid Heartbeat ID', heartbeat_id: second.body.heartbeat_id });
  const plain = await bot.send('POST', '/heartbeats');
  assert.deepEqual([plain.status, plain.body], [200, { status: 'ok' }]);
  const restarted = await bot.send('POST', '/v1/heartbeats', { heartbeat_id: '' });
  assert.equal(restarted.status, 200, 'after a plain heartbeat the chain starts again from ""');
  const unsigned = await idle.send('POST', '/v1/heartbeats', { heartbeat_id: '' });
  assert.equal(unsigned.status, 200);
});

test('when heartbeats stop, the key\'s open orders are cancelled within the timeout plus a second', async () => {
  const order = await bot.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
  const untouched = await idle.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
  // The idle trader beat once in the first test; keep it alive while the bot goes silent.
  let keepAlive = true;
  const beating = (async () => {
    while (keepAlive) {
      await idle.send('POST', '/heartbeats');
      await sleep(200);
    }
  })();
  await bot.send('POST', '/heartbeats');
  const silentSince = Date.now();
  let status = 'LIVE';
  while (status === 'LIVE' && Date.now() - silentSince < TIMEOUT_MS + 3000) {
    await sleep(100);
    status = String((await bot.send<{ order: Record<string, unknown> }>('GET', `/data/order/${order.orderId}`)).body.order['status']);
  }
  const elapsed = Date.now() - silentSince;
  keepAlive = false;
  await beating;
  assert.equal(status, 'CANCELED');
  assert.ok(elapsed >= TIMEOUT_MS && elapsed <= TIMEOUT_MS + 1000 + 300, `cancelled after ${elapsed} ms`);
  const other = await idle.send<{ order: Record<string, unknown> }>('GET', `/data/order/${untouched.orderId}`);
  assert.equal(other.body.order['status'], 'LIVE', 'a key that keeps beating keeps its orders');
});

test('a refused heartbeat from a key without a session arms nothing: its orders stay', async () => {
  const stranger = new Trader(server.urls.clob, 23);
  await stranger.createKey();
  await deposit(server.urls.clob, stranger.address, 100_000_000);
  const order = await stranger.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
  assert.equal(order.status, 200, order.text);
  const refused = await stranger.send('POST', '/v1/heartbeats', { heartbeat_id: 'not-the-right-one' });
  assert.deepEqual([refused.status, refused.body], [400, { error: 'Invalid Heartbeat ID', heartbeat_id: '' }]);
  await sleep(TIMEOUT_MS + 1_500);
  const read = await stranger.send<{ order: Record<string, unknown> }>('GET', `/data/order/${order.orderId}`);
  assert.equal(read.body.order['status'], 'LIVE');
});
