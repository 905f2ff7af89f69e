// The API keys in use, decoded, so an L2 check does not read and decode the stored key every time.
// Bounded: at most `entriesMax` keys, the one used longest ago goes first (a Map keeps insertion
// order, and a hit moves its key to the end). A client cycling through many keys, or one key per
// fresh wallet, therefore costs the others at most a re-read from LMDB (a few µs), never memory.
// Unknown keys are never cached, so guessing keys fills nothing. Counters are for the operator's
// metrics.
import type { ApiKeyRecord } from './l2.js';

/** Keys kept by default (KEY_CACHE_ENTRIES): about 0.5 KB each, so ~8 MB when full. */
export const KEY_CACHE_ENTRIES_DEFAULT = 16_384;
/** The largest KEY_CACHE_ENTRIES accepted (~8 GB when full: a typo, not a setting). */
export const KEY_CACHE_ENTRIES_LIMIT = 16_777_216;

export class KeyCache {
  private readonly entries = new Map<string, ApiKeyRecord>();
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(readonly entriesMax: number) {
    if (!(Number.isInteger(entriesMax) && entriesMax >= 1 && entriesMax <= KEY_CACHE_ENTRIES_LIMIT)) {
      throw new RangeError(`key cache entries must be an integer from 1 to ${KEY_CACHE_ENTRIES_LIMIT}`);
    }
  }

  get(apiKey: string): ApiKeyRecord | undefined {
    const record = this.entries.get(apiKey);
    if (record === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // The most recently used go last; the first is the one to evict.
    this.entries.delete(apiKey);
    this.entries.set(apiKey, record);
    return record;
  }

  set(record: ApiKeyRecord): void {
    this.entries.delete(record.apiKey);
    if (this.entries.size >= this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) {
        this.entries.delete(oldest.value);
        this.evictions++;
      }
    }
    this.entries.set(record.apiKey, record);
  }

  delete(apiKey: string): void {
    this.entries.delete(apiKey);
  }

  get size(): number {
    return this.entries.size;
  }
}
