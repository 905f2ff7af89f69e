// Snapshots on NATS: where a new replica starts, so that it reads the stream from the snapshot on
// instead of from its first message (issue: a replica started late must not replay all history).
//
//   node dist/http/main.js snapshot
//     (the primary runs it every SNAPSHOT_INTERVAL_S, snapshot_schedule.ts, and an operator may
//     run it any time beside the primary) takes a backup of the primary at one cut
//     (backup/commands.ts: checked, every shard's state hash recorded), waits until the stream
//     holds every batch and change the cut holds (with REPLICATION=async it may trail), puts
//     every file of the backup in the object store `<stream>-snapshots` (JetStream, as many
//     replicas as the stream) under `<id>/<path>`, and then, last, the manifest `latest`
//     naming them: a replica reads either the previous snapshot or this one, whole. Objects of
//     snapshots before the previous one are deleted, and so is each shard's history on the stream
//     before the previous snapshot's batch: the stream holds what replicas may still need.
//
//   node dist/http/main.js follow   on a DATA_DIR that holds nothing
//     reads `latest`, fetches its files (JetStream checks each object's SHA-256 digest) into a
//     backup directory beside DATA_DIR, restores it into DATA_DIR as `restore` does (every shard
//     must recover to the state hash its backup recorded), and notes in the catalog that the
//     front end's changes through the manifest's `changes` are applied. The replica's shards then
//     follow their subjects from the batch after the snapshot's, seeking to it by sequence
//     (publisher.ts seekAfter), and its front end takes the changes up after `changes`.
import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { ConfigError, type Config, type ReplicationConfig } from '../config.js';
import { takeBackup, runRestore } from '../backup/commands.js';
import { CatalogStore } from '../catalog/store.js';
import { journalSubject, streamedBatch } from './journal_message.js';
import { stateSubject } from './state_changes.js';
import { natsOptions } from './nats_connect.js';
import { lastMessage, seekAfter } from './stream_reader.js';
import { apiErrorCode, JS_ERRORS } from './wire.js';

/** The manifest's object name: written last, it makes a snapshot the one replicas start from. */
const MANIFEST_OBJECT = 'latest';
const MANIFEST_FORMAT = 1;
/** How long the snapshot command waits for the stream to hold what its cut holds. */
const STREAM_WAIT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** Most files a snapshot may name (a backup holds a few per shard). */
const FILES_MAX = 4_096;

/** The object store's bucket of the stream `stream`. */
export function snapshotBucket(stream: string): string {
  return `${stream}-snapshots`;
}

/** What `latest` holds (JSON). */
export interface SnapshotManifest {
  readonly format: typeof MANIFEST_FORMAT;
  /** The objects' prefix: `<id>/<path>`. */
  readonly id: string;
  readonly cutAt: string;
  readonly shards: number;
  /** Each shard's batch at the cut, and the state hash its copy recovers to there. */
  readonly batches: readonly number[];
  readonly stateHashes: readonly string[];
  /** The front end's changes (state_changes.ts) the cut holds: every one through this number. */
  readonly changes: number;
  /** The backup's files, by path under its directory ('/' between names), and their sizes. */
  readonly files: readonly { readonly path: string; readonly bytes: number }[];
}

