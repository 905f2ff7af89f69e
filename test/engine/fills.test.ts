// Fills of every kind, price-time priority, price improvement, taker fees and their rounding,
// and self-crossing, told as scenarios (each step also checked against the reference engine).
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { Scenario, describe, only } from './dsl.js';

/** Alice and Bob mint 10 sets at 0.40/0.60: Alice holds 10 YES, Bob 10 NO. */
function withMintedSets(feeBps = 0): Scenario {
  const s = new Scenario({ feeBps });
  s.deposit('alice', '100');
  s.deposit('bob', '100');
  s.deposit('carol', '100');
  s.buy('alice', 'YES', '0.40', '10');
  s.buy('bob', 'NO', '0.60', '10');
  return s;
}

suite('fill kinds', () => {
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

  test('SELL YES against BUY YES is a NORMAL fill: shares for collateral at the maker price', () => {
    const s = withMintedSets();
    s.buy('carol', 'YES', '0.45', '6');
    assert.deepEqual(s.sell('alice', 'YES', '0.45', '6'), [
      'fill NORMAL o4 SELL YES 0.45 <- o3 BUY YES 0.45 size 6 fee 0',
      'updated o3 matched 6 remaining 0',
      'accepted o4 SELL YES 0.45 x 6 GTC matched 6',
      'level m0 bid 0.45 = 0',
      'balance alice USDC 98.7 / 0',
      'balance alice m0 YES 4 / 0',
      'balance carol USDC 97.3 / 0',
      'balance carol m0 YES 6 / 0',
    ]);
    assert.equal(s.engine.market(0)?.setsMicros, 10_000_000);
  });

  test('SELL YES against SELL NO merges sets: both are paid from the collateral', () => {
    const s = withMintedSets();
    assert.deepEqual(s.sell('bob', 'NO', '0.55', '4'), [
      'accepted o3 SELL NO 0.55 x 4 GTC matched 0 rests',
      'level m0 bid 0.45 = 4',
      'balance bob m0 NO 6 / 4',
    ]);
    assert.deepEqual(s.sell('alice', 'YES', '0.45', '4'), [
      'fill MERGE o4 SELL YES 0.45 <- o3 SELL NO 0.55 size 4 fee 0',
      'updated o3 matched 4 remaining 0',
      'accepted o4 SELL YES 0.45 x 4 GTC matched 4',
      'level m0 bid 0.45 = 0',
      'balance alice USDC 97.8 / 0',
      'balance alice m0 YES 6 / 0',
      'balance bob USDC 96.2 / 0',
      'balance bob m0 NO 6 / 0',
    ]);
    assert.equal(s.engine.market(0)?.setsMicros, 6_000_000);
  });

  test('NO trades NORMAL against NO: BUY NO takes a resting SELL NO', () => {
    const s = withMintedSets();
    s.sell('bob', 'NO', '0.62', '5');
    assert.deepEqual(only(s.buy('carol', 'NO', '0.65', '5'), 'fill'), [
      'fill NORMAL o4 BUY NO 0.62 <- o3 SELL NO 0.62 size 5 fee 0',
    ]);
    assert.equal(s.balance('carol'), '96.9 / 0');
    assert.equal(s.balance('carol', 'NO'), '5 / 0');
  });
});

suite('priority and price', () => {
  test('better prices fill first, then older orders within a price; fills trade at the maker price', () => {
    const s = new Scenario();
    for (const who of ['alice', 'bob', 'carol', 'dave']) s.deposit(who, '100');
    s.buy('alice', 'YES', '0.40', '5');
    s.buy('bob', 'YES', '0.42', '5');
    s.buy('carol', 'YES', '0.42', '5');
    const lines = s.buy('dave', 'NO', '0.60', '12');
    assert.deepEqual(only(lines, 'fill'), [
      'fill MINT o4 BUY NO 0.58 <- o2 BUY YES 0.42 size 5 fee 0',
      'fill MINT o4 BUY NO 0.58 <- o3 BUY YES 0.42 size 5 fee 0',
      'fill MINT o4 BUY NO 0.6 <- o1 BUY YES 0.4 size 2 fee 0',
    ]);
    assert.deepEqual(only(lines, 'level'), ['level m0 bid 0.4 = 3', 'level m0 bid 0.42 = 0']);
    // Dave reserved 12 × 0.60 = 7.20, paid 5.80 + 1.20 = 7.00: the 0.20 improvement is released.
    assert.equal(s.balance('dave'), '93 / 0');
  });

  test('a partly filled order rests its remainder and keeps only its resting reserve', () => {
    const s = withMintedSets();
    const lines = s.buy('carol', 'NO', '0.65', '8');
    assert.ok(lines.includes('accepted o3 BUY NO 0.65 x 8 GTC matched 0 rests'));
    // Carol's BUY NO at 0.65 is an ask at 0.35 in the YES book; Bob's SELL NO at 0.60 crosses it.
    assert.deepEqual(only(s.sell('bob', 'NO', '0.60', '3'), 'fill'), [
      'fill NORMAL o4 SELL NO 0.65 <- o3 BUY NO 0.65 size 3 fee 0',
    ]);
    assert.equal(s.balance('carol'), '94.8 / 3.25');
    assert.deepEqual(s.book(), { bids: [], asks: ['0.35 x 5'] });
  });

  test('a taker sweeps several levels and its remainder rests at its limit', () => {
    const s = withMintedSets();
    s.sell('alice', 'YES', '0.50', '2');
    s.sell('alice', 'YES', '0.52', '2');
    const lines = s.buy('carol', 'YES', '0.55', '6');
    assert.deepEqual(only(lines, 'fill'), [
      'fill NORMAL o5 BUY YES 0.5 <- o3 SELL YES 0.5 size 2 fee 0',
      'fill NORMAL o5 BUY YES 0.52 <- o4 SELL YES 0.52 size 2 fee 0',
    ]);
    assert.deepEqual(s.book(), { bids: ['0.55 x 2'], asks: [] });
    assert.equal(s.balance('carol'), '96.86 / 1.1');
  });
  test('a command reports its level and balance changes in the order it first touched them', () => {
    const s = withMintedSets();
    s.buy('carol', 'YES', '0.45', '3');
    s.buy('carol', 'YES', '0.46', '3');
    s.sell('alice', 'YES', '0.45', '6');
    // The sweep meets 0.46 first; alice's shares are reserved before anything is paid.
    assert.deepEqual(s.emitted.slice(5).map(describe), [
      'level m0 bid 0.46 = 0',
      'level m0 bid 0.45 = 0',
      'balance alice m0 YES 4 / 0',
      'balance alice USDC 98.73 / 0',
      'balance carol USDC 97.27 / 0',
      'balance carol m0 YES 6 / 0',
    ]);
  });
});

