// Polymarket's official TypeScript client (@polymarket/clob-client, unchanged) against the real
// server at its default CLOB URL (POLY_ header names and chain 80002, unchanged): key creation and derivation with a viem wallet, key listing, open-order
// and trade reads, cancels one / many / all, heartbeats, and deleting the key. Orders are placed
// with the test trader, signed by the same wallet key.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Chain, ClobClient, type ApiKeyCreds } from '@polymarket/clob-client';
import { removeDataDir, type RunningServer } from '../../support/server.js';
import { createMarket, startOfficialServer, walletOf } from './official_setup.js';
import { deposit, Trader, type PlainMarket } from './trader.js';

let server: RunningServer;
let clobUrl = '';
let market: PlainMarket;
let trader: Trader;
let counterparty: Trader;
let official: ClobClient;
let creds: ApiKeyCreds;

before(async () => {
  ({ server, url: clobUrl } = await startOfficialServer());
  market = await createMarket(server.urls.clob, 'Official client event', { question: 'Will the client work?' });
  trader = new Trader(server.urls.clob, 501);
  counterparty = new Trader(server.urls.clob, 502);
  await counterparty.createKey();
  for (const t of [trader, counterparty]) await deposit(server.urls.clob, t.address, 100_000_000);
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

test('createApiKey, deriveApiKey and getApiKeys with POLY_ headers', async () => {
  const l1 = new ClobClient(clobUrl, Chain.AMOY, walletOf(trader.secret));
  creds = await l1.createApiKey(0);
  assert.match(creds.key, /^[0-9a-f-]{36}$/);
  assert.deepEqual(await l1.deriveApiKey(0), creds);
  official = new ClobClient(clobUrl, Chain.AMOY, walletOf(trader.secret), creds);
  const keys = await official.getApiKeys();
  assert.deepEqual(keys.apiKeys, [creds.key]);
  trader.credentials = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
});

test('open orders and trades read back through the official client', async () => {
  const resting = await trader.place({ tokenId: market.yes, side: 'BUY', priceUnits: 3000, sizeMicros: 10_000_000 });
  const other = await trader.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 5_000_000 });
  assert.equal(resting.status, 200, resting.text);
  const fill = await counterparty.place({ tokenId: market.no, side: 'BUY', priceUnits: 7000, sizeMicros: 5_000_000 });
  assert.equal((fill.body as Record<string, unknown>)['status'], 'matched');
  const open = await official.getOpenOrders();
  assert.deepEqual(new Set(open.map((order) => order.id)), new Set([resting.orderId, other.orderId]));
  const first = open.find((order) => order.id === resting.orderId)!;
  assert.deepEqual([first.status, first.price, first.original_size, first.size_matched, first.asset_id, first.order_type], ['LIVE', '0.3', '10', '5', market.yes, 'GTC']);
  const filtered = await official.getOpenOrders({ market: market.conditionId });
  assert.equal(filtered.length, 2);
  const trades = await official.getTrades();
  assert.equal(trades.length, 1);
  assert.deepEqual([trades[0]!.trader_side, trades[0]!.size, trades[0]!.price, trades[0]!.asset_id], ['MAKER', '5', '0.7', market.no]);
});

test('cancels one, many and all, and heartbeats', async () => {
  const a = await trader.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
  const b = await trader.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1100, sizeMicros: 5_000_000 });
  const one = await official.cancelOrder({ orderID: a.orderId }) as { canceled: string[] };
  assert.deepEqual(one.canceled, [a.orderId]);
  const many = await official.cancelOrders([b.orderId, a.orderId]) as { canceled: string[]; not_canceled: Record<string, string> };
  assert.deepEqual(many.canceled, [b.orderId]);
  assert.deepEqual(Object.keys(many.not_canceled), [a.orderId]);
  const all = await official.cancelAll() as { canceled: string[] };
  assert.equal(all.canceled.length, 2, 'the two orders of the previous test');
  assert.deepEqual(await official.getOpenOrders(), []);
  const beat = await official.postHeartbeat(null);
  assert.match(beat.heartbeat_id, /^[0-9a-f-]{36}$/);
  const next = await official.postHeartbeat(beat.heartbeat_id);
  assert.notEqual(next.heartbeat_id, beat.heartbeat_id);
});

test('deleteApiKey: the official client gets "OK", the key is refused afterwards, and a key made again works', async () => {
  assert.equal(await official.deleteApiKey(), 'OK');
  assert.deepEqual(await official.getApiKeys(), { error: 'Unauthorized/Invalid api key', status: 401 });
  const l1 = new ClobClient(clobUrl, Chain.AMOY, walletOf(trader.secret));
  const again = await l1.createOrDeriveApiKey(0);
  assert.notEqual(again.key, creds.key, 'the deleted key\'s nonce makes a new key');
  const renewed = new ClobClient(clobUrl, Chain.AMOY, walletOf(trader.secret), again);
  assert.deepEqual((await renewed.getApiKeys()).apiKeys, [again.key]);
});
