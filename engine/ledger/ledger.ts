// The ledger: collateral and shares per account, the complete sets each market has minted, and
// the collateral supply. Every movement goes through a method here that records the touched
// balance (with its value before the command) for the end-of-command BALANCE events (but
// moveCollateral and moveShares, for a command that emits its one BALANCE event itself: see
// change_events.ts), and keeps the books balanced: collateral only moves between accounts, into
// complete sets (MINT) and back out (MERGE, resolution), so free + reserved + sets = deposits −
// withdrawals at all times.
//
// Index arithmetic is truncated with `| 0`, so TurboFan drops its overflow checks (see events.ts).
import { assert } from '../assert.js';
import { Accounts } from './accounts.js';
import { COLLATERAL_SUPPLY_MICROS_MAX } from '../constants.js';
import { DirtyList } from '../events/dirty_list.js';
import { Positions } from './positions.js';

/** Balances are keyed (account, asset) in the dirty list: asset 0 is collateral, then tokens. */
export function tokenAsset(market: number, outcome: number): number {
  return (1 + 2 * market + outcome) | 0;
}

export const COLLATERAL_ASSET = 0;

export class Ledger {
  readonly marketsMax: number;
  readonly accounts: Accounts;
  readonly positions: Positions;
  /** Complete sets (one YES + one NO, backed by 1.00 of collateral) outstanding per market. */
  readonly setsMicros: Float64Array;
  readonly dirty: DirtyList;
  /** Deposits minus withdrawals: all collateral inside the engine. */
  supplyMicros = 0;
  /** Taker fees credited to the operator since the engine started (informational). */
  feesMicros = 0;
  readonly operator: number;

  constructor(operatorAddress: string, accountsMax: number, positionsMax: number, marketsMax: number) {
    this.marketsMax = marketsMax;
    this.accounts = new Accounts(accountsMax);
    this.positions = new Positions(positionsMax, marketsMax);
    this.setsMicros = new Float64Array(marketsMax);
    this.dirty = new DirtyList(64);
    this.operator = this.accounts.intern(operatorAddress);
    assert(this.operator === 0, 'the operator is the first account');
  }

  /** Whether a deposit of `amountMicros` keeps the supply within its cap. */
  canDeposit(amountMicros: number): boolean {
    return this.supplyMicros + amountMicros <= COLLATERAL_SUPPLY_MICROS_MAX;
  }

  deposit(account: number, amountMicros: number): void {
    assert(this.canDeposit(amountMicros), 'deposit: supply cap checked');
    this.touchCollateral(account);
    this.accounts.collateralFree[account] = this.accounts.collateralFree[account]! + amountMicros;
    this.supplyMicros += amountMicros;
  }

  withdraw(account: number, amountMicros: number): void {
    this.touchCollateral(account);
    const free = this.accounts.collateralFree[account]! - amountMicros;
    assert(free >= 0, 'withdraw: balance checked');
    this.accounts.collateralFree[account] = free;
    this.supplyMicros -= amountMicros;
  }

  // Balance checks answer a boolean rather than return the balance: a balance past the
  // small-integer range is boxed into a new heap number to leave a call TurboFan did not inline,
  // and in some compilations of the engine it did not inline these (V8's sampling heap profiler:
  // ~7 bytes a command of the fast flow).

  /** Whether the account's free collateral covers `amountMicros`. */
  hasFreeCollateral(account: number, amountMicros: number): boolean {
    return this.accounts.collateralFree[account]! >= amountMicros;
  }

  /** Whether the position's free shares of `outcome` cover `sizeMicros`. */
  hasFreeShares(position: number, outcome: number, sizeMicros: number): boolean {
    return this.positions.sharesFree[(2 * position + outcome) | 0]! >= sizeMicros;
  }

  /** Free → reserved collateral (a BUY order's limit notional and fee). */
  reserveCollateral(account: number, amountMicros: number): void {
    this.touchCollateral(account);
    this.moveCollateral(account, amountMicros);
  }

  /** Reserved → free collateral (cancel, expiry, price improvement, unused fee). */
  releaseCollateral(account: number, amountMicros: number): void {
    if (amountMicros === 0) return;
    this.touchCollateral(account);
    this.moveCollateral(account, -amountMicros);
  }

  /**
   * Free → reserved collateral (reserved → free when negative), not recorded in the dirty list:
   * for a command whose caller emits the BALANCE event itself (see change_events.ts).
   */
  moveCollateral(account: number, toReservedMicros: number): void {
    const free = this.accounts.collateralFree[account]! - toReservedMicros;
    const reserved = this.accounts.collateralReserved[account]! + toReservedMicros;
    assert(free >= 0 && reserved >= 0, 'moveCollateral: balance and reserve checked');
    this.accounts.collateralFree[account] = free;
    this.accounts.collateralReserved[account] = reserved;
  }

