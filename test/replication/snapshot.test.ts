// Snapshots on NATS (http/replication/snapshot.ts): a replica started late on an empty data
// directory starts from the primary's latest snapshot in the JetStream object store and reads
// the stream only after it, not from its start; a snapshot purges the shards' history before the
// previous one; the primary puts one there by itself every SNAPSHOT_INTERVAL_S.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { Objm } from '@nats-io/obj';
import { removeDataDir, request, startServer, type Response, type RunningServer } from '../support/server.js';
import { natsServerInstalled, startNats, type NatsCluster } from '../support/nats.js';
import { sumOverShards } from '../../bench/support/shard_metrics.js';
import { ADMIN_TOKEN, startTrading } from '../http/orders/trader.js';
import { run } from '../http/backup/support.js';
import { readManifest, snapshotBucket, type SnapshotManifest } from '../../http/replication/snapshot.js';
import { caughtUp, shardStates } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';
const SNAPSHOT_WAIT_MS = 40_000;
/** Resting orders before the snapshot: the history a replica starting from it does not read. */
const ORDERS_BEFORE = 40;

let nats: NatsCluster;
before(async () => {
  if (skip === false) nats = await startNats(1);
});
after(async () => {
  await nats?.close();
});

/** The sum over shards of a per-shard metric. */
async function metricSum(clobUrl: string, name: string): Promise<number> {
  const metrics = await request(`${clobUrl}/metrics`);
  assert.equal(metrics.status, 200);
  return sumOverShards(metrics.text, name).total;
}

async function manifestOn(urls: string, stream: string): Promise<SnapshotManifest | undefined> {
  const nc = await connect({ servers: urls.split(',') });
  try {
    return await readManifest(await new Objm(nc).open(snapshotBucket(stream)));
  } finally {
    await nc.close();
  }
}

