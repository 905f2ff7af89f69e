// The demo market maker: a fresh data directory starts with two-sided quotes on every open demo
// market, placed through the same signed-order path as any bot; the maker's wallet is public, so
// this test can derive its credentials and read its orders like any account.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { removeDataDir, request, startServer } from '../../support/server.js';
import { Trader } from './trader.js';

interface Row {
  assetId: string;
  price: string;
  side: string;
  market: string;
}

test('a fresh start rests three bids on both tokens of every open demo market', async () => {
  const server = await startServer({ env: { SHARDS: '2' } });
  try {
    const maker = new Trader(server.urls.clob, keccak_256(new TextEncoder().encode('clobd demo market maker')));
    const derived = await request<{ apiKey: string; secret: string; passphrase: string }>(`${server.urls.clob}/auth/derive-api-key`, { headers: maker.l1Headers() });
    assert.equal(derived.status, 200, derived.text);
    maker.credentials = derived.body;
    const orders = await maker.send<{ data: Row[]; count: number }>('GET', '/data/orders');
    const open = (await request<{ conditionId: string; acceptingOrders: boolean; closed: boolean; enableOrderBook: boolean }[]>(`${server.urls.catalog}/markets?limit=500`))
      .body.filter((m) => m.acceptingOrders && !m.closed && m.enableOrderBook);
    assert.ok(open.length >= 30);
    assert.equal(orders.body.count, open.length * 6);
    for (const market of open) {
      const rows = orders.body.data.filter((row) => row.market === market.conditionId);
      assert.equal(rows.length, 6, `quotes on ${market.conditionId}`);
      assert.equal(new Set(rows.map((row) => row.assetId)).size, 2, 'both tokens quoted');
      assert.ok(rows.every((row) => row.side === 'BUY' && Number(row.price) < 0.5));
    }
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});
