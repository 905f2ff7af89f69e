// Serialized responses keyed by request (listener, path and raw query: router.ts), each stamped with the version of
// the data it was built from. A write bumps the version, so stale entries are never served; they
// are replaced on the next read. Bounded by entries and bytes: the oldest entries go first.
import type { Validity } from './market/book_versions.js';

export interface CachedAnswer {
  readonly version: number;
  readonly body: Buffer;
  /** What a front-end thread may keep the answer by (respond.ts Reply.validity), as the answer was built. */
  readonly validity: Validity | undefined;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(
    private readonly entriesMax: number,
    private readonly bytesMax: number,
  ) {
    if (!(entriesMax > 0 && bytesMax > 0)) throw new Error('ResponseCache bounds must be positive');
  }

  get(key: string, version: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.version !== version) return undefined;
    return entry;
  }

  set(key: string, version: number, body: Buffer, validity?: Validity): void {
    if (body.length > this.bytesMax / 16) return;
    this.delete(key);
    while (this.entries.size >= this.entriesMax || this.bytes + body.length > this.bytesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, { version, body, validity });
    this.bytes += body.length;
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
