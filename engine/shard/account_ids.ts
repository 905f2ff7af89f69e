// A shard's numbers for the addresses that traded on it, so that its fill index by account is
// keyed by a small integer instead of a 42-character address:
//
//   accounts   address → id (1, 2, 3 … in the order the shard first stored a fill of the address)
//
// The account-fills index takes two entries per fill; with address keys an entry was ~60 bytes
// of key, with ids ~20, and the shard's durable throughput rose 3–10 % (bench/durable, 300
// accounts, interleaved runs: 73 600–78 900 → 80 000–81 400 cmd/s). The worker keeps every id in a Map (the
// engine holds a record of every account anyway); readers on other threads (the feeds) look an
// address up in the table. A new id is written in the batch's transaction, with the fills that
// first use it.
import type { Database, RootDatabase } from 'lmdb';

export function openAccounts(root: RootDatabase): Database<number, string> {
  return root.openDB<number, string>({ name: 'accounts', encoding: 'msgpack' });
}

export class AccountIds {
  private readonly ids = new Map<string, number>();
  /** Addresses given an id in the open transaction, forgotten again if it aborts. */
  private readonly uncommitted: string[] = [];

  constructor(private readonly table: Database<number, string>) {
    for (const { key, value } of table.getRange()) this.ids.set(key, value);
  }

  /** The address's id, or undefined when no fill of it is stored. */
  find(address: string): number | undefined {
    return this.ids.get(address);
  }

  /**
   * Inside the caller's write transaction: the address's id, given the next one if it has none
   * (ids stay below the engine's ACCOUNTS_MAX: only its accounts trade).
   */
  idOf(address: string): number {
    const known = this.ids.get(address);
    if (known !== undefined) return known;
    const id = this.ids.size + 1;
    this.table.putSync(address, id);
    this.ids.set(address, id);
    this.uncommitted.push(address);
    return id;
  }

  /** The transaction of the last idOf calls committed. */
  committed(): void {
    this.uncommitted.length = 0;
  }

  /** The transaction of the last idOf calls was aborted: their ids were not stored. */
  aborted(): void {
    for (const address of this.uncommitted) this.ids.delete(address);
    this.uncommitted.length = 0;
  }
}
