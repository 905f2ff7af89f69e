// The replicated journal on a real NATS JetStream (nats-server, JetStream on, loopback): the
// primary appends every committed batch of every shard, in order and without gaps, and what the
// stream holds rebuilds each shard's state exactly (the same state hash at the same batch).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeDataDir } from '../support/server.js';
import { natsServerInstalled, startNats, type NatsCluster } from '../support/nats.js';
import { startTrading, type Trader } from '../http/orders/trader.js';
import { assertStreamRebuilds } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';

/** Crossing orders on every market: fills, rests and cancels in both shards; the ids acknowledged. */
async function trade(maker: Trader, taker: Trader, markets: readonly { yes: string; no: string }[]): Promise<string[]> {
  const acknowledged: string[] = [];
  for (const [index, market] of markets.entries()) {
    const bid = await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000 + 100 * index, sizeMicros: 10_000_000 });
    assert.equal(bid.status, 200, bid.text);
    const hit = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 6000 - 100 * index, sizeMicros: 5_000_000, orderType: 'FOK' });
    assert.equal(hit.status, 200, hit.text);
    const rest = await maker.place({ tokenId: market.no, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
    assert.equal(rest.status, 200, rest.text);
    const cancelled = await maker.send('DELETE', '/order', { orderID: rest.orderId });
    assert.equal(cancelled.status, 200, cancelled.text);
    acknowledged.push(bid.orderId, hit.orderId, rest.orderId);
  }
  return acknowledged;
}

let nats: NatsCluster;
before(async () => {
  if (skip === false) nats = await startNats(1);
});
after(async () => {
  await nats?.close();
});

for (const mode of ['sync', 'async'] as const) {
  test(`REPLICATION=${mode}: the stream holds every committed batch, and replaying it gives each shard's state hash`, { skip }, async () => {
    const stream = `journal${mode}`;
    const { server, markets, traders } = await startTrading([61, 62], { NATS: nats.urls, REPLICATION: mode, NATS_STREAM: stream });
    try {
      const [maker, taker] = traders as [Trader, Trader];
      const acknowledged = await trade(maker, taker, markets);
      const replays = await assertStreamRebuilds(server.urls.clob, nats.urls, stream);
      for (const orderId of acknowledged) assert.ok(replays.some((replay) => replay.orderIds.has(orderId)), `${orderId} is in the stream`);
    } finally {
      await server.stop();
      removeDataDir(server.dataDir);
    }
  });
}
