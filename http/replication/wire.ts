// What the front end and the replication thread (publisher.ts) say to each other.
import type { MessagePort } from 'node:worker_threads';
import type { RingLayout } from '../../engine/ring.js';
import type { LeaseHolder } from './lease.js';
import type { NatsAuth } from '../config.js';

export interface PublisherData {
  readonly servers: readonly string[];
  readonly auth: NatsAuth;
  /** SHARDS: index `shards` names the front end's changes (state_changes.ts) wherever a shard's index goes. */
  readonly shards: number;
  readonly stream: string;
  /** NATS_REPLICAS; undefined: 3 when the server is in a cluster, 1 alone. */
  readonly replicas: number | undefined;
  readonly connectTimeoutMs: number;
  /** REPLICATION: with async, appends gather batches a moment longer (nothing waits for them). */
  readonly mode: 'sync' | 'async';
  /** A Float64Array of PUBLISH_STATS_PER_SHARD counters per shard, written by the thread. */
  readonly stats: SharedArrayBuffer;
}

/** Front end → replication thread. */
export type PublisherMessage =
  // A shard worker starts: `feed` is the worker's port for its entries, `shared` its
  // JournalFeed words (engine/shard/journal_feed.ts), `wake` its command ring (woken on acks).
  // The front end's changes attach (shard = SHARDS) without a feed or a ring: they come as 'state' messages.
  | {
    readonly type: 'attach'; readonly shard: number; readonly feed: MessagePort | undefined; readonly shared: SharedArrayBuffer;
    readonly wake: SharedArrayBuffer | undefined; readonly layout: RingLayout | undefined;
  }
  // The front end's change number `batch` (msgpack of a StateChange).
  | { readonly type: 'state'; readonly batch: number; readonly bytes: Uint8Array }
  // A replica's worker of `shard` starts: the thread posts it the primary's batches on `feed`
  // from the one after the batch it names first (engine/shard/journal_feed.ts FollowFrom).
  | { readonly type: 'follow'; readonly shard: number; readonly feed: MessagePort; readonly shared: SharedArrayBuffer }
  // The primary's lease (lease.ts): take it (a primary's start, a standby's promotion), or
  // (`watch`) say when it is free.
  | { readonly type: 'lease'; readonly holder: LeaseHolder; readonly watch: boolean }
  // Where the lease's holder listens now (written with its next renewal).
  | { readonly type: 'lease-holder'; readonly holder: LeaseHolder }
  // A standby that took the lease: claim every subject for its term (publisher.ts claimSubject).
  | { readonly type: 'claim' }
  // Appends what is in flight (for a few seconds at most), lets the lease go, then closes the connection.
  | { readonly type: 'stop' };

/** Replication thread → front end. */
export type PublisherReply =
  | { readonly type: 'ready'; readonly replicas: number; readonly messageBytesMax: number }
  | { readonly type: 'failed'; readonly message: string }
  // The stream's last batch of the shard (written to its ACKED word too).
  | { readonly type: 'attached'; readonly shard: number; readonly batch: number }
  | { readonly type: 'attach-failed'; readonly shard: number; readonly message: string }
  // The stream holds the front end's changes through number `batch` (their stores' outboxes forget them).
  | { readonly type: 'changes-appended'; readonly batch: number }
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly message: string; readonly fields: Record<string, string | number | boolean | null | undefined> }
  | { readonly type: 'stopped' }
  | { readonly type: 'lease-acquired'; readonly term: number }
  | { readonly type: 'lease-held'; readonly holder: LeaseHolder | undefined; readonly error?: string }
  | { readonly type: 'lease-lost'; readonly holder: LeaseHolder | undefined }
  // A primary that lost its lease (a NATS outage no standby used) took it again, in a new term.
  | { readonly type: 'lease-regained'; readonly term: number }
  | { readonly type: 'lease-vacant' }
  // Every subject's last batch once claimed (index SHARDS: the front end's changes).
  | { readonly type: 'claimed'; readonly batches: number[] }
  | { readonly type: 'claim-failed'; readonly message: string };

/** Counters per shard in PublisherData.stats. */
export const PUBLISH_STATS = { MESSAGES: 0, BYTES: 1, RETRIES: 2 } as const;
export const PUBLISH_STATS_PER_SHARD = 3;

/** JetStream's error codes (err_code) this code tells apart. */
export const JS_ERRORS = { NO_MESSAGE: 10037, STREAM_NOT_FOUND: 10059, WRONG_LAST_SEQUENCE: 10071 } as const;

/** A JetStream API error's err_code (JetStreamApiError.code), or undefined for any other error. */
export function apiErrorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && error.name.endsWith('Error') && typeof code === 'number' ? code : undefined;
}
