// Sizes finer than 0.01 share: a market BUY sized as Polymarket's clients size it (an amount of
// USDC over the worst price, in shares of the tick's decimals + 2), the remainders it leaves
// resting, and the rounding of fills whose price × size falls between two micros (ticks finer
// than 0.01): a resting SELL and a NORMAL BUY taker the floor, a resting BUY what its rounded-up
// reserve drops by, a MINT's or MERGE's taker the rest of the set, every reserve released
// exactly, and collateral conserved (verify mode checks it after every step; each step is also
// checked against the reference engine).
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { SIZE_MICROS_MAX } from '../../engine/constants.js';
import { notionalCeilMicros, notionalMicros, sizeStepMicros } from '../../engine/ledger/notional.js';
import { Scenario, only } from './dsl.js';
import { Prng } from './prng.js';

/** A market of `tick` where `seller` holds `shares` YES and `holder` the same NO, minted at 0.50. */
function withSets(tick: string, shares: string): Scenario {
  const s = new Scenario({ tick, minSize: '1' });
  for (const who of ['alice', 'bob', 'carol', 'dave']) s.deposit(who, '1000');
  s.buy('bob', 'YES', '0.5', shares);
  s.buy('dave', 'NO', '0.5', shares);
  return s;
}

/** Collateral of everyone plus the market's sets: what was deposited. */
function totalCollateral(s: Scenario): number {
  let total = s.engine.market(0)?.setsMicros ?? 0;
  for (const who of ['alice', 'bob', 'carol', 'dave', 'operator']) {
    const view = s.engine.balanceOf(who);
    if (view !== undefined) total += view.collateralFreeMicros + view.collateralReservedMicros;
  }
  return total;
}

suite('notionals', () => {
  test('floor and ceil of price × size / 10^4 are exact for every price and size, past 2^53 too', () => {
    const prng = new Prng(53);
    const exact = (price: number, size: number): [number, number] => {
      const product = BigInt(price) * BigInt(size);
      return [Number(product / 10_000n), Number((product + 9_999n) / 10_000n)];
    };
    for (let step = 0; step < 200_000; step += 1) {
      const price = prng.between(1, 9_999);
      // Sizes all over the range, and around the size where price × size reaches 2^53.
      const edge = Math.floor(2 ** 53 / price);
      const roll = step % 3;
      const size = roll === 0 ? prng.between(1, 100_000_000)
        : roll === 1 ? Math.min(SIZE_MICROS_MAX, prng.nextUint32() * 2 ** 12 + prng.below(4096) + 1)
          : Math.min(SIZE_MICROS_MAX, Math.max(1, edge + prng.between(-20_000, 20_000)));
      assert.deepEqual([notionalMicros(price, size), notionalCeilMicros(price, size)], exact(price, size), `${price} × ${size}`);
    }
    assert.deepEqual([notionalMicros(9_999, SIZE_MICROS_MAX), notionalCeilMicros(9_999, SIZE_MICROS_MAX)], exact(9_999, SIZE_MICROS_MAX));
  });

  test('a market\'s size step is 10^-(tick decimals + 2) of a share', () => {
    assert.deepEqual([1000, 100, 10, 1, 25, 50].map(sizeStepMicros), [1000, 100, 10, 1, 1, 10]);
  });
});

suite('market BUYs of shares finer than a lot', () => {
  test('5 USDC at tick 0.01 walks three asks: 9.6153 shares, the last ask keeps 95.3847', () => {
    const s = withSets('0.01', '105');
    s.sell('bob', 'YES', '0.50', '2');
    s.sell('bob', 'YES', '0.51', '3');
    s.sell('bob', 'YES', '0.52', '100');
    // The client walks 2 @ 0.50 + 3 @ 0.51 + the rest @ 0.52, so 0.52 is its worst price, and
    // signs 5.00 USDC for 5 / 0.52 = 9.6153 shares (4 decimals at tick 0.01).
    assert.deepEqual(s.buy('alice', 'YES', '0.52', '9.6153', { type: 'FOK' }), [
      'fill NORMAL o6 BUY YES 0.5 <- o3 SELL YES 0.5 size 2 fee 0',
      'updated o3 matched 2 remaining 0',
      'fill NORMAL o6 BUY YES 0.51 <- o4 SELL YES 0.51 size 3 fee 0',
      'updated o4 matched 3 remaining 0',
      'fill NORMAL o6 BUY YES 0.52 <- o5 SELL YES 0.52 size 4.6153 fee 0',
      'updated o5 matched 4.6153 remaining 95.3847',
      'accepted o6 BUY YES 0.52 x 9.6153 FOK matched 9.6153',
      'level m0 ask 0.5 = 0',
      'level m0 ask 0.51 = 0',
      'level m0 ask 0.52 = 95.3847',
      // 1.00 + 1.53 + 2.399956: what a tick of 0.01 makes of 4 decimals is whole micros.
      'balance alice USDC 995.070044 / 0',
      'balance alice m0 YES 9.6153 / 0',
      'balance bob USDC 952.429956 / 0',
      'balance bob m0 YES 0 / 95.3847',
    ]);
    assert.deepEqual(s.book().asks, ['0.52 x 95.3847']);
    // The remainder trades on like any other size: a limit BUY of 2 decimals takes it whole
    // (49.600044) and rests with 4.6153 (2.399956 reserved).
    assert.deepEqual(only(s.buy('carol', 'YES', '0.52', '100'), 'fill'), [
      'fill NORMAL o7 BUY YES 0.52 <- o5 SELL YES 0.52 size 95.3847 fee 0',
    ]);
    assert.equal(s.balance('carol'), '948 / 2.399956');
    assert.equal(s.balance('bob'), '1002.03 / 0');
    assert.equal(totalCollateral(s), 4_000_000_000);
  });
});