async function openNats(replication: ReplicationConfig): Promise<{ nc: NatsConnection; jsm: JetStreamManager }> {
  try {
    const nc = await connect(natsOptions(replication, 'clobd-snapshot', CONNECT_TIMEOUT_MS));
    return { nc, jsm: await jetstreamManager(nc) };
  } catch (error) {
    throw new ConfigError(`cannot use NATS at ${replication.servers.join(', ')}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The last batch (or change) the stream holds on `subject`; 0 when it holds none. */
async function streamHolds(jsm: JetStreamManager, stream: string, subject: string): Promise<number> {
  const last = await lastMessage(jsm, stream, subject);
  return last === undefined ? 0 : streamedBatch(last.header, subject);
}

/** Every regular file under `dir`, by path relative to it with '/' between names. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  if (found.length > FILES_MAX) throw new Error(`${dir} holds ${found.length} files, more than a snapshot takes (${FILES_MAX})`);
  return found.sort();
}

/** The snapshot command (see the file comment); resolves with its report. */
export async function publishSnapshot(config: Config): Promise<string> {
  const replication = config.replication;
  if (replication === undefined) throw new ConfigError('usage: snapshot --nats nats://host:port[,...] (beside the primary, on its DATA_DIR)');
  const started = performance.now();
  const target = resolve(`${config.dataDir}.snapshot-${randomBytes(4).toString('hex')}`);
  // Stopped (the server's schedule stops it when the server stops): nothing is left behind.
  const onSignal = (): void => {
    rmSync(target, { recursive: true, force: true });
    process.exit(1);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    const taken = await takeBackup(config, target, () => undefined);
    const changes = taken.copy.changes;
    if (changes === undefined) throw new ConfigError(`the server on ${config.dataDir} is not the primary of a replicated journal: take snapshots beside the primary`);
    const batches = taken.section.shards.map((shard) => shard.batch);
    const { nc, jsm } = await openNats(replication);
    try {
      // A replica starting from the snapshot must find every later batch on the stream, and its
      // state must never be ahead of the stream's (the stream is what a standby takes over with).
      const subjects = [...batches.map((batch, shard) => [journalSubject(replication.stream, shard), batch] as const), [stateSubject(replication.stream), changes] as const];
      const deadline = Date.now() + STREAM_WAIT_MS;
      for (const [subject, wanted] of subjects) {
        while (await streamHolds(jsm, replication.stream, subject) < wanted) {
          if (Date.now() > deadline) throw new Error(`the stream ${replication.stream} does not hold ${subject} through ${wanted} after ${STREAM_WAIT_MS / 1000} s`);
          await new Promise((wake) => setTimeout(wake, 100));
        }
      }
      const info = await jsm.streams.info(replication.stream);
      const store = await new Objm(nc).create(snapshotBucket(replication.stream), {
        replicas: info.config.num_replicas, storage: StorageType.File, description: `clobd snapshots of the stream ${replication.stream}`,
      });
      const previous = await readManifest(store);
      const id = `${taken.copy.cutAt.replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
      const files = filesUnder(target).map((path) => ({ path, bytes: statSync(join(target, path)).size }));
      for (const { path } of files) {
        await store.put({ name: `${id}/${path}` }, Readable.toWeb(createReadStream(join(target, path))) as ReadableStream<Uint8Array>);
      }
      const manifest: SnapshotManifest = {
        format: MANIFEST_FORMAT, id, cutAt: taken.copy.cutAt, shards: config.shards, batches,
        stateHashes: taken.section.shards.map((shard) => shard.stateHash), changes, files,
      };
      await store.putBlob({ name: MANIFEST_OBJECT }, new TextEncoder().encode(JSON.stringify(manifest)));
      // The previous snapshot stays: a replica may be fetching it now.
      const keep = new Set([id, previous?.id]);
      let deleted = 0;
      for (const object of await store.list()) {
        const prefix = object.name.split('/')[0]!;
        if (object.name === MANIFEST_OBJECT || object.deleted || keep.has(prefix)) continue;
        await store.delete(object.name);
        deleted++;
      }
      const purged = previous === undefined ? 0 : await purgeBefore(jsm, replication.stream, previous);
      const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
      return [
        `snapshot ${id} is on NATS (${((performance.now() - started) / 1000).toFixed(1)} s): bucket ${snapshotBucket(replication.stream)}, ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB`,
        `  cut: ${taken.copy.cutAt}; batches ${batches.join(', ')}; the front end's changes through ${changes}`,
        `  ${deleted} objects of older snapshots deleted; ${purged} messages of the shards' history before the previous snapshot purged from the stream`,
      ].join('\n');
    } finally {
      await nc.close();
    }
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    rmSync(target, { recursive: true, force: true });
  }
}

/**
 * Purges each shard's messages before the one holding the batch `previous` (the snapshot kept
 * beside the new one) stands at: no replica starting from a snapshot needs them any more. The
 * front end's changes are kept whole (they are few). Returns how many messages went.
 */
async function purgeBefore(jsm: JetStreamManager, stream: string, previous: SnapshotManifest): Promise<number> {
  let purged = 0;
  for (const [shard, batch] of previous.batches.entries()) {
    const subject = journalSubject(stream, shard);
    const seq = await seekAfter(jsm, stream, subject, batch);
    if (seq > 1) purged += (await jsm.streams.purge(stream, { filter: subject, seq })).purged;
  }
  return purged;
}

/** The manifest `latest`, or undefined when the bucket holds none. */
export async function readManifest(store: ObjectStore): Promise<SnapshotManifest | undefined> {
  const bytes = await store.getBlob(MANIFEST_OBJECT);
  if (bytes === null) return undefined;
  const manifest = JSON.parse(new TextDecoder().decode(bytes)) as SnapshotManifest;
  if (manifest.format !== MANIFEST_FORMAT) throw new ConfigError(`the snapshot manifest on NATS is of format ${String(manifest.format)}; this clobd reads ${MANIFEST_FORMAT}`);
  return manifest;
}

/**
 * A replica's start on a DATA_DIR that holds nothing (see the file comment): restores the latest
 * snapshot into it and resolves with the report, or with undefined when NATS holds none (the
 * replica then reads the stream from its start).
 */
export async function fetchSnapshot(config: Config): Promise<string | undefined> {
  const replication = config.replication;
  if (replication === undefined) return undefined;
  const { nc } = await openNats(replication);
  const started = performance.now();
  const download = resolve(`${config.dataDir}.snapshot-${randomBytes(4).toString('hex')}`);
  try {
    let store: ObjectStore;
    try {
      store = await new Objm(nc).open(snapshotBucket(replication.stream));
    } catch (error) {
      if (apiErrorCode(error) === JS_ERRORS.STREAM_NOT_FOUND || /not found/i.test(String(error))) return undefined;
      throw error;
    }
    const manifest = await readManifest(store);
    if (manifest === undefined) return undefined;
    if (manifest.shards !== config.shards) {
      throw new ConfigError(`the primary runs SHARDS=${manifest.shards} (its snapshot on NATS says so); a replica must run as many, not ${config.shards}`);
    }
    for (const { path } of manifest.files) {
      const to = join(download, ...path.split('/'));
      if (!to.startsWith(download + sep)) throw new Error(`the snapshot names a file outside its directory: ${path}`);
      mkdirSync(dirname(to), { recursive: true });
      const object = await store.get(`${manifest.id}/${path}`);
      if (object === null) throw new Error(`the snapshot ${manifest.id} lacks ${path} (a newer one replaced it meanwhile: start again)`);
      const file = createWriteStream(to);
      for await (const chunk of object.data) {
        if (!file.write(chunk)) await once(file, 'drain');
      }
      file.end();
      await once(file, 'finish');
      const failed = await object.error;
      if (failed instanceof Error) throw new Error(`fetching ${path} of the snapshot ${manifest.id} failed: ${failed.message}`);
    }
    // Not synced: restore copies the files into DATA_DIR, durably, and checks them there.
    const restored = await runRestore(config, download, config.dataDir);
    // The catalog copied at the cut holds every change through `changes`: the replica's front
    // end takes them up after it (state_follower.ts), and changes it holds apply again harmlessly.
    const catalog = CatalogStore.open(config.dataDir);
    try {
      catalog.noteReplicated(manifest.changes);
    } finally {
      await catalog.close();
    }
    return [
      `snapshot ${manifest.id} fetched from NATS and restored (${((performance.now() - started) / 1000).toFixed(1)} s): cut ${manifest.cutAt}, batches ${manifest.batches.join(', ')}, changes through ${manifest.changes}`,
      restored,
    ].join('\n');
  } finally {
    rmSync(download, { recursive: true, force: true });
    await nc.close();
  }
}