test('a replica started on an empty directory starts from the primary\'s latest snapshot on NATS and reads the stream only after it; history before the previous snapshot is purged', { skip }, async () => {
  const env = { NATS: nats.urls, NATS_STREAM: 'snap', SNAPSHOT_INTERVAL_S: '0' };
  const { server: primary, markets, traders } = await startTrading([91], env);
  let replica: RunningServer | undefined;
  try {
    const trader = traders[0]!;
    const tokens = markets.flatMap((market) => [market.yes, market.no]);
    for (let index = 0; index < ORDERS_BEFORE; index++) {
      const placed = await trader.place({ tokenId: tokens[index % tokens.length]!, side: 'BUY', priceUnits: 100 * (1 + index), sizeMicros: 5_000_000 });
      assert.equal(placed.status, 200, placed.text);
    }
    const placed = await shardStates(primary.urls.clob);
    const published = await run(primary.dataDir, ['snapshot'], env);
    assert.equal(published.code, 0, published.stdout + published.stderr);
    assert.match(published.stdout, /snapshot \S+ is on NATS/);
    const manifest = await manifestOn(nats.urls, 'snap');
    assert.ok(manifest !== undefined, 'the manifest is on NATS');
    // (The shards' expiry ticks commit batches of their own meanwhile.)
    manifest.batches.forEach((batch, shard) => assert.ok(batch >= placed[shard]!.batch, `the snapshot holds shard ${shard}'s orders: batch ${batch}`));

    // A second snapshot purges the shards' history before the first from the stream.
    for (const tokenId of tokens) assert.equal((await trader.place({ tokenId, side: 'BUY', priceUnits: 900, sizeMicros: 5_000_000 })).status, 200);
    const second = await run(primary.dataDir, ['snapshot'], env);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    const purged = /(\d+) messages of the shards' history before the previous snapshot purged/.exec(second.stdout);
    assert.ok(purged !== null && Number(purged[1]) >= ORDERS_BEFORE / 2, second.stdout);
    const latest = await manifestOn(nats.urls, 'snap');
    assert.notEqual(latest?.id, manifest.id);

    // After the snapshots: a new market and an order on it, which only the stream holds.
    const created = await request<{ markets: { clobTokenIds: string }[] }>(`${primary.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'After the snapshot', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Late?' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const [lateYes] = JSON.parse(created.body.markets[0]!.clobTokenIds) as [string, string];
    assert.equal((await trader.place({ tokenId: lateYes, side: 'BUY', priceUnits: 500, sizeMicros: 5_000_000 })).status, 200);

    replica = await startServer({ args: ['follow'], env: { ADMIN_TOKEN, SHARDS: '2', LOG_LEVEL: 'info', ...env } });
    await caughtUp(primary, replica);
    const logged = replica.output().stdout + replica.output().stderr;
    assert.match(logged, new RegExp(`snapshot ${latest!.id} fetched from NATS and restored`));
    // Each subject is read from the message holding the snapshot's batch on, found by sequence.
    const starts = [...logged.matchAll(/"event":"replica follows the replicated journal".*?"subject":"([^"]+)".*?"fromSequence":(\d+)/g)];
    assert.equal(starts.length, 3, `every shard's subject and the state subject: ${logged}`);
    for (const [, subject, sequence] of starts) assert.ok(Number(sequence) > 1, `${subject} is read from sequence ${sequence}, not from its start`);
    const appended = await metricSum(primary.urls.clob, 'clobd_replication_messages_total');
    const read = await metricSum(replica.urls.clob, 'clobd_replication_messages_total');
    assert.ok(read < appended / 2, `the replica read ${read} of the ${appended} messages the primary appended`);

    for (const tokenId of [lateYes, tokens[0]!, tokens[1]!]) {
      const ours: Response = await request(`${primary.urls.clob}/book?token_id=${tokenId}`);
      const theirs: Response = await request(`${replica.urls.clob}/book?token_id=${tokenId}`);
      assert.equal(theirs.status, 200, theirs.text);
      // A book unchanged since the snapshot is stamped with the replica's start, as after a
      // restart (docs/api.md, GET /book), and its hash covers the stamp.
      const levels = (book: unknown): unknown => ({ ...(book as object), timestamp: undefined, hash: undefined });
      assert.deepEqual(tokenId === lateYes ? theirs.body : levels(theirs.body), tokenId === lateYes ? ours.body : levels(ours.body), tokenId);
    }
    trader.clobUrl = replica.urls.clob;
    const orders = await trader.send<{ data: unknown[] }>('GET', '/data/orders');
    assert.equal(orders.status, 200, orders.text);
    assert.equal(orders.body.data.length, ORDERS_BEFORE + tokens.length + 1);
  } finally {
    await replica?.stop();
    if (replica !== undefined) removeDataDir(replica.dataDir);
    await primary.stop();
    removeDataDir(primary.dataDir);
  }
});

test('the primary puts a snapshot on NATS every SNAPSHOT_INTERVAL_S by itself', { skip }, async () => {
  const env = { NATS: nats.urls, NATS_STREAM: 'scheduled', SNAPSHOT_INTERVAL_S: '1', LOG_LEVEL: 'info' };
  const { server: primary, markets, traders } = await startTrading([92], env);
  try {
    assert.equal((await traders[0]!.place({ tokenId: markets[0]!.yes, side: 'BUY', priceUnits: 300, sizeMicros: 5_000_000 })).status, 200);
    const deadline = Date.now() + SNAPSHOT_WAIT_MS;
    let manifest: SnapshotManifest | undefined;
    for (;;) {
      manifest = await manifestOn(nats.urls, 'scheduled').catch(() => undefined);
      if (manifest !== undefined && manifest.batches.some((batch) => batch > 0)) break;
      assert.ok(Date.now() < deadline, `no snapshot on NATS: ${primary.output().stdout}${primary.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(manifest.shards, 2);
    assert.ok(manifest.changes > 0, 'the keys and deposits are among the changes the snapshot holds');
    // The child writes the manifest last and then exits; the primary logs what it did once it has.
    const logged = (): string => primary.output().stdout + primary.output().stderr;
    while (!/"event":"snapshot_published"/.test(logged()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(logged(), /"event":"snapshot_published"/);
    assert.doesNotMatch(logged(), /"event":"snapshot_failed"/);
  } finally {
    await primary.stop();
    removeDataDir(primary.dataDir);
  }
});
