// A replica's side of the primary's own changes (state_changes.ts): applies each, in order, to
// this server's stores, and notes in the catalog how far it got. The replication thread posts
// the changes after that note (engine/shard/journal_feed.ts FollowFrom), a bounded number ahead.
import { unpack } from 'msgpackr';
import { FEED_WORDS, type FollowFrom, type JournalEntry, type JournalFollowSetup } from '../../engine/shard/journal_feed.js';
import type { ApiKeyStore, StoredKey } from '../auth/keys.js';
import type { CatalogStore } from '../catalog/store.js';
import type { Logger } from '../log.js';
import type { ProfileStore } from '../profiles.js';
import type { Treasury } from '../trading/treasury.js';
import type { StateChange } from './state_changes.js';

export interface FollowedStores {
  readonly catalog: CatalogStore;
  readonly keys: ApiKeyStore;
  readonly treasury: Treasury;
  readonly profiles: ProfileStore;
}

export interface FollowHooks {
  /** The catalog changed: its new markets' tokens must be known to the read models. */
  catalogChanged(): Promise<void>;
  /** The primary named where trading requests go. */
  primary(url: string): void;
}

export class ChangeFollower {
  private readonly words: BigInt64Array;
  /** Changes apply one after another (a key's write is asynchronous). */
  private applying: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(private readonly setup: JournalFollowSetup, private readonly stores: FollowedStores, private readonly hooks: FollowHooks, private readonly log: Logger) {
    this.words = new BigInt64Array(setup.shared);
  }

  start(): void {
    const from = this.stores.catalog.replicated();
    Atomics.store(this.words, FEED_WORDS.ACKED, BigInt(from));
    this.setup.port.on('message', (entry: JournalEntry) => {
      this.applying = this.applying.then(() => this.apply(entry)).catch((error: unknown) => {
        // A change that does not apply stops the following (and says so): the next would build on it.
        if (!this.failed) this.log.error('replica cannot apply the primary\'s change; it stops following them', { change: entry.batch, error: error instanceof Error ? error.message : String(error) });
        this.failed = true;
      });
    });
    this.setup.port.postMessage({ type: 'from', batch: from } satisfies FollowFrom);
  }

  /** The last change applied. */
  applied(): number {
    return Number(Atomics.load(this.words, FEED_WORDS.ACKED));
  }

  stop(): void {
    this.setup.port.close();
  }

  private async apply(entry: JournalEntry): Promise<void> {
    if (this.failed || entry.batch <= this.applied()) return;
    const change = unpack(entry.bytes) as StateChange;
    const { catalog, keys, treasury, profiles } = this.stores;
    const number = entry.batch;
    switch (change.kind) {
      case 'event':
        // Created once: a replica started from the primary's backup holds it already.
        if (catalog.event(change.id) === undefined) {
          const created = catalog.createEvent(change.input);
          if (created.id !== change.id) throw new Error(`event ${change.id} of the primary was created here as ${created.id}: the catalogs differ`);
        }
        await this.hooks.catalogChanged();
        break;
      case 'import':
        catalog.importEvents(change.inputs);
        await this.hooks.catalogChanged();
        break;
      case 'flags':
        catalog.setMarketFlags(change.id, change.flags, change.nowMs);
        await this.hooks.catalogChanged();
        break;
      case 'key':
        await keys.adopt(change.apiKey, change.stored as StoredKey);
        break;
      case 'revoke':
        await keys.revoke(change.apiKey);
        break;
      case 'treasury':
        treasury.adoptChange(change);
        break;
      case 'profile':
        profiles.set(change.address, change.profile);
        break;
      case 'primary':
        this.hooks.primary(change.url);
        break;
      default:
        throw new Error(`unknown change ${(change as { kind: string }).kind}`);
    }
    catalog.noteReplicated(number);
    Atomics.store(this.words, FEED_WORDS.ACKED, BigInt(number));
    Atomics.notify(this.words, FEED_WORDS.ACKED);
  }
}