suite('fees', () => {
  test('the taker pays floor(notional × bps / 10 000) per fill to the operator; makers pay none', () => {
    const s = withMintedSets(250);
    // The mint above: Bob (taker) paid 6.00 + 2.5 % = 0.15.
    assert.equal(s.balance('operator'), '0.15 / 0');
    s.buy('carol', 'YES', '0.33', '3');
    const lines = s.sell('alice', 'YES', '0.33', '3');
    // Notional 0.99, fee 0.02475 floored to 0.024750 micros exactly: 990000 × 250 / 10000 = 24750.
    assert.deepEqual(only(lines, 'fill'), ['fill NORMAL o4 SELL YES 0.33 <- o3 BUY YES 0.33 size 3 fee 0.02475']);
    assert.equal(s.balance('alice'), '96.96525 / 0');
    assert.equal(s.balance('operator'), '0.17475 / 0');
  });

  test('fees round down per fill, so tiny fills can pay no fee at all', () => {
    const s = new Scenario({ feeBps: 1, tick: '0.0001', minSize: '0.01' });
    s.deposit('alice', '10');
    s.deposit('bob', '10');
    s.buy('alice', 'YES', '0.0001', '0.01');
    // Bob's notional is 0.01 × 0.9999 = 0.009999; 1 bp of it is 0.0000009999, floored to 0.
    assert.deepEqual(only(s.buy('bob', 'NO', '0.9999', '0.01'), 'fill'), [
      'fill MINT o2 BUY NO 0.9999 <- o1 BUY YES 0.0001 size 0.01 fee 0',
    ]);
    assert.equal(s.balance('bob'), '9.990001 / 0');
    assert.equal(s.balance('operator'), '0 / 0');
  });

  test('a BUY reserves its fee at the limit and releases what the fills did not use', () => {
    const s = withMintedSets(1000);
    s.sell('alice', 'YES', '0.20', '5');
    // Carol's limit 0.50 × 5 = 2.50 plus 10 % = 0.25 is reserved; she pays 1.00 + 0.10.
    const lines = s.buy('carol', 'YES', '0.50', '5');
    assert.deepEqual(only(lines, 'balance carol'), ['balance carol USDC 98.9 / 0', 'balance carol m0 YES 5 / 0']);
    assert.equal(s.balance('operator'), '0.7 / 0');
  });

  test('a BUY without room for its fee is rejected before anything changes', () => {
    const s = new Scenario({ feeBps: 100 });
    s.deposit('alice', '4');
    assert.deepEqual(s.buy('alice', 'YES', '0.40', '10'), ['rejected o1 NOT_ENOUGH_BALANCE']);
    s.deposit('alice', '0.04');
    assert.deepEqual(s.buy('alice', 'YES', '0.40', '10')[0], 'accepted o2 BUY YES 0.4 x 10 GTC matched 0 rests');
  });

  test('a SELL taker receives its notional less the fee (a MERGE too)', () => {
    const s = withMintedSets(100);
    s.sell('bob', 'NO', '0.50', '10');
    s.sell('alice', 'YES', '0.50', '10');
    assert.equal(s.balance('alice'), '100.95 / 0');
    assert.equal(s.balance('bob'), '98.94 / 0');
    assert.equal(s.balance('operator'), '0.11 / 0');
    assert.equal(s.engine.market(0)?.setsMicros, 0);
  });
});

suite('self-crossing', () => {
  test('an account trades with its own resting order (no self-trade prevention) and value is conserved', () => {
    const s = new Scenario({ feeBps: 100 });
    s.deposit('alice', '100');
    s.buy('alice', 'YES', '0.40', '10');
    const lines = s.buy('alice', 'NO', '0.60', '10');
    assert.deepEqual(only(lines, 'fill'), ['fill MINT o2 BUY NO 0.6 <- o1 BUY YES 0.4 size 10 fee 0.06']);
    // Alice paid 4.00 + 6.00 + 0.06 and holds one complete set per share.
    assert.equal(s.balance('alice'), '89.94 / 0');
    assert.equal(s.balance('alice', 'YES'), '10 / 0');
    assert.equal(s.balance('alice', 'NO'), '10 / 0');
    s.sell('alice', 'YES', '0.55', '10');
    assert.deepEqual(only(s.sell('alice', 'NO', '0.45', '10'), 'fill'), [
      'fill MERGE o4 SELL NO 0.45 <- o3 SELL YES 0.55 size 10 fee 0.045',
    ]);
    assert.equal(s.balance('alice'), '99.895 / 0');
    assert.equal(s.balance('operator'), '0.105 / 0');
  });
});
