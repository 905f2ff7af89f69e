// Positions: an account's shares of both outcome tokens of one market, free and reserved (by
// its open SELL orders). A position is created when the account places its first order in the
// market, before anything changes, so a fill never needs a position that cannot be created. It
// is linked into its account's list (for balance reads) and its market's list (resolution pays
// every holder), and freed when its market resolves.
import { assert } from '../assert.js';
import { NIL } from '../market/ladder.js';
import { PairTable } from './pair_table.js';
import { grownFloat64, grownInt32, nextCapacity } from '../grow.js';
import type { Accounts } from './accounts.js';

const INITIAL_CAPACITY = 256;

export class Positions {
  readonly positionsMax: number;
  private readonly table: PairTable;
  account: Int32Array;
  market: Int32Array;
  /** Shares by position × 2 + outcome. */
  sharesFree: Float64Array;
  sharesReserved: Float64Array;
  /** Dirty-list stamps by position × 2 + outcome. */
  sharesStamp: Float64Array;
  accountNext: Int32Array;
  accountPrev: Int32Array;
  marketNext: Int32Array;
  marketPrev: Int32Array;
  readonly marketHead: Int32Array;
  private freeHead = NIL;
  private highWater = 0;
  private used = 0;

  constructor(positionsMax: number, marketsMax: number) {
    assert(Number.isInteger(positionsMax) && positionsMax > 0, 'positions max');
    this.positionsMax = positionsMax;
    const capacity = Math.min(INITIAL_CAPACITY, positionsMax);
    this.table = new PairTable(2 * capacity);
    this.account = new Int32Array(capacity);
    this.market = new Int32Array(capacity);
    this.sharesFree = new Float64Array(2 * capacity);
    this.sharesReserved = new Float64Array(2 * capacity);
    this.sharesStamp = new Float64Array(2 * capacity);
    this.accountNext = new Int32Array(capacity).fill(NIL);
    this.accountPrev = new Int32Array(capacity).fill(NIL);
    this.marketNext = new Int32Array(capacity).fill(NIL);
    this.marketPrev = new Int32Array(capacity).fill(NIL);
    this.marketHead = new Int32Array(marketsMax).fill(NIL);
  }

  count(): number {
    return this.used;
  }

  /** The position of (account, market), or -1. */
  find(account: number, market: number): number {
    return this.table.get(account, market);
  }

  /** The position of (account, market), created empty if needed; -1 when the table is full. */
  findOrCreate(account: number, market: number, accounts: Accounts): number {
    const known = this.table.get(account, market);
    if (known !== -1) return known;
    const position = this.allocate();
    if (position === NIL) return -1;
    this.account[position] = account;
    this.market[position] = market;
    this.table.insert(account, market, position);
    this.linkAccount(position, accounts);
    this.linkMarket(position);
    return position;
  }

  /** Frees an empty position (after its market resolved). */
  remove(position: number, accounts: Accounts): void {
    for (let outcome = 0; outcome < 2; outcome += 1) {
      assert(this.sharesFree[2 * position + outcome] === 0, 'remove: no free shares left');
      assert(this.sharesReserved[2 * position + outcome] === 0, 'remove: no reserved shares left');
    }
    this.table.delete(this.account[position]!, this.market[position]!);
    this.unlinkAccount(position, accounts);
    this.unlinkMarket(position);
    this.account[position] = NIL;
    this.accountNext[position] = this.freeHead;
    this.freeHead = position;
    this.used -= 1;
  }

  private allocate(): number {
    if (this.freeHead !== NIL) {
      const position = this.freeHead;
      this.freeHead = this.accountNext[position]!;
      this.used += 1;
      return position;
    }
    if (this.highWater === this.positionsMax) return NIL;
    if (this.highWater === this.account.length) this.grow();
    this.used += 1;
    return this.highWater++;
  }

  private linkAccount(position: number, accounts: Accounts): void {
    const account = this.account[position]!;
    const head = accounts.positionHead[account]!;
    this.accountPrev[position] = NIL;
    this.accountNext[position] = head;
    if (head !== NIL) this.accountPrev[head] = position;
    accounts.positionHead[account] = position;
  }

  private unlinkAccount(position: number, accounts: Accounts): void {
    const before = this.accountPrev[position]!;
    const after = this.accountNext[position]!;
    if (before === NIL) accounts.positionHead[this.account[position]!] = after;
    else this.accountNext[before] = after;
    if (after !== NIL) this.accountPrev[after] = before;
  }

  private linkMarket(position: number): void {
    const market = this.market[position]!;
    const head = this.marketHead[market]!;
    this.marketPrev[position] = NIL;
    this.marketNext[position] = head;
    if (head !== NIL) this.marketPrev[head] = position;
    this.marketHead[market] = position;
  }

  private unlinkMarket(position: number): void {
    const before = this.marketPrev[position]!;
    const after = this.marketNext[position]!;
    if (before === NIL) this.marketHead[this.market[position]!] = after;
    else this.marketNext[before] = after;
    if (after !== NIL) this.marketPrev[after] = before;
  }

  private grow(): void {
    const capacity = nextCapacity(this.account.length, this.positionsMax);
    this.account = grownInt32(this.account, capacity, 0);
    this.market = grownInt32(this.market, capacity, 0);
    this.sharesFree = grownFloat64(this.sharesFree, 2 * capacity);
    this.sharesReserved = grownFloat64(this.sharesReserved, 2 * capacity);
    this.sharesStamp = grownFloat64(this.sharesStamp, 2 * capacity);
    this.accountNext = grownInt32(this.accountNext, capacity, NIL);
    this.accountPrev = grownInt32(this.accountPrev, capacity, NIL);
    this.marketNext = grownInt32(this.marketNext, capacity, NIL);
    this.marketPrev = grownInt32(this.marketPrev, capacity, NIL);
  }
}
