// What the replication tests share: a flood of signed orders over HTTP, the streamed journal
// read back and replayed, and the shards' own state from /admin/status.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { Command, CommandKind } from '../../engine/command.js';
import { ORDER_HISTORY_DEFAULT } from '../../engine/constants.js';
import { ShardCore } from '../../engine/shard/core.js';
import { Frame } from '../../engine/shard/frame.js';
import { replayEntry } from '../../engine/shard/recovery.js';
import { readShardJournal } from '../../http/replication/stream_reader.js';
import { request, type RunningServer } from '../support/server.js';
import { startNats, type NatsCluster } from '../support/nats.js';
import { ADMIN_TOKEN, type Trader } from '../http/orders/trader.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** The longest a flood runs. */
const FLOOD_MS_MAX = 90_000;

export interface ShardState {
  readonly stateHash: string;
  readonly seq: number;
  readonly batch: number;
}

export async function shardStates(clobUrl: string): Promise<ShardState[]> {
  const status = await request<{ shards: ShardState[] }>(`${clobUrl}/admin/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(status.status, 200, status.text);
  return status.body.shards;
}

/**
 * For a test file, at its top level: a way to start NATS (startNats's arguments) whose every
 * cluster is closed after the file's tests, whatever happened in them (a server that failed to
 * start must not leave nats-server processes holding the test run open).
 */
export function natsForFile(): (size?: 1 | 3, args?: readonly string[]) => Promise<NatsCluster> {
  const clusters: NatsCluster[] = [];
  after(async () => {
    for (const cluster of clusters) await cluster.close();
  });
  return async (size = 1, args = []) => {
    const cluster = await startNats(size, args);
    clusters.push(cluster);
    return cluster;
  };
}

/** How long a replica may take to reach the primary. */
const CATCH_UP_MS = 40_000;

/**
 * Waits until the replica's shards stand at the primary's batches with its state hashes (the
 * primary's expiry ticks move both on); fails with both, and the replica's log, after CATCH_UP_MS.
 */
export async function caughtUp(primary: RunningServer, replica: RunningServer): Promise<void> {
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const [ours, theirs] = await Promise.all([shardStates(primary.urls.clob), shardStates(replica.urls.clob)]);
    if (ours.every((state, shard) => state.batch === theirs[shard]!.batch && state.stateHash === theirs[shard]!.stateHash)) return;
    if (Date.now() > deadline) {
      assert.deepEqual(theirs, ours, `the replica reaches the primary's batches and state hashes; its log:\n${replica.output().stdout}${replica.output().stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface Replayed {
  readonly stateHash: string;
  readonly seq: number;
  /** Batches replayed (every batch from 1 to `through`, or fewer when the stream holds fewer). */
  readonly batches: number;
  /** The ids of every order the replayed batches placed. */
  readonly orderIds: ReadonlySet<string>;
}

/** Replays `stream`'s batches of `shard` up to `through` into a fresh core (the default engine options). */
export async function replayStream(natsUrls: string, stream: string, shard: number, through = Number.POSITIVE_INFINITY): Promise<Replayed> {
  // A cluster that just lost a node answers JetStream requests once it has elected new leaders.
  for (let tries = 1; ; tries++) {
    try {
      return await replayOnce(natsUrls, stream, shard, through);
    } catch (error) {
      if (tries >= 15 || !(error instanceof Error) || error.name !== 'TimeoutError') throw error;
    }
  }
}

async function replayOnce(natsUrls: string, stream: string, shard: number, through: number): Promise<Replayed> {
  const nc = await connect({ servers: natsUrls.split(',') });
  try {
    const batches = await readShardJournal(nc, stream, shard, 1);
    const core = new ShardCore({ operatorAddress: ZERO_ADDRESS, orderHistory: ORDER_HISTORY_DEFAULT, hashSeed: 1 });
    const frame = new Frame(new Command());
    const orderIds = new Set<string>();
    let count = 0;
    for (const { batch, bytes } of batches) {
      if (batch > through) break;
      replayEntry(core, bytes, batch, frame, (replayed) => {
        if (replayed.command.kind === CommandKind.PlaceOrder) orderIds.add(replayed.command.orderId);
      });
      count++;
    }
    return { stateHash: core.engine.stateHash(), seq: core.seq, batches: count, orderIds };
  } finally {
    await nc.close();
  }
}

/**
 * Checks that `stream` rebuilds every shard of the server at `clobUrl` exactly: the same state
 * hash and sequence number at the batch each shard stands at (waiting a moment for a stream
 * that trails: REPLICATION=async).
 */
export async function assertStreamRebuilds(clobUrl: string, natsUrls: string, stream: string): Promise<Replayed[]> {
  const states = await shardStates(clobUrl);
  const replays: Replayed[] = [];
  for (const [shard, state] of states.entries()) {
    let again = await replayStream(natsUrls, stream, shard, state.batch);
    for (let tries = 0; again.batches < state.batch && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await replayStream(natsUrls, stream, shard, state.batch);
    }
    assert.equal(again.batches, state.batch, `shard ${shard}: every batch up to ${state.batch} is in the stream`);
    assert.equal(again.seq, state.seq, `shard ${shard}: the same sequence number`);
    assert.equal(again.stateHash, state.stateHash, `shard ${shard}: the same state hash`);
    replays.push(again);
  }
  return replays;
}

export interface Flood {
  /** Ids of the orders answered 200. */
  readonly acknowledged: string[];
  /** Answers other than 200, by status. */
  readonly refused: Map<number, number>;
  /** Requests that got no answer (the server died under them). */
  unanswered: number;
}

/**
 * `lanes` clients each placing resting bids (1 cent, 5 shares: no fills, little collateral) on
 * `tokens` in turn until `done()` holds or their connection breaks; `onAck` sees each count of
 * acknowledgements as it grows.
 */
export async function flood(trader: Trader, tokens: readonly string[], lanes: number, done: () => boolean, onAck: (acks: number) => void = () => undefined): Promise<Flood> {
  const result: Flood = { acknowledged: [], refused: new Map(), unanswered: 0 };
  // A flood that cannot get where it goes (every order refused) ends, for the test to say why.
  const deadline = Date.now() + FLOOD_MS_MAX;
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    for (let index = lane; !done() && Date.now() < deadline; index += lanes) {
      let placed: Awaited<ReturnType<Trader['place']>>;
      try {
        placed = await trader.place({ tokenId: tokens[index % tokens.length]!, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 });
      } catch {
        result.unanswered++;
        return;
      }
      if (placed.status === 200) {
        result.acknowledged.push(placed.orderId);
        onAck(result.acknowledged.length);
      } else {
        result.refused.set(placed.status, (result.refused.get(placed.status) ?? 0) + 1);
      }
    }
  }));
  return result;
}

export type { RunningServer };
