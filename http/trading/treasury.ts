// The treasury: every address's collateral that is not reserved by an open order in a shard.
// It lives on the front end's one thread, so funding an order needs no lock: the BUY frame
// carries exactly what the order may reserve, debited here when the frame is written, and the
// shard sweeps back whatever the order did not keep (see engine/shard/core.ts).
//
// Durable truth: external deposits − withdrawals per address (this LMDB environment,
// DATA_DIR/treasury, which also logs every deposit for the activity feed; each balance is
// stored with its checksum, data_dir/checksum.ts, checked whenever it is read) and each shard's
// netFunding table. The free balance is
//   external − Σ shards netFunding − in flight,
// rebuilt that way at start and whenever a shard restarts. `mirror` is the front end's copy of
// each shard's netFunding, kept from the answers.
import { join } from 'node:path';
import { type Database, type Key, type RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { COLLATERAL_SUPPLY_MICROS_MAX } from '../../engine/constants.js';
import { checksumOf } from '../data_dir/checksum.js';
import { DataDirDamaged, problem, type Problem } from '../data_dir/damage.js';
import { Outbox } from '../replication/outbox.js';
import type { StateChange } from '../replication/state_changes.js';

/** The treasury's directory under DATA_DIR. */
export const TREASURY_STORE = 'treasury';

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
  /** address → [micros, checksum]: deposits − withdrawals (see balanceIn). */
  private readonly external: Database<unknown, string>;
  private readonly meta: Database<unknown, string>;
  /** [address, timeMs, number] → micros. */
  private readonly deposits: Database<number, Key>;
  private depositCount: number;
  private readonly free = new Map<string, number>();
  private readonly mirror: Map<string, number>[];
  /** The treasury's changes on their way to the primary's replicated journal (nothing without one). */
  readonly outbox: Outbox;
  private externalTotal = 0;

  /**
   * Opens the treasury and reads every balance, checking each one's checksum; one that fails it
   * stops the start. `adopting`: the directory is being adopted (data_dir/directory.ts), so a
   * balance an older version wrote without a checksum is taken as it is until stampChecksums.
   */
  constructor(dataDir: string, shards: number, private adopting = false) {
    const path = join(dataDir, TREASURY_STORE);
    this.root = openDurable(path, 6);
    this.external = this.root.openDB({ name: 'external', encoding: 'msgpack' });
    this.meta = this.root.openDB({ name: 'meta', encoding: 'msgpack' });
    this.deposits = this.root.openDB({ name: 'deposits', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    this.outbox = new Outbox(this.root, 'treasury');
    this.depositCount = (this.meta.get('deposits') as number | undefined) ?? 0;
    if (this.meta.get('shards') === undefined) this.meta.putSync('shards', shards);
    this.mirror = Array.from({ length: shards }, () => new Map<string, number>());
    const problems: Problem[] = [];
    for (const { key, value } of this.external.getRange()) {
      const micros = this.balanceIn(key, value);
      if (micros === undefined) {
        problems.push(problem(TREASURY_STORE, `holds a damaged balance for ${key} (it fails its checksum)`));
        continue;
      }
      this.free.set(key, micros);
      this.externalTotal += micros;
    }
    if (problems.length > 0) {
      void this.root.close();
      throw new DataDirDamaged(dataDir, problems);
    }
  }

  /** The SHARDS a treasury records (undefined when it records none), read without opening it for trading. */
  static async recordedShards(dataDir: string): Promise<number | undefined> {
    const root = openDurable(join(dataDir, TREASURY_STORE), 6);
    try {
      return root.openDB<unknown, string>({ name: 'meta', encoding: 'msgpack' }).get('shards') as number | undefined;
    } finally {
      await root.close();
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
    const last = first + entries.length - 1;
    const balances = new Map<string, number>();
    this.outbox.commitSync(() => {
      entries.forEach(([address, micros], index) => {
        const after = this.externalOf(address) + micros;
        this.putBalance(address, after);
        balances.set(address, after);
        this.deposits.putSync([address, timeMs, first + index], micros);
      });
      this.meta.putSync('deposits', last);
    }, () => ({
      kind: 'treasury', balances: [...balances], deposits: entries.map(([address, micros], index) => [address, timeMs, first + index, micros] as const),
      depositCount: last,
    }));
    this.depositCount = last;
    for (const [address, micros] of entries) this.add(address, micros);
    this.externalTotal += total;
    return true;
  }

  /**
   * A replica: the primary's treasury change, applied so that applying it again changes nothing
   * (each balance set to its value after the change, each deposit logged under its number).
   */
  adoptChange(change: Extract<StateChange, { kind: 'treasury' }>): void {
    const deltas: [string, number][] = [];
    this.root.transactionSync(() => {
      for (const [address, micros] of change.balances) {
        deltas.push([address, micros - this.externalOf(address)]);
        this.putBalance(address, micros);
      }
      for (const [address, timeMs, number, micros] of change.deposits) this.deposits.putSync([address, timeMs, number], micros);
      if (change.depositCount > this.depositCount) this.meta.putSync('deposits', change.depositCount);
    });
    this.depositCount = Math.max(this.depositCount, change.depositCount);
    for (const [address, delta] of deltas) {
      this.add(address, delta);
      this.externalTotal += delta;
    }
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
    const after = this.externalOf(address) - micros;
    this.outbox.commitSync(() => this.putBalance(address, after), () => ({ kind: 'treasury', balances: [[address, after]], deposits: [], depositCount: this.depositCount }));
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

  /**
   * A replica (`follow`): an answer to a command of the primary's arrived. `funded` went from
   * `address`'s free collateral into the shard, as the primary took it, and `credits` came back.
   */
  follow(shard: number, address: string, funded: number, credits: readonly [string, number][]): void {
    if (funded > 0) this.add(address, -funded);
    this.settle(shard, address, funded, credits);
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

  /**
   * Adopting a directory, once it is checked: gives every balance an older version stored
   * without a checksum its checksum, in one transaction; from then on every balance needs one.
   */
  stampChecksums(): void {
    this.root.transactionSync(() => {
      for (const { key, value } of this.external.getRange()) {
        if (typeof value === 'number') this.putBalance(key, value);
      }
    });
    this.adopting = false;
  }

  async close(): Promise<void> {
    await this.outbox.close();
    await this.root.close();
  }

  /** The stored balance of `address` (0 when none); throws when it fails its checksum. */
  private externalOf(address: string): number {
    const value = this.external.get(address);
    if (value === undefined) return 0;
    const micros = this.balanceIn(address, value);
    if (micros === undefined) throw new Error(`${TREASURY_STORE} holds a damaged balance for ${address} (it fails its checksum)`);
    return micros;
  }

  /** Inside a write transaction: stores `micros` for `address` with its checksum. */
  private putBalance(address: string, micros: number): void {
    this.external.putSync(address, balanceValue(address, micros));
  }

  /** A stored balance's micros; undefined when it fails its checksum (or, unless adopting, has none). */
  private balanceIn(address: string, value: unknown): number | undefined {
    return this.adopting && typeof value === 'number' ? value : balanceIn(address, value);
  }

  private add(address: string, micros: number): void {
    addTo(this.free, address, micros);
  }
}

function balanceValue(address: string, micros: number): [number, number] {
  return [micros, checksumOf([address, micros])];
}

/** The micros a stored balance value holds, or undefined when it is not one or fails its checksum. */
function balanceIn(address: string, value: unknown): number | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [micros, checksum] = value as unknown[];
  if (typeof micros !== 'number' || !Number.isSafeInteger(micros)) return undefined;
  return checksum === checksumOf([address, micros]) ? micros : undefined;
}

function addTo(map: Map<string, number>, key: string, micros: number): void {
  const next = (map.get(key) ?? 0) + micros;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}
