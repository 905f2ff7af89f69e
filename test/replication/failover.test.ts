// Failover on a real NATS JetStream with real processes: the primary killed (kill -9) during an
// order flood, and a primary paused (SIGSTOP) past its lease. The standby takes over within
// seconds; every order the old primary acknowledged is on the new one with its fills, the state
// hashes agree with the stream, and the old primary, woken, can get nothing accepted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removeDataDir, startServer, type RunningServer } from '../support/server.js';
import { natsServerInstalled } from '../support/nats.js';
import { ADMIN_TOKEN, startTrading, type Trader } from '../http/orders/trader.js';
import { assertStreamRebuilds, flood, natsForFile, shardStates } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';

const natsOf = natsForFile();
const LANES = 8;
const TAKEOVER_MS = 15_000;

/** Until the standby takes an order (503 with Retry-After until then): how long that took. */
async function firstAccepted(trader: Trader, standby: RunningServer, tokenId: string): Promise<number> {
  const started = Date.now();
  const primaryUrl = trader.clobUrl;
  trader.clobUrl = standby.urls.clob;
  try {
    for (;;) {
      const placed = await trader.place({ tokenId, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 });
      if (placed.status === 200) return Date.now() - started;
      assert.equal(placed.status, 503, placed.text);
      assert.ok(placed.headers.get('retry-after') !== null, 'a refusal during the switch says when to retry');
      if (Date.now() - started > TAKEOVER_MS) assert.fail(`the standby took no order within ${TAKEOVER_MS} ms: ${placed.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    trader.clobUrl = primaryUrl;
  }
}

/** Every order id in `ids` is known to `server` (GET /data/order/{id} as `trader`). */
async function assertOrdersKnown(trader: Trader, server: RunningServer, ids: readonly string[]): Promise<void> {
  const before = trader.clobUrl;
  trader.clobUrl = server.urls.clob;
  try {
    const missing: string[] = [];
    for (const orderId of ids) {
      const read = await trader.send('GET', `/data/order/${orderId}`);
      if (read.status !== 200) missing.push(`${orderId}: ${read.status}`);
    }
    assert.deepEqual(missing, [], 'every acknowledged order is on the new primary');
  } finally {
    trader.clobUrl = before;
  }
}

test('kill -9 of the primary during a flood: the standby takes over, with every acknowledged order and fill', { skip }, async () => {
  // The stream and the lease on three NATS nodes (R=3), as in production.
  const nats = await natsOf(3);
  const env = { NATS: nats.urls, NATS_STREAM: 'killed' };
  const { server: primary, markets, traders } = await startTrading([91, 92], env);
  let standby: RunningServer | undefined;
  try {
    standby = await startServer({ args: ['follow'], env: { ADMIN_TOKEN, SHARDS: '2', ...env } });
    const [maker, taker] = traders as [Trader, Trader];
    // Fills before the flood: the taker's trades must survive the takeover too.
    for (const [index, market] of markets.entries()) {
      assert.equal((await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000 + 100 * index, sizeMicros: 10_000_000 })).status, 200);
      assert.equal((await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 6000 - 100 * index, sizeMicros: 5_000_000, orderType: 'FOK' })).status, 200);
    }
    const tradesBefore = await taker.send<{ data: unknown[] }>('GET', '/data/trades');
    assert.equal(tradesBefore.body.data.length, markets.length);
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    let killedAt = 0;
    const result = await flood(maker, tokens, LANES, () => killedAt > 0, (acks) => {
      if (acks === 200 && killedAt === 0) {
        killedAt = Date.now();
        void primary.stop('SIGKILL');
      }
    });
    await primary.stop('SIGKILL');
    const takeoverMs = await firstAccepted(maker, standby, tokens[0]!);
    await assertOrdersKnown(maker, standby, result.acknowledged);
    taker.clobUrl = standby.urls.clob;
    const tradesAfter = await taker.send<{ data: unknown[] }>('GET', '/data/trades');
    assert.deepEqual(tradesAfter.body.data, tradesBefore.body.data, 'every fill is on the new primary');
    // The new primary's state is the stream's, batch for batch.
    await assertStreamRebuilds(standby.urls.clob, nats.urls, 'killed');
    process.stdout.write(`# takeover after kill -9: first order accepted ${takeoverMs} ms after the kill was noticed\n`);
  } finally {
    await standby?.stop();
    if (standby !== undefined) removeDataDir(standby.dataDir);
    removeDataDir(primary.dataDir);
    await nats.close();
  }
});

test('a primary paused past its lease: the standby promotes, and the old primary, woken, gets nothing accepted', { skip }, async () => {
  const nats = await natsOf(1);
  const env = { NATS: nats.urls, NATS_STREAM: 'paused' };
  const { server: primary, markets, traders } = await startTrading([93], env);
  let standby: RunningServer | undefined;
  try {
    standby = await startServer({ args: ['follow'], env: { ADMIN_TOKEN, SHARDS: '2', ...env } });
    const trader = traders[0]!;
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    for (const tokenId of tokens) assert.equal((await trader.place({ tokenId, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 })).status, 200);
    primary.process.kill('SIGSTOP');
    // Orders sent to the paused primary wait in its sockets; they are read once it wakes.
    const sentWhilePaused = tokens.map((tokenId) => trader.place({ tokenId, side: 'BUY', priceUnits: 200, sizeMicros: 5_000_000 }));
    await firstAccepted(trader, standby, tokens[0]!);
    primary.process.kill('SIGCONT');
    const answers = await Promise.all(sentWhilePaused);
    for (const answer of answers) assert.notEqual(answer.status, 200, `an order to the old primary was accepted: ${answer.text}`);
    // Nor is anything it takes after waking.
    for (const tokenId of tokens) {
      const late = await trader.place({ tokenId, side: 'BUY', priceUnits: 300, sizeMicros: 5_000_000 });
      assert.equal(late.status, 503, late.text);
    }
    // None of what the old primary took is on the new one, and the stream holds only the new primary's history.
    trader.clobUrl = standby.urls.clob;
    const open = await trader.send<{ data: { price: string }[] }>('GET', '/data/orders');
    assert.equal(open.status, 200, open.text);
    const prices = open.body.data.map((order) => order.price);
    // The 1-cent bids from before the pause, and the standby's own first one; none of 2 or 3 cents.
    assert.deepEqual(prices.filter((price) => price !== '0.01'), [], 'no order the old primary took after the pause rests on the new one');
    assert.equal(prices.length, tokens.length + 1);
    await assertStreamRebuilds(standby.urls.clob, nats.urls, 'paused');
    assert.ok((await shardStates(standby.urls.clob)).every((state) => state.batch > 0));
  } finally {
    primary.process.kill('SIGCONT');
    await primary.stop();
    await standby?.stop();
    if (standby !== undefined) removeDataDir(standby.dataDir);
    removeDataDir(primary.dataDir);
    await nats.close();
  }
});
