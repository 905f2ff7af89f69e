// The treasury: every address's collateral that is not reserved by an open order in a shard.
// It lives on the front end's one thread, so funding an order needs no lock: the BUY frame
// carries exactly what the order may reserve, debited here when the frame is written, and the
// shard sweeps back whatever the order did not keep (see engine/shard/core.ts).
//
// Durable truth: external deposits − withdrawals per address (this LMDB environment,
// DATA_DIR/treasury, which also logs every deposit for the activity feed) and each shard's
// netFunding table. The free balance is
//   external − Σ shards netFunding − in flight,
// rebuilt that way at start and whenever a shard restarts. `mirror` is the front end's copy of
// each shard's netFunding, kept from the answers.
import { join } from 'node:path';
import { type Database, type Key, type RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { COLLATERAL_SUPPLY_MICROS_MAX } from '../../engine/constants.js';

/** One external deposit, as the activity feed shows it. */
export interface DepositRecord {
  readonly address: string;
  readonly timeMs: number;
  /** The deposit's number among all deposits (1, 2, ...): its identity. */
  readonly number: number;
  readonly micros: number;
}

export class Treasury {
  private readonly root: RootDatabase;
  private readonly external: Database<number, string>;
  private readonly meta: Database<unknown, string>;
  /** [address, timeMs, number] → micros. */
  private readonly deposits: Database<number, Key>;
  private depositCount: number;
  private readonly free = new Map<string, number>();
  private readonly mirror: Map<string, number>[];
  private externalTotal = 0;

  constructor(dataDir: string, shards: number) {
    const path = join(dataDir, 'treasury');
    this.root = openDurable(path, 6);
    this.external = this.root.openDB({ name: 'external', encoding: 'msgpack' });
    this.meta = this.root.openDB({ name: 'meta', encoding: 'msgpack' });
    this.deposits = this.root.openDB({ name: 'deposits', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    this.depositCount = (this.meta.get('deposits') as number | undefined) ?? 0;
    const recorded = this.meta.get('shards') as number | undefined;
    if (recorded !== undefined && recorded !== shards) {
      void this.root.close();
      throw new Error(`DATA_DIR was written with SHARDS=${recorded}; markets are mapped to shards by that number, so start with SHARDS=${recorded}`);
    }
    if (recorded === undefined) this.meta.putSync('shards', shards);
    this.mirror = Array.from({ length: shards }, () => new Map<string, number>());
    for (const { key, value } of this.external.getRange()) {
      this.free.set(key, value);
      this.externalTotal += value;
    }
  }

  /** Free collateral of `address` (micros). */
  freeOf(address: string): number {
    return this.free.get(address) ?? 0;
  }

  /** Sum of external deposits − withdrawals: what all collateral in the exchange must add to. */
  totalExternal(): number {
    return this.externalTotal;
  }

  /** Sum of every free balance held here. */
  totalFree(): number {
    let total = 0;
    for (const micros of this.free.values()) total += micros;
    return total;
  }

  /** Records an external deposit (and its log entry) durably; false when it would pass the collateral cap. */
  deposit(address: string, micros: number, timeMs: number): boolean {
    return this.depositMany([[address, micros]], timeMs);
  }

  /**
   * Records several external deposits in one durable transaction (one sync for all: funding many
   * accounts at once); all or none, false when together they would pass the collateral cap.
   */
  depositMany(entries: readonly (readonly [address: string, micros: number])[], timeMs: number): boolean {
    const total = entries.reduce((sum, [, micros]) => sum + micros, 0);
    if (this.externalTotal + total > COLLATERAL_SUPPLY_MICROS_MAX) return false;
    const first = this.depositCount + 1;
    this.root.transactionSync(() => {
      entries.forEach(([address, micros], index) => {
        this.external.putSync(address, (this.external.get(address) ?? 0) + micros);
        this.deposits.putSync([address, timeMs, first + index], micros);
      });
      this.meta.putSync('deposits', first + entries.length - 1);
    });
    this.depositCount = first + entries.length - 1;
    for (const [address, micros] of entries) this.add(address, micros);
    this.externalTotal += total;
    return true;
  }

  /** The address's deposits, newest first, at most `count`. */
  depositsOf(address: string, count: number): DepositRecord[] {
    const range = this.deposits.getRange({ start: [address, Number.MAX_SAFE_INTEGER], end: [address], reverse: true, limit: count });
    return [...range.map(({ key, value }) => {
      const [, timeMs, number] = key as [string, number, number];
      return { address, timeMs, number, micros: value };
    })];
  }

  /** Records a withdrawal durably; false when the free balance is short. */
  withdraw(address: string, micros: number): boolean {
    if (this.freeOf(address) < micros) return false;
    this.root.transactionSync(() => this.external.putSync(address, (this.external.get(address) ?? 0) - micros));
    this.add(address, -micros);
    this.externalTotal -= micros;
    return true;
  }

  /** Takes up to `micros` for a BUY frame; returns what it took. */
  take(address: string, micros: number): number {
    const taken = Math.min(micros, this.freeOf(address));
    if (taken > 0) this.add(address, -taken);
    return taken;
  }

  /** An answer arrived: `funded` went into the shard, `credits` came back. */
  settle(shard: number, address: string, funded: number, credits: readonly [string, number][]): void {
    const mirror = this.mirror[shard]!;
    if (funded > 0) addTo(mirror, address, funded);
    for (const [credited, micros] of credits) {
      this.add(credited, micros);
      addTo(mirror, credited, -micros);
    }
  }

  /** A frame that never got an answer (its shard died): its funds count as not sent. */
  refund(address: string, micros: number): void {
    if (micros > 0) this.add(address, micros);
  }

  /** A shard (re)started with this netFunding table: anything it did unseen comes out here. */
  adopt(shard: number, netFunding: readonly [string, number][]): void {
    const mirror = this.mirror[shard]!;
    for (const [address, micros] of mirror) this.add(address, micros);
    mirror.clear();
    for (const [address, micros] of netFunding) {
      mirror.set(address, micros);
      this.add(address, -micros);
    }
  }

  close(): Promise<void> {
    return this.root.close();
  }

  private add(address: string, micros: number): void {
    addTo(this.free, address, micros);
  }
}

function addTo(map: Map<string, number>, key: string, micros: number): void {
  const next = (map.get(key) ?? 0) + micros;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}
