// Resolution: the market's orders are cancelled (CANCELED_MARKET_RESOLVED), each winning share
// pays 1.00, losing shares are zeroed, and the market accepts no more orders; collateral is
// conserved throughout.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { OrderStatus } from '../../engine/orders/order_status.js';
import { Scenario, only } from './dsl.js';

function traded(): Scenario {
  const s = new Scenario({ markets: 2, feeBps: 100 });
  for (const who of ['alice', 'bob', 'carol']) s.deposit(who, '100');
  s.buy('alice', 'YES', '0.40', '10');
  s.buy('bob', 'NO', '0.60', '10');
  s.sell('alice', 'YES', '0.55', '4');
  s.buy('carol', 'YES', '0.30', '3');
  s.buy('carol', 'NO', '0.50', '2', { market: 1 });
  return s;
}

suite('resolution', () => {
  test('cancels the orders, pays 1.00 per winning share and zeroes the losers', () => {
    const s = traded();
    const supply = s.engine.stats().supplyMicros;
    assert.deepEqual(s.resolve(0, 'YES'), [
      'cancelled o4 CANCELED_MARKET_RESOLVED remaining 3',
      'cancelled o3 CANCELED_MARKET_RESOLVED remaining 4',
      'market m0 tick 0.01 min 1 fee 100 resolved YES',
      'level m0 bid 0.3 = 0',
      'level m0 ask 0.55 = 0',
      'balance alice USDC 106 / 0',
      'balance alice m0 YES 0 / 0',
      'balance bob m0 NO 0 / 0',
      'balance carol USDC 99 / 1',
    ]);
    assert.equal(s.engine.stats().supplyMicros, supply);
    assert.equal(s.engine.market(0)?.setsMicros, 0);
    assert.equal(s.engine.getOrder('o3')?.status, OrderStatus.CANCELED_MARKET_RESOLVED);
    assert.deepEqual(s.buy('carol', 'YES', '0.5', '1'), ['rejected o6 MARKET_NOT_ACCEPTING']);
  });

  test('a NO win pays the NO holders', () => {
    const s = traded();
    assert.deepEqual(only(s.resolve(0, 'NO'), 'balance bob'), ['balance bob USDC 103.94 / 0', 'balance bob m0 NO 0 / 0']);
    assert.equal(s.balance('alice', 'YES'), '0 / 0');
  });

  test('other markets are untouched', () => {
    const s = traded();
    s.resolve(0, 'YES');
    assert.deepEqual(s.book(1), { bids: [], asks: ['0.5 x 2'] });
    assert.equal(s.engine.market(1)?.resolved, false);
  });
});
