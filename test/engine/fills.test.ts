// Fills of every kind, price-time priority, price improvement, taker fees and their rounding,
// and self-crossing, told as scenarios (each also checked against the reference engine).
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { Scenario } from './dsl.js';

suite('fills', () => {
  test('BUY YES against BUY NO mints a complete set: both pay, each gets its token', () => {
    const s = new Scenario();
    s.deposit('alice', '100');
    s.deposit('bob', '100');
    assert.deepEqual(s.buy('alice', 'YES', '0.40', '10'), [
      'accepted o1 BUY YES 0.4 x 10 GTC matched 0 rests',
      'level m0 bid 0.4 = 10',
      'balance alice USDC 96 / 4',
    ]);
    assert.deepEqual(s.buy('bob', 'NO', '0.60', '10'), [
      'fill MINT o2 BUY NO 0.6 <- o1 BUY YES 0.4 size 10 fee 0',
      'updated o1 matched 10 remaining 0',
      'accepted o2 BUY NO 0.6 x 10 GTC matched 10',
      'level m0 bid 0.4 = 0',
      'balance alice USDC 96 / 0',
      'balance alice m0 YES 10 / 0',
      'balance bob USDC 94 / 0',
      'balance bob m0 NO 10 / 0',
    ]);
    assert.equal(s.engine.market(0)?.setsMicros, 10_000_000);
  });
});