  /** Reserved collateral leaves the account (a BUY fill pays its notional and fee). */
  spendReservedCollateral(account: number, amountMicros: number): void {
    this.touchCollateral(account);
    const reserved = this.accounts.collateralReserved[account]! - amountMicros;
    assert(reserved >= 0, 'spendReservedCollateral: reserve covers the payment');
    this.accounts.collateralReserved[account] = reserved;
  }

  creditCollateral(account: number, amountMicros: number): void {
    this.touchCollateral(account);
    this.accounts.collateralFree[account] = this.accounts.collateralFree[account]! + amountMicros;
  }

  /** Pays a taker fee to the operator. */
  creditFee(amountMicros: number): void {
    if (amountMicros === 0) return;
    this.creditCollateral(this.operator, amountMicros);
    this.feesMicros += amountMicros;
  }

  /** Free → reserved shares (a SELL order's size). */
  reserveShares(position: number, outcome: number, sizeMicros: number): void {
    this.touchShares(position, outcome);
    this.moveShares(position, outcome, sizeMicros);
  }

  releaseShares(position: number, outcome: number, sizeMicros: number): void {
    if (sizeMicros === 0) return;
    this.touchShares(position, outcome);
    this.moveShares(position, outcome, -sizeMicros);
  }

  /** Free → reserved shares (reserved → free when negative), not recorded: see moveCollateral. */
  moveShares(position: number, outcome: number, toReservedMicros: number): void {
    const index = (2 * position + outcome) | 0;
    const free = this.positions.sharesFree[index]! - toReservedMicros;
    const reserved = this.positions.sharesReserved[index]! + toReservedMicros;
    assert(free >= 0 && reserved >= 0, 'moveShares: balance and reserve checked');
    this.positions.sharesFree[index] = free;
    this.positions.sharesReserved[index] = reserved;
  }

  /** Reserved shares leave the account (a SELL fill delivers them). */
  spendReservedShares(position: number, outcome: number, sizeMicros: number): void {
    this.touchShares(position, outcome);
    const index = (2 * position + outcome) | 0;
    const reserved = this.positions.sharesReserved[index]! - sizeMicros;
    assert(reserved >= 0, 'spendReservedShares: reserve covers the delivery');
    this.positions.sharesReserved[index] = reserved;
  }

  creditShares(position: number, outcome: number, sizeMicros: number): void {
    this.touchShares(position, outcome);
    const index = (2 * position + outcome) | 0;
    this.positions.sharesFree[index] = this.positions.sharesFree[index]! + sizeMicros;
  }

  /** A MINT fill created `sizeMicros` complete sets; a MERGE fill destroyed them (negative). */
  changeSets(market: number, deltaMicros: number): void {
    const sets = this.setsMicros[market]! + deltaMicros;
    assert(sets >= 0, 'changeSets: a merge destroys only existing sets');
    this.setsMicros[market] = sets;
  }

  /**
   * Settles a resolved market whose orders are all cancelled: every winning share pays 1.00 of
   * collateral, losing shares are zeroed, the market's complete sets are used up, and its
   * positions are freed.
   */
  settleResolution(market: number, winner: number): void {
    const positions = this.positions;
    let paidMicros = 0;
    let position = positions.marketHead[market]!;
    while (position !== -1) {
      const following = positions.marketNext[position]!;
      const account = positions.account[position]!;
      assert(positions.sharesReserved[2 * position] === 0 && positions.sharesReserved[2 * position + 1] === 0,
        'settleResolution: orders were cancelled first');
      const winning = positions.sharesFree[2 * position + winner]!;
      if (winning > 0) this.creditCollateral(account, winning);
      for (let outcome = 0; outcome < 2; outcome += 1) this.zeroShares(position, outcome);
      paidMicros += winning;
      positions.remove(position, this.accounts);
      position = following;
    }
    assert(paidMicros === this.setsMicros[market], 'settleResolution: winners hold every set');
    this.setsMicros[market] = 0;
  }

  private zeroShares(position: number, outcome: number): void {
    const index = (2 * position + outcome) | 0;
    if (this.positions.sharesFree[index] === 0) return;
    this.touchShares(position, outcome);
    this.positions.sharesFree[index] = 0;
  }

  touchCollateral(account: number): void {
    const stamp = this.dirty.stamp;
    if (this.accounts.collateralStamp[account] === stamp) return;
    this.accounts.collateralStamp[account] = stamp;
    const dirty = this.dirty;
    const item = dirty.add(account, COLLATERAL_ASSET, -1);
    dirty.startsA[item] = this.accounts.collateralFree[account]!;
    dirty.startsB[item] = this.accounts.collateralReserved[account]!;
  }

  touchShares(position: number, outcome: number): void {
    const index = (2 * position + outcome) | 0;
    const stamp = this.dirty.stamp;
    if (this.positions.sharesStamp[index] === stamp) return;
    this.positions.sharesStamp[index] = stamp;
    const dirty = this.dirty;
    const item = dirty.add(this.positions.account[position]!, tokenAsset(this.positions.market[position]!, outcome), position);
    dirty.startsA[item] = this.positions.sharesFree[index]!;
    dirty.startsB[item] = this.positions.sharesReserved[index]!;
  }
}
