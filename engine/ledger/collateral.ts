// Collateral entering and leaving the engine: admin deposits (contract §8) and withdrawals. A
// deposit interns a new account; a withdrawal takes only free collateral, never what open
// orders reserve.
import { type Command } from '../command.js';
import { COLLATERAL_SUPPLY_MICROS_MAX } from '../constants.js';
import { Reject } from '../events/reject.js';
import type { EngineState } from '../state/state.js';

function isValidAmount(amountMicros: number): boolean {
  return Number.isInteger(amountMicros) && amountMicros > 0 && amountMicros <= COLLATERAL_SUPPLY_MICROS_MAX;
}

export function deposit(state: EngineState, command: Command): void {
  const ledger = state.ledger;
  const amount = command.amountMicros;
  let reject = 0;
  if (!isValidAmount(amount)) reject = Reject.INVALID_AMOUNT;
  else if (!ledger.canDeposit(amount)) reject = Reject.SUPPLY_LIMIT;
  const account = reject === 0 ? ledger.accounts.intern(command.account) : -1;
  if (reject === 0 && account === -1) reject = Reject.ACCOUNTS_FULL;
  if (reject !== 0) {
    state.events.pushCommandRejected(reject, -1, command.account);
    return;
  }
  ledger.deposit(account, amount);
}

export function withdraw(state: EngineState, command: Command): void {
  const ledger = state.ledger;
  const amount = command.amountMicros;
  const account = ledger.accounts.find(command.account);
  let reject = 0;
  if (!isValidAmount(amount)) reject = Reject.INVALID_AMOUNT;
  else if (account === -1 || !ledger.hasFreeCollateral(account, amount)) reject = Reject.NOT_ENOUGH_BALANCE;
  if (reject !== 0) {
    state.events.pushCommandRejected(reject, -1, command.account);
    return;
  }
  ledger.withdraw(account, amount);
}
