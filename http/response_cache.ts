// Serialized responses keyed by request (path and raw query), each stamped with the version of
// the data it was built from. A write bumps the version, so stale entries are never served; they
// are replaced on the next read. Bounded by entries and bytes: the oldest entries go first.

interface Entry {
  readonly version: number;
  readonly body: Buffer;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly entriesMax: number,
    private readonly bytesMax: number,
  ) {
    if (!(entriesMax > 0 && bytesMax > 0)) throw new Error('ResponseCache bounds must be positive');
  }

  get(key: string, version: number): Buffer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.version !== version) return undefined;
    return entry.body;
  }

  set(key: string, version: number, body: Buffer): void {
    if (body.length > this.bytesMax / 16) return;
    this.delete(key);
    while (this.entries.size >= this.entriesMax || this.bytes + body.length > this.bytesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, { version, body });
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