suite('rounding where price × size falls between two micros', () => {
  test('tick 0.001: the buyer pays the floor, its ceil reserve is released to the micro', () => {
    const s = withSets('0.001', '10');
    s.sell('bob', 'YES', '0.513', '10');
    // 5 USDC at 0.513 is 9.74658 shares (5 decimals at tick 0.001); 0.513 × 9.74658 = 4.99999554.
    assert.deepEqual(s.buy('alice', 'YES', '0.513', '9.74658', { type: 'FOK' }), [
      'fill NORMAL o4 BUY YES 0.513 <- o3 SELL YES 0.513 size 9.74658 fee 0',
      'updated o3 matched 9.74658 remaining 0.25342',
      'accepted o4 BUY YES 0.513 x 9.74658 FOK matched 9.74658',
      'level m0 ask 0.513 = 0.25342',
      // Reserved ceil = 4.999996, paid floor = 4.999995, the micro between released.
      'balance alice USDC 995.000005 / 0',
      'balance alice m0 YES 9.74658 / 0',
      'balance bob USDC 999.999995 / 0',
      'balance bob m0 YES 0 / 0.25342',
    ]);
    // The remainder: 0.513 × 0.25342 = 0.13000446, the seller again gets the floor; the rest of
    // Carol's BUY rests with ceil(0.513 × 0.74658) = ceil(0.38299554) = 0.382996 reserved.
    s.buy('carol', 'YES', '0.513', '1');
    assert.equal(s.balance('carol'), '999.487 / 0.382996');
    assert.equal(s.balance('bob'), '1000.129999 / 0');
    assert.equal(totalCollateral(s), 4_000_000_000);
  });

  test('tick 0.001: a MINT taker pays the rest of the set; a resting BUY pays what its ceil reserve drops by', () => {
    const s = withSets('0.001', '20');
    assert.deepEqual(s.buy('carol', 'NO', '0.487', '20'), [
      'accepted o3 BUY NO 0.487 x 20 GTC matched 0 rests',
      'level m0 ask 0.513 = 20',
      'balance carol USDC 990.26 / 9.74',
    ]);
    // The market BUY of YES mints against Carol's bid: she pays 9.74 − ceil(0.487 × 10.25342) =
    // 9.74 − 4.993416 = 4.746584, Alice the rest of the 9.74658 sets, 4.999996 (her reserve, whole).
    assert.deepEqual(s.buy('alice', 'YES', '0.513', '9.74658', { type: 'FAK' }), [
      'fill MINT o4 BUY YES 0.513 <- o3 BUY NO 0.487 size 9.74658 fee 0',
      'updated o3 matched 9.74658 remaining 10.25342',
      'accepted o4 BUY YES 0.513 x 9.74658 FAK matched 9.74658',
      'level m0 ask 0.513 = 10.25342',
      'balance alice USDC 995.000004 / 0',
      'balance alice m0 YES 9.74658 / 0',
      'balance carol USDC 990.26 / 4.993416',
      'balance carol m0 NO 9.74658 / 0',
    ]);
    // A SELL of 2 decimals takes the finer remainder whole: Carol's last payment is her whole
    // reserve, 4.993416, at least 0.487 × 10.25342 = 4.99341554; 0.74658 of Dave's SELL rests.
    assert.deepEqual(s.sell('dave', 'NO', '0.487', '11'), [
      'fill NORMAL o5 SELL NO 0.487 <- o3 BUY NO 0.487 size 10.25342 fee 0',
      'updated o3 matched 20 remaining 0',
      'accepted o5 SELL NO 0.487 x 11 GTC matched 10.25342 rests',
      'level m0 bid 0.513 = 0.74658',
      'level m0 ask 0.513 = 0',
      'balance carol USDC 990.26 / 0',
      'balance carol m0 NO 20 / 0',
      'balance dave USDC 994.993416 / 0',
      'balance dave m0 NO 9 / 0.74658',
    ]);
    // Carol paid 4.746584 + 4.993416 = 9.74, exactly 0.487 × 20, what she signed.
    assert.equal(totalCollateral(s), 4_000_000_000);
  });

  test('tick 0.001: a MERGE taker receives the rest of the set, the resting SELL the floor', () => {
    const s = withSets('0.001', '10');
    // Carol buys 9.74658 NO at market (5 USDC at 0.513), leaving 0.25342 of Dave's SELL NO;
    // Dave got floor(4.99999554) = 4.999995 for them.
    s.sell('dave', 'NO', '0.513', '10');
    s.buy('carol', 'NO', '0.513', '9.74658', { type: 'FOK' });
    assert.equal(s.balance('dave'), '999.999995 / 0');
    // Bob sells 1 YES at 0.487: 0.25342 merge with Dave's remainder at 0.513. Dave gets
    // floor(0.513 × 0.25342) = 0.130004, Bob the rest of the 0.25342 sets, 0.123416
    // (0.487 × 0.25342 = 0.12341554); the rest of Bob's SELL rests.
    assert.deepEqual(only(s.sell('bob', 'YES', '0.487', '1'), 'fill'), [
      'fill MERGE o5 SELL YES 0.487 <- o3 SELL NO 0.513 size 0.25342 fee 0',
    ]);
    assert.equal(s.balance('dave'), '1000.129999 / 0');
    assert.equal(s.balance('bob'), '995.123416 / 0');
    assert.equal(totalCollateral(s), 4_000_000_000);
  });

  test('tick 0.0001: 6-decimal shares, several fills, the buyer pays each fill\'s floor and never its reserve\'s ceil', () => {
    const s = withSets('0.0001', '30');
    // Three asks at one price, the first two left finer by earlier market BUYs.
    s.sell('bob', 'YES', '0.5123', '10');
    s.sell('bob', 'YES', '0.5123', '10');
    s.sell('bob', 'YES', '0.5123', '10');
    // 0.5123 × 9.759906 = 4.9999998438: Carol reserved 5 and paid 4.999999.
    s.buy('carol', 'YES', '0.5123', '9.759906', { type: 'FOK' });
    assert.equal(s.balance('carol'), '995.000001 / 0');
    // 5 USDC at 0.5123 again: 9.759906 shares, 0.240094 from the first ask, 9.519812 from the second.
    assert.deepEqual(only(s.buy('alice', 'YES', '0.5123', '9.759906', { type: 'FOK' }), 'fill'), [
      'fill NORMAL o7 BUY YES 0.5123 <- o3 SELL YES 0.5123 size 0.240094 fee 0',
      'fill NORMAL o7 BUY YES 0.5123 <- o4 SELL YES 0.5123 size 9.519812 fee 0',
    ]);
    // floor(0.1230001562) + floor(4.8769996876) = 0.123 + 4.876999 = 4.999999: one micro under
    // the reserve, ceil(4.9999998438) = 5, which comes back; the seller got what was paid.
    assert.equal(s.balance('alice'), '995.000001 / 0');
    assert.deepEqual(s.book().asks, ['0.5123 x 10.480188']);
    assert.equal(s.balance('bob'), '994.999998 / 0');
    assert.equal(totalCollateral(s), 4_000_000_000);
  });

  test('a BUY resting with a finer remainder releases ceil(price × remainder) when cancelled', () => {
    const s = withSets('0.0001', '10');
    s.buy('carol', 'NO', '0.4877', '10');
    // A market BUY of YES at 0.5123 mints 9.759906 against it: Carol pays 4.877 − ceil(0.4877 ×
    // 0.240094) = 4.877 − 0.117094 = 4.759906, Alice the rest of the set, 5: her whole reserve,
    // ceil(4.9999998438), and the 5.00 USDC she signed, not a micro more.
    s.buy('alice', 'YES', '0.5123', '9.759906', { type: 'FOK' });
    assert.equal(s.balance('alice'), '995 / 0');
    // The 0.240094 of Carol's bid that rests keeps its ceil, 0.117094, released whole on cancel.
    assert.equal(s.balance('carol'), '995.123 / 0.117094');
    assert.deepEqual(only(s.cancel('carol', 'o3'), 'balance'), ['balance carol USDC 995.240094 / 0']);
    assert.equal(totalCollateral(s), 4_000_000_000);
  });
});
