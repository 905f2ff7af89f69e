// Market administration, collateral, and the read API the runtime uses.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { BookSide } from '../../engine/market/book.js';
import { OrderStatus, CancelReason } from '../../engine/orders/order_status.js';
import { noTokenLevel } from '../../engine/state/reads.js';
import { Scenario, START_MS } from './dsl.js';

suite('market administration', () => {
  test('adding, pausing and resuming a market emit its whole state', () => {
    const s = new Scenario({ markets: 0 });
    assert.deepEqual(s.addMarket(3, '0.001', '5', 20), ['market m3 tick 0.001 min 5 fee 20 accepting']);
    assert.deepEqual(s.setAccepting(3, false), ['market m3 tick 0.001 min 5 fee 20']);
    assert.deepEqual(s.setAccepting(3, true), ['market m3 tick 0.001 min 5 fee 20 accepting']);
    assert.deepEqual(s.engine.market(3), {
      market: 3, tickUnits: 10, minSizeMicros: 5_000_000, feeBps: 20, accepting: true, resolved: false, winner: -1, setsMicros: 0,
    });
  });

  test('a tick change applies to new orders; resting orders keep their prices and still trade', () => {
    const s = new Scenario({ tick: '0.001' });
    s.deposit('alice', '10');
    s.deposit('bob', '10');
    s.buy('alice', 'YES', '0.405', '2');
    s.setTick(0, '0.01');
    assert.deepEqual(s.book(), { bids: ['0.405 x 2'], asks: [] });
    assert.equal(s.buy('bob', 'NO', '0.6', '2')[0], 'fill MINT o2 BUY NO 0.595 <- o1 BUY YES 0.405 size 2 fee 0');
  });
});

suite('collateral', () => {
  test('deposits and withdrawals move free collateral only', () => {
    const s = new Scenario();
    assert.deepEqual(s.deposit('alice', '10.5'), ['balance alice USDC 10.5 / 0']);
    s.buy('alice', 'YES', '0.5', '10');
    assert.deepEqual(s.withdraw('alice', '5.5'), ['balance alice USDC 0 / 5']);
    assert.deepEqual(s.withdraw('alice', '0.000001'), ['command-rejected NOT_ENOUGH_BALANCE']);
    assert.equal(s.engine.stats().supplyMicros, 5_000_000);
  });
});

suite('reads', () => {
  test('order views follow an order from live to matched, cancelled or expired', () => {
    const s = new Scenario();
    s.deposit('alice', '100');
    s.deposit('bob', '100');
    s.buy('alice', 'YES', '0.40', '10');
    s.timeMs += 1000;
    s.buy('bob', 'NO', '0.60', '4');
    assert.deepEqual(s.engine.getOrder('o1'), {
      orderId: 'o1', owner: 'alice', market: 0, outcome: 0, side: 0, orderType: 0, priceUnits: 4000,
      originalMicros: 10_000_000, matchedMicros: 4_000_000, remainingMicros: 6_000_000, status: OrderStatus.LIVE,
      cancelReason: CancelReason.NONE, createdAtMs: START_MS, expirationMs: 0, updatedAtMs: START_MS,
    });
    assert.equal(s.engine.getOrder('o2')?.status, OrderStatus.MATCHED);
    assert.equal(s.engine.getOrder('o2')?.updatedAtMs, START_MS + 1000);
    s.cancel('alice', 'o1');
    assert.equal(s.engine.getOrder('o1')?.status, OrderStatus.CANCELED);
    assert.equal(s.engine.getOrder('o1')?.remainingMicros, 0);
    assert.equal(s.engine.getOrder('nope'), undefined);
  });

  test('open orders, balances, book levels and best prices (the NO book mirrors the YES book)', () => {
    const s = new Scenario({ markets: 2 });
    s.deposit('alice', '100');
    s.buy('alice', 'YES', '0.40', '10');
    s.buy('alice', 'NO', '0.55', '5');
    s.buy('alice', 'YES', '0.10', '1', { market: 1 });
    assert.deepEqual(s.engine.openOrdersOf('alice').map((o) => o.orderId), ['o1', 'o2', 'o3']);
    assert.deepEqual(s.engine.openOrdersOf('alice', 1).map((o) => o.orderId), ['o3']);
    assert.deepEqual(s.engine.bookLevels(0), {
      market: 0, bids: [{ priceUnits: 4000, sizeMicros: 10_000_000 }], asks: [{ priceUnits: 4500, sizeMicros: 5_000_000 }],
    });
    assert.equal(s.engine.bestPrice(0, 0, BookSide.Bid), 4000);
    assert.equal(s.engine.bestPrice(0, 0, BookSide.Ask), 4500);
    assert.equal(s.engine.bestPrice(0, 1, BookSide.Bid), 5500);
    assert.equal(s.engine.bestPrice(0, 1, BookSide.Ask), 6000);
    assert.equal(s.engine.bestPrice(1, 0, BookSide.Ask), -1);
    assert.deepEqual(noTokenLevel(BookSide.Bid, 4000), { side: BookSide.Ask, priceUnits: 6000 });
    assert.deepEqual(s.engine.balanceOf('alice'), {
      account: 'alice', collateralFreeMicros: 93_150_000, collateralReservedMicros: 6_850_000, positions: [],
    });
    assert.equal(s.engine.balanceOf('nobody'), undefined);
  });
});
