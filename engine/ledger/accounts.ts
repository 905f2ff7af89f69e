// Accounts: 0x-addresses interned to dense indices in first-seen order (a function of the
// command stream, so replay reproduces them), with per-account columns: collateral free and
// reserved, the open-order list and the position list. Columns grow by doubling up to the
// engine's account limit.
import { assert } from '../assert.js';
import { NIL } from '../market/ladder.js';
import { grownFloat64, grownInt32, nextCapacity } from '../grow.js';
import type { AccountOrderLists } from '../orders/orders.js';

const INITIAL_CAPACITY = 256;

export class Accounts implements AccountOrderLists {
  readonly accountsMax: number;
  readonly addresses: string[] = [];
  private readonly indexByAddress = new Map<string, number>();
  collateralFree: Float64Array;
  collateralReserved: Float64Array;
  /** Dirty-list stamp of the account's collateral (see DirtyList). */
  collateralStamp: Float64Array;
  orderHead: Int32Array;
  orderTail: Int32Array;
  orderCount: Int32Array;
  positionHead: Int32Array;

  constructor(accountsMax: number) {
    assert(Number.isInteger(accountsMax) && accountsMax > 0, 'accounts max');
    this.accountsMax = accountsMax;
    const capacity = Math.min(INITIAL_CAPACITY, accountsMax);
    this.collateralFree = new Float64Array(capacity);
    this.collateralReserved = new Float64Array(capacity);
    this.collateralStamp = new Float64Array(capacity);
    this.orderHead = new Int32Array(capacity).fill(NIL);
    this.orderTail = new Int32Array(capacity).fill(NIL);
    this.orderCount = new Int32Array(capacity);
    this.positionHead = new Int32Array(capacity).fill(NIL);
  }

  count(): number {
    return this.addresses.length;
  }

  /** The account's index, or -1 when the address was never seen. */
  find(address: string): number {
    return this.indexByAddress.get(address) ?? -1;
  }

  /** The account's index, interning the address if new; -1 when the engine is full. */
  intern(address: string): number {
    const known = this.indexByAddress.get(address);
    if (known !== undefined) return known;
    const index = this.addresses.length;
    if (index === this.accountsMax) return -1;
    if (index === this.collateralFree.length) this.grow();
    this.addresses.push(address);
    this.indexByAddress.set(address, index);
    return index;
  }

  addressOf(account: number): string {
    const address = this.addresses[account];
    assert(address !== undefined, 'addressOf: account exists');
    return address;
  }

  private grow(): void {
    const capacity = nextCapacity(this.collateralFree.length, this.accountsMax);
    this.collateralFree = grownFloat64(this.collateralFree, capacity);
    this.collateralReserved = grownFloat64(this.collateralReserved, capacity);
    this.collateralStamp = grownFloat64(this.collateralStamp, capacity);
    this.orderHead = grownInt32(this.orderHead, capacity, NIL);
    this.orderTail = grownInt32(this.orderTail, capacity, NIL);
    this.orderCount = grownInt32(this.orderCount, capacity, 0);
    this.positionHead = grownInt32(this.positionHead, capacity, NIL);
  }
}
