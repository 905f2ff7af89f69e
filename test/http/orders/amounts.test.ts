// Polymarket's amount rules for a signed order (http/trading/order_amounts.ts), without a server:
// the decimals each side and type may carry, their three texts, and a market order's implied
// price rounded the safe way (a BUY down, a SELL up) onto the tick.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { OrderType, Side } from '../../../engine/command.js';
import { Reject } from '../../../engine/events/reject.js';
import { amountDecimals, readOrderAmounts } from '../../../http/trading/order_amounts.js';

const { GTC, GTD, FOK, FAK } = OrderType;
const BUY = Side.Buy;
const SELL = Side.Sell;

const limitBuyText = (d: number): string =>
  `invalid amounts, the buy orders maker amount supports a max accuracy of ${d} decimals, taker amount a max of 2 decimals`;
const marketBuyText = (d: number): string =>
  `invalid amounts, the market buy orders maker amount supports a max accuracy of 2 decimals, taker amount a max of ${d} decimals`;
const sellText = (d: number): string =>
  `invalid amounts, the sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of ${d} decimals`;

suite('order amounts', () => {
  test('D is the tick\'s decimals + 2', () => {
    assert.deepEqual([1000, 100, 10, 1, 25, 50].map(amountDecimals), [3, 4, 5, 6, 6, 5]);
  });

  test('a limit BUY: USDC of D decimals for shares of 2, on the price grid', () => {
    // 0.123 × 10.01 = 1.23123: 5 decimals of USDC at tick 0.001 (D = 5).
    assert.deepEqual(readOrderAmounts(BUY, GTC, 1_231_230, 10_010_000, 10), { kind: 'accepted', priceUnits: 1230, sizeMicros: 10_010_000 });
    assert.deepEqual(readOrderAmounts(BUY, GTD, 1_231_230, 10_010_000, 100), { kind: 'invalid', text: limitBuyText(4) });
    assert.deepEqual(readOrderAmounts(BUY, GTC, 5_000_000, 9_803_900, 100), { kind: 'invalid', text: limitBuyText(4) });
    // On the tick is the engine's to check; off the 0.0001 grid is refused here, with the price.
    assert.deepEqual(readOrderAmounts(BUY, GTC, 4_050_000, 10_000_000, 100), { kind: 'accepted', priceUnits: 4050, sizeMicros: 10_000_000 });
    assert.deepEqual(readOrderAmounts(BUY, GTC, 4_050_500, 10_000_000, 100), { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros: 405_050 });
  });

  test('a market BUY: USDC of 2 decimals for shares of D, its price rounded down to the tick', () => {
    // createMarketOrder({side: BUY, amount: 5}) at 0.51: 5 / 0.51 = 9.8039 shares (tick 0.01).
    assert.deepEqual(readOrderAmounts(BUY, FOK, 5_000_000, 9_803_900, 100), { kind: 'accepted', priceUnits: 5100, sizeMicros: 9_803_900 });
    // py-clob-client's FOK BUY of 5.00 at 0.60: 8.3333 shares, 0.600002… rounded down to 0.60.
    assert.deepEqual(readOrderAmounts(BUY, FAK, 5_000_000, 8_333_300, 100), { kind: 'accepted', priceUnits: 6000, sizeMicros: 8_333_300 });
    // Tick 0.001: 5 / 0.513 = 9.74658 shares (5 decimals); tick 0.0001: 9.759906 at 0.5123.
    assert.deepEqual(readOrderAmounts(BUY, FOK, 5_000_000, 9_746_580, 10), { kind: 'accepted', priceUnits: 5130, sizeMicros: 9_746_580 });
    assert.deepEqual(readOrderAmounts(BUY, FOK, 5_000_000, 9_759_906, 1), { kind: 'accepted', priceUnits: 5123, sizeMicros: 9_759_906 });
    // The limit BUY's precision is refused for a market BUY, as Polymarket refuses it.
    assert.deepEqual(readOrderAmounts(BUY, FOK, 4_051_000, 10_000_000, 100), { kind: 'invalid', text: marketBuyText(4) });
    assert.deepEqual(readOrderAmounts(BUY, FAK, 5_000_000, 9_746_580, 100), { kind: 'invalid', text: marketBuyText(4) });
    assert.deepEqual(readOrderAmounts(BUY, FOK, 5_000_000, 9_759_906, 10), { kind: 'invalid', text: marketBuyText(5) });
    // Below one tick once rounded down: the tick rule, with the price it was signed at.
    assert.deepEqual(readOrderAmounts(BUY, FOK, 10_000, 1_010_000, 100), { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros: 9900 });
    assert.deepEqual(readOrderAmounts(BUY, FOK, 10_000_000, 9_000_000, 100), { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros: 1_111_111 });
  });

  test('a SELL: shares of 2 decimals for USDC of D, a market SELL\'s price rounded up to the tick', () => {
    assert.deepEqual(readOrderAmounts(SELL, GTC, 10_000_000, 5_100_000, 100), { kind: 'accepted', priceUnits: 5100, sizeMicros: 10_000_000 });
    assert.deepEqual(readOrderAmounts(SELL, GTC, 10_000_000, 5_130_000, 10), { kind: 'accepted', priceUnits: 5130, sizeMicros: 10_000_000 });
    assert.deepEqual(readOrderAmounts(SELL, FOK, 9_803_900, 5_000_000, 100), { kind: 'invalid', text: sellText(4) });
    assert.deepEqual(readOrderAmounts(SELL, GTC, 10_000_000, 5_123_451, 10), { kind: 'invalid', text: sellText(5) });
    // 10 shares for 5.1234 USDC: 0.51234, rounded up to 0.52 at tick 0.01, never below it.
    assert.deepEqual(readOrderAmounts(SELL, FAK, 10_000_000, 5_123_400, 100), { kind: 'accepted', priceUnits: 5200, sizeMicros: 10_000_000 });
    // A limit SELL must be on the grid; above 1 − tick once rounded up: the tick rule.
    assert.deepEqual(readOrderAmounts(SELL, GTC, 10_000_000, 5_123_400, 100), { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros: 512_340 });
    assert.deepEqual(readOrderAmounts(SELL, FOK, 1_000_000, 991_000, 100), { kind: 'rejected', code: Reject.INVALID_TICK, priceMicros: 991_000 });
  });

  test('a size above the engine\'s maximum is refused with its text', () => {
    assert.equal(readOrderAmounts(BUY, GTC, 10_000_000_000_000, 20_000_000_000_000, 100).kind, 'rejected');
    assert.deepEqual(readOrderAmounts(SELL, GTC, 20_000_000_000_000, 10_000_000_000_000, 100),
      { kind: 'rejected', code: Reject.SIZE_ABOVE_MAX, priceMicros: 500_000 });
  });
});
