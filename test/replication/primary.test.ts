// A primary on a replicated journal under failure, with real processes: kill -9 of the primary
// in the middle of a flood (REPLICATION=sync: every order acknowledged is in the stream, and a
// restart on the same data directory sends the stream what it missed, with no gap); a NATS node
// killed in the middle of a flood with the stream on three nodes (clients see nothing but 200);
// and another server appending to a shard's subject (this one stops answering for it, 503).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { journalSubject } from '../../http/replication/journal_message.js';
import { removeDataDir, startServer } from '../support/server.js';
import { natsServerInstalled } from '../support/nats.js';
import { ADMIN_TOKEN, startTrading } from '../http/orders/trader.js';
import { assertStreamRebuilds, flood, natsForFile, replayStream } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';

const natsOf = natsForFile();
const LANES = 8;

test('kill -9 of the primary mid-flood: every acknowledged order is in the stream, and a restart fills in what it missed', { skip }, async () => {
  const nats = await natsOf(1);
  const env = { NATS: nats.urls, REPLICATION: 'sync', NATS_STREAM: 'crash' };
  const { server, markets, traders } = await startTrading([71], env);
  try {
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    let killed = false;
    const result = await flood(traders[0]!, tokens, LANES, () => killed, (acks) => {
      if (acks === 150 && !killed) {
        killed = true;
        void server.stop('SIGKILL');
      }
    });
    await server.stop('SIGKILL');
    assert.ok(result.acknowledged.length >= 150, `${result.acknowledged.length} acknowledged before the kill`);
    const streamed = new Set<string>();
    for (const shard of [0, 1]) for (const orderId of (await replayStream(nats.urls, 'crash', shard)).orderIds) streamed.add(orderId);
    const missing = result.acknowledged.filter((orderId) => !streamed.has(orderId));
    assert.deepEqual(missing, [], 'every order acknowledged before the kill is in the stream');

    const restarted = await startServer({ dataDir: server.dataDir, env: { ADMIN_TOKEN, SHARDS: '2', ...env } });
    try {
      await assertStreamRebuilds(restarted.urls.clob, nats.urls, 'crash');
    } finally {
      await restarted.stop();
    }
  } finally {
    removeDataDir(server.dataDir);
    await nats.close();
  }
});

test('a NATS node killed mid-flood changes nothing for clients with the stream on three nodes', { skip }, async () => {
  const nats = await natsOf(3);
  const { server, markets, traders } = await startTrading([72], { NATS: nats.urls, REPLICATION: 'sync', NATS_STREAM: 'cluster' });
  try {
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    let acks = 0;
    let nodeKilled: Promise<void> | undefined;
    const result = await flood(traders[0]!, tokens, LANES, () => acks >= 600, (count) => {
      acks = count;
      if (count === 150) nodeKilled = nats.nodes[0]!.kill();
    });
    await nodeKilled;
    assert.deepEqual([...result.refused], [], 'no order refused');
    assert.equal(result.unanswered, 0);
    assert.ok(result.acknowledged.length >= 600);
    const replays = await assertStreamRebuilds(server.urls.clob, nats.nodes.slice(1).map((node) => node.url).join(','), 'cluster');
    const streamed = new Set(replays.flatMap((replay) => [...replay.orderIds]));
    assert.deepEqual(result.acknowledged.filter((orderId) => !streamed.has(orderId)), [], 'every acknowledged order is in the stream');
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    await nats.close();
  }
});

test('another server appending to the shards\' subjects fences this one: its orders are refused, none acknowledged', { skip }, async () => {
  const nats = await natsOf(1);
  const { server, markets, traders } = await startTrading([73], { NATS: nats.urls, REPLICATION: 'sync', NATS_STREAM: 'fence' });
  try {
    const trader = traders[0]!;
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    for (const tokenId of tokens) assert.equal((await trader.place({ tokenId, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 })).status, 200);
    // The other server: a message of its own at the end of every shard's subject.
    const nc = await connect({ servers: nats.urls });
    const js = jetstream(nc);
    for (const shard of [0, 1]) await js.publish(journalSubject('fence', shard), new Uint8Array(0));
    await nc.close();
    for (const tokenId of tokens) {
      const placed = await trader.place({ tokenId, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 });
      assert.equal(placed.status, 503, `${placed.status} ${placed.text}`);
      assert.match(placed.text, /replicated journal|restarting|primary/);
    }
    const metrics = await fetch(`${server.urls.clob}/metrics`).then((response) => response.text());
    assert.match(metrics, /clobd_replication_fenced\{shard="0"\} 1/);
    assert.match(metrics, /clobd_replication_fenced\{shard="1"\} 1/);
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    await nats.close();
  }
});
