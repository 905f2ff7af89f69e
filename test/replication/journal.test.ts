// The replicated journal on a real NATS JetStream (nats-server, JetStream on, loopback): the
// primary appends every committed batch of every shard, in order and without gaps, and what the
// stream holds rebuilds each shard's state exactly (the same state hash at the same batch).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Command } from '../../engine/command.js';
import { ORDER_HISTORY_DEFAULT } from '../../engine/constants.js';
import { ShardCore } from '../../engine/shard/core.js';
import { Frame } from '../../engine/shard/frame.js';
import { replayEntry } from '../../engine/shard/recovery.js';
import { readShardJournal } from '../../http/replication/stream_reader.js';
import { removeDataDir, request, type RunningServer } from '../support/server.js';
import { natsServerInstalled, startNats, type NatsCluster } from '../support/nats.js';
import { ADMIN_TOKEN, startTrading, type Trader } from '../http/orders/trader.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

interface ShardState {
  readonly stateHash: string;
  readonly seq: number;
  readonly batch: number;
}

async function statuses(server: RunningServer): Promise<ShardState[]> {
  const status = await request<{ shards: ShardState[] }>(`${server.urls.clob}/admin/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(status.status, 200, status.text);
  return status.body.shards;
}

/** Crossing orders on every market: fills, rests and cancels in both shards. */
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
    const stream = `clobd${mode}`;
    const { server, markets, traders } = await startTrading([61, 62], { NATS: nats.urls, REPLICATION: mode, NATS_STREAM: stream });
    const nc = await connect({ servers: nats.urls });
    try {
      const [maker, taker] = traders as [Trader, Trader];
      await trade(maker, taker, markets);
      const shards = await statuses(server);
      assert.equal(shards.length, 2);
      for (const [shard, state] of shards.entries()) {
        // Async: the stream may trail the disk by a moment.
        let again = await replayedFrom(nc, stream, shard, state.batch);
        for (let tries = 0; again.batches < state.batch && tries < 50; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          again = await replayedFrom(nc, stream, shard, state.batch);
        }
        assert.equal(again.batches, state.batch, `shard ${shard}: every batch up to ${state.batch} is in the stream`);
        assert.equal(again.seq, state.seq, `shard ${shard}: the same sequence number`);
        assert.equal(again.stateHash, state.stateHash, `shard ${shard}: the same state hash`);
      }
    } finally {
      await nc.close();
      await server.stop();
      removeDataDir(server.dataDir);
    }
  });
}

/** Replays `stream`'s batches of `shard` up to `through` into a fresh core: its state hash and sequence number there. */
async function replayedFrom(nc: NatsConnection, stream: string, shard: number, through: number): Promise<{ stateHash: string; seq: number; batches: number }> {
  const batches = await readShardJournal(nc, stream, shard, 1);
  const core = new ShardCore({ operatorAddress: ZERO_ADDRESS, orderHistory: ORDER_HISTORY_DEFAULT, hashSeed: 1 });
  const frame = new Frame(new Command());
  let count = 0;
  for (const { batch, bytes } of batches) {
    if (batch > through) break;
    replayEntry(core, bytes, batch, frame);
    count++;
  }
  return { stateHash: core.engine.stateHash(), seq: core.seq, batches: count };
}
