// The front end's own changes on the replicated journal: what the catalog, the API keys, the
// treasury's external balances and the profiles commit outside the shards, one message per
// change, in commit order, on the subject `<stream>.state` (a subject like a shard's, its
// "batches" numbered 1, 2, ... by change). A replica applies each to its own stores.
//
// Each change carries what the primary's store holds after it, not the request that made it
// (a new key's id and secret, a balance's new value, a new event's id), so applying one twice
// changes nothing: a replica that stops between a change and the note of how far it got, or
// that starts from a backup of the primary, applies changes it holds again, safely.
import type { EventInput } from '../catalog/ingest.js';

/** The subject the front end's changes go to. */
export function stateSubject(stream: string): string {
  return `${stream}.state`;
}

/** An API key as the key store holds it (auth/keys.ts). */
export interface StoredKeyChange {
  readonly address: string;
  readonly nonce: string;
  readonly secret: string;
  readonly passphrase: string;
  readonly createdAtMs: number;
  readonly check: number;
}

export type StateChange =
  // The catalog (catalog/store.ts): the input as the admin API gave it (ids follow from the
  // catalog's state), and the event's id (a replica that holds it already, from a backup, skips it).
  | { readonly kind: 'event'; readonly input: EventInput; readonly id: number }
  | { readonly kind: 'import'; readonly inputs: readonly EventInput[] }
  | { readonly kind: 'flags'; readonly id: number; readonly flags: { readonly acceptingOrders?: boolean; readonly closed?: boolean }; readonly nowMs: number }
  // An API key made, or revoked.
  | { readonly kind: 'key'; readonly apiKey: string; readonly stored: StoredKeyChange }
  | { readonly kind: 'revoke'; readonly apiKey: string }
  // The treasury: external balances after the change, the deposits it logged, and their count.
  | {
    readonly kind: 'treasury'; readonly balances: readonly (readonly [address: string, micros: number])[];
    readonly deposits: readonly (readonly [address: string, timeMs: number, number: number, micros: number])[]; readonly depositCount: number;
  }
  | { readonly kind: 'profile'; readonly address: string; readonly profile: Readonly<Record<string, string>> }
  // Who the primary is: where trading requests go (a replica names it).
  | { readonly kind: 'primary'; readonly url: string };

/** Where a store tells its committed changes (the primary's state journal); undefined on a replica and without NATS. */
export interface ChangeLog {
  /**
   * Sends a committed change to the stream. `appended`, when given, runs once the stream holds
   * it (a store's outbox forgets it then, outbox.ts); a failure it resolves with is logged.
   */
  record(change: StateChange, appended?: () => Promise<void> | undefined): void;
}
