// GTC, GTD (with expiry), FOK, FAK and post-only, as scenarios against the reference engine.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { OrderStatus, CancelReason } from '../../engine/orders/order_status.js';
import { Scenario, only } from './dsl.js';

function funded(): Scenario {
  const s = new Scenario();
  for (const who of ['alice', 'bob', 'carol']) s.deposit(who, '100');
  return s;
}

suite('GTC', () => {
  test('rests until filled or cancelled', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '10');
    s.advance(365 * 24 * 3600 * 1000);
    assert.deepEqual(s.book(), { bids: ['0.4 x 10'], asks: [] });
    assert.equal(s.engine.getOrder('o1')?.status, OrderStatus.LIVE);
  });
});

suite('GTD', () => {
  test('rests, then expires at its time on an ExpireOrders tick, releasing its reserve', () => {
    const s = funded();
    assert.equal(s.buy('alice', 'YES', '0.40', '10', { type: 'GTD', expiresInMs: 90_000 })[0],
      'accepted o1 BUY YES 0.4 x 10 GTD matched 0 rests');
    assert.deepEqual(s.advance(89_999), []);
    assert.deepEqual(s.advance(1), [
      'cancelled o1 EXPIRED remaining 10',
      'level m0 bid 0.4 = 0',
      'balance alice USDC 100 / 0',
    ]);
    const order = s.engine.getOrder('o1');
    assert.equal(order?.status, OrderStatus.CANCELED);
    assert.equal(order?.cancelReason, CancelReason.EXPIRED);
  });

  test('an expired order never trades: any later command expires it first', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '10', { type: 'GTD', expiresInMs: 60_000 });
    s.timeMs += 60_000;
    assert.deepEqual(s.buy('bob', 'NO', '0.60', '10', { type: 'FAK' }), [
      'cancelled o1 EXPIRED remaining 10',
      'rejected o2 FAK_NO_MATCH',
      'level m0 bid 0.4 = 0',
      'balance alice USDC 100 / 0',
    ]);
  });

  // A lone cancel or resting place emits its level and balance itself (engine/events/change_events.ts);
  // after the sweep has changed the same level and balance, one coalesced row of each follows.
  test('a cancel after the sweep expired an order at its level: one LEVEL and one BALANCE row', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '10', { type: 'GTD', expiresInMs: 60_000 });
    s.buy('alice', 'YES', '0.40', '5');
    s.timeMs += 60_000;
    assert.deepEqual(s.cancel('alice', 'o2'), [
      'cancelled o1 EXPIRED remaining 10',
      'cancelled o2 CANCELED remaining 5',
      'level m0 bid 0.4 = 0',
      'balance alice USDC 100 / 0',
    ]);
  });

  test('an order resting after the sweep expired one at its level: one LEVEL and one BALANCE row', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '10', { type: 'GTD', expiresInMs: 60_000 });
    s.timeMs += 60_000;
    assert.deepEqual(s.buy('alice', 'YES', '0.40', '5'), [
      'cancelled o1 EXPIRED remaining 10',
      'accepted o2 BUY YES 0.4 x 5 GTC matched 0 rests',
      'level m0 bid 0.4 = 5',
      'balance alice USDC 98 / 2',
    ]);
  });

  test('equal expirations leave in placement order; a filled GTD leaves nothing to expire', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '5', { type: 'GTD', expiresInMs: 70_000 });
    s.buy('bob', 'YES', '0.41', '5', { type: 'GTD', expiresInMs: 70_000 });
    s.buy('alice', 'YES', '0.39', '5', { type: 'GTD', expiresInMs: 70_000 });
    s.buy('carol', 'NO', '0.59', '5');
    assert.deepEqual(only(s.advance(70_000), 'cancelled'), [
      'cancelled o1 EXPIRED remaining 5',
      'cancelled o3 EXPIRED remaining 5',
    ]);
  });
});

suite('FOK', () => {
  test('fills completely across levels at once', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '4');
    s.buy('bob', 'YES', '0.38', '6');
    const lines = s.buy('carol', 'NO', '0.62', '10', { type: 'FOK' });
    assert.deepEqual(only(lines, 'fill').length, 2);
    assert.ok(lines.includes('accepted o3 BUY NO 0.62 x 10 FOK matched 10'));
    assert.equal(s.engine.getOrder('o3')?.status, OrderStatus.MATCHED);
  });

  test('is rejected, with nothing changed, when the book cannot fill all of it', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '4');
    s.buy('bob', 'YES', '0.37', '6');
    const before = s.engine.stateHash();
    assert.deepEqual(s.buy('carol', 'NO', '0.62', '10', { type: 'FOK' }), ['rejected o3 FOK_NOT_FILLED']);
    assert.equal(s.engine.stateHash(), before);
  });
});

suite('FAK', () => {
  test('fills what crosses and cancels the rest', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '4');
    assert.deepEqual(s.buy('carol', 'NO', '0.60', '10', { type: 'FAK' }), [
      'fill MINT o2 BUY NO 0.6 <- o1 BUY YES 0.4 size 4 fee 0',
      'updated o1 matched 4 remaining 0',
      'accepted o2 BUY NO 0.6 x 10 FAK matched 4',
      'cancelled o2 CANCELED remaining 6',
      'level m0 bid 0.4 = 0',
      'balance alice USDC 98.4 / 0',
      'balance alice m0 YES 4 / 0',
      'balance carol USDC 97.6 / 0',
      'balance carol m0 NO 4 / 0',
    ]);
    assert.equal(s.engine.getOrder('o2')?.status, OrderStatus.CANCELED);
    assert.equal(s.engine.getOrder('o2')?.matchedMicros, 4_000_000);
  });

  test('is rejected when nothing crosses', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '4');
    assert.deepEqual(s.buy('carol', 'NO', '0.59', '10', { type: 'FAK' }), ['rejected o2 FAK_NO_MATCH']);
  });
});

suite('post-only', () => {
  test('rests when it does not cross', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '4');
    assert.equal(s.buy('carol', 'NO', '0.59', '10', { postOnly: true })[0], 'accepted o2 BUY NO 0.59 x 10 GTC matched 0 rests');
    assert.deepEqual(s.book(), { bids: ['0.4 x 4'], asks: ['0.41 x 10'] });
  });

  test('is rejected when it would cross, GTD included', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.40', '4');
    assert.deepEqual(s.buy('carol', 'NO', '0.60', '10', { postOnly: true }), ['rejected o2 POST_ONLY_CROSSES']);
    assert.deepEqual(s.buy('carol', 'NO', '0.61', '10', { postOnly: true, type: 'GTD', expiresInMs: 60_000 }),
      ['rejected o3 POST_ONLY_CROSSES']);
  });

  test('only GTC and GTD may be post-only', () => {
    const s = funded();
    assert.deepEqual(s.buy('carol', 'NO', '0.60', '10', { postOnly: true, type: 'FOK' }), ['rejected o1 POST_ONLY_INVALID_TYPE']);
    assert.deepEqual(s.buy('carol', 'NO', '0.60', '10', { postOnly: true, type: 'FAK' }), ['rejected o2 POST_ONLY_INVALID_TYPE']);
  });
});
