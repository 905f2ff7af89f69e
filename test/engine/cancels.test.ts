// Cancels: one order, a list, every order of an account, or those in one market or token. Only
// the unfilled remainder is cancelled and its reserve released.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { Scenario, only } from './dsl.js';

function twoMarkets(): Scenario {
  const s = new Scenario({ markets: 2 });
  for (const who of ['alice', 'bob']) s.deposit(who, '100');
  s.buy('alice', 'YES', '0.40', '5');
  s.buy('alice', 'NO', '0.30', '5');
  s.buy('alice', 'YES', '0.20', '5', { market: 1 });
  s.buy('bob', 'YES', '0.10', '5');
  return s;
}

suite('cancels', () => {
  test('cancelling a partly filled order cancels its remainder and releases its reserve', () => {
    const s = new Scenario();
    s.deposit('alice', '100');
    s.deposit('bob', '100');
    s.buy('alice', 'YES', '0.40', '10');
    s.buy('bob', 'NO', '0.60', '4');
    assert.deepEqual(s.cancel('alice', 'o1'), [
      'cancelled o1 CANCELED remaining 6',
      'level m0 bid 0.4 = 0',
      'balance alice USDC 98.4 / 0',
    ]);
  });

  test('a SELL cancel releases its shares', () => {
    const s = new Scenario();
    s.deposit('alice', '100');
    s.deposit('bob', '100');
    s.buy('alice', 'YES', '0.40', '10');
    s.buy('bob', 'NO', '0.60', '10');
    s.sell('alice', 'YES', '0.70', '10');
    assert.equal(s.balance('alice', 'YES'), '0 / 10');
    assert.deepEqual(only(s.cancel('alice', 'o3'), 'balance'), ['balance alice m0 YES 10 / 0']);
  });

  test('a list is cancelled in its order, each id answered', () => {
    const s = twoMarkets();
    const first = s.cancelMany('alice', ['o2', 'o4', 'zzz', 'o2', 'o1']);
    assert.deepEqual(first.filter((line) => line.startsWith('cancel')), [
      'cancelled o2 CANCELED remaining 5',
      'cancel-rejected o4 NOT_OWNER',
      'cancel-rejected zzz ORDER_NOT_FOUND',
      'cancel-rejected o2 ALREADY_DONE',
      'cancelled o1 CANCELED remaining 5',
    ]);
    const lines = s.cancelMany('alice', ['o2', 'o4', 'zzz']);
    assert.deepEqual(lines, [
      'cancel-rejected o2 ALREADY_DONE',
      'cancel-rejected o4 NOT_OWNER',
      'cancel-rejected zzz ORDER_NOT_FOUND',
    ]);
  });

  test("cancel-all cancels every order of the account, in placement order, and no one else's", () => {
    const s = twoMarkets();
    assert.deepEqual(only(s.cancelAll('alice'), 'cancelled'), [
      'cancelled o1 CANCELED remaining 5',
      'cancelled o2 CANCELED remaining 5',
      'cancelled o3 CANCELED remaining 5',
    ]);
    assert.equal(s.balance('alice'), '100 / 0');
    assert.deepEqual(s.engine.openOrdersOf('bob').map((order) => order.orderId), ['o4']);
    assert.deepEqual(s.cancelAll('nobody'), []);
  });

  test('a market cancel touches one market, optionally one token', () => {
    const s = twoMarkets();
    assert.deepEqual(only(s.cancelMarket('alice', 0, 'NO'), 'cancelled'), ['cancelled o2 CANCELED remaining 5']);
    assert.deepEqual(only(s.cancelMarket('alice', 0), 'cancelled'), ['cancelled o1 CANCELED remaining 5']);
    assert.deepEqual(s.engine.openOrdersOf('alice').map((order) => order.orderId), ['o3']);
  });
});
