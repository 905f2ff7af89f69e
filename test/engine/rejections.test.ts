// Every rejection, each produced by a scenario, and each leaving the state exactly as it was.
// The last test checks that every code has a text and that contract §4's texts are verbatim.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { CommandKind } from '../../engine/command.js';
import { Reject, rejectName } from '../../engine/events/reject.js';
import { rejectText } from '../../engine/events/reject_text.js';
import { Scenario } from './dsl.js';

function funded(options: ConstructorParameters<typeof Scenario>[0] = {}): Scenario {
  const s = new Scenario(options);
  for (const who of ['alice', 'bob']) s.deposit(who, '1000');
  return s;
}

/** Runs `step`, expects exactly one rejection line, and that the state did not change. */
function rejects(s: Scenario, step: () => string[], line: string): void {
  const before = s.engine.stateHash();
  assert.deepEqual(step(), [line]);
  assert.equal(s.engine.stateHash(), before, `${line} changed nothing`);
}

const seen = new Set<number>();
function covered(code: Reject): void {
  seen.add(code);
}

suite('placing an order', () => {
  test('UNKNOWN_MARKET, MARKET_NOT_ACCEPTING (paused or resolved), INVALID_OUTCOME, INVALID_ORDER_ID', () => {
    const s = funded({ markets: 2 });
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { market: 7 }), 'rejected o1 UNKNOWN_MARKET');
    s.setAccepting(0, false);
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1'), 'rejected o2 MARKET_NOT_ACCEPTING');
    s.setAccepting(0, true);
    s.resolve(1, 'YES');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { market: 1 }), 'rejected o3 MARKET_NOT_ACCEPTING');
    rejects(s, () => s.run({ kind: CommandKind.PlaceOrder, account: 'alice', orderId: 'x', market: 0, outcome: 2,
      priceUnits: 5000, sizeMicros: 1_000_000 }), 'rejected x INVALID_OUTCOME');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { id: '' }), 'rejected  INVALID_ORDER_ID');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { id: 'x'.repeat(129) }), `rejected ${'x'.repeat(129)} INVALID_ORDER_ID`);
    [Reject.UNKNOWN_MARKET, Reject.MARKET_NOT_ACCEPTING, Reject.INVALID_OUTCOME, Reject.INVALID_ORDER_ID].forEach(covered);
  });

  test('INVALID_TICK: off the tick, or outside [tick, 1 − tick], under the current tick', () => {
    const s = funded({ tick: '0.01' });
    rejects(s, () => s.buy('alice', 'YES', '0.505', '1'), 'rejected o1 INVALID_TICK');
    rejects(s, () => s.buy('alice', 'YES', '0', '1'), 'rejected o2 INVALID_TICK');
    rejects(s, () => s.buy('alice', 'YES', '1', '1'), 'rejected o3 INVALID_TICK');
    assert.equal(s.buy('alice', 'YES', '0.99', '1')[0], 'accepted o4 BUY YES 0.99 x 1 GTC matched 0 rests');
    s.setTick(0, '0.1');
    rejects(s, () => s.buy('alice', 'YES', '0.99', '1'), 'rejected o5 INVALID_TICK');
    assert.equal(s.buy('alice', 'YES', '0.9', '1')[0], 'accepted o6 BUY YES 0.9 x 1 GTC matched 0 rests');
    covered(Reject.INVALID_TICK);
  });

  test('INVALID_SIZE_PRECISION, SIZE_ABOVE_MAX, SIZE_BELOW_MIN', () => {
    const s = funded({ minSize: '5' });
    // Tick 0.01: sizes are whole steps of 0.0001 share (the tick's decimals + 2).
    rejects(s, () => s.buy('alice', 'YES', '0.5', '5.00001'), 'rejected o1 INVALID_SIZE_PRECISION');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '0'), 'rejected o2 INVALID_SIZE_PRECISION');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '10000000.0001'), 'rejected o3 SIZE_ABOVE_MAX');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '4.9999'), 'rejected o4 SIZE_BELOW_MIN');
    assert.equal(s.buy('alice', 'YES', '0.5', '5.0001')[0], 'accepted o5 BUY YES 0.5 x 5.0001 GTC matched 0 rests');
    // Tick 0.1: steps of 0.001; the step follows the tick, resting orders keep their sizes.
    s.setTick(0, '0.1');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '5.0001'), 'rejected o6 INVALID_SIZE_PRECISION');
    assert.equal(s.buy('alice', 'YES', '0.5', '5.001')[0], 'accepted o7 BUY YES 0.5 x 5.001 GTC matched 0 rests');
    // Tick 0.0001: steps of one micro, the finest.
    s.setTick(0, '0.0001');
    assert.equal(s.buy('alice', 'YES', '0.5', '5.000001')[0], 'accepted o8 BUY YES 0.5 x 5.000001 GTC matched 0 rests');
    [Reject.INVALID_SIZE_PRECISION, Reject.SIZE_ABOVE_MAX, Reject.SIZE_BELOW_MIN].forEach(covered);
  });

  test('DUPLICATE_ORDER for a live id and for a finished one', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.5', '1', { id: 'a' });
    rejects(s, () => s.buy('bob', 'NO', '0.4', '1', { id: 'a' }), 'rejected a DUPLICATE_ORDER');
    s.cancel('alice', 'a');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { id: 'a' }), 'rejected a DUPLICATE_ORDER');
    covered(Reject.DUPLICATE_ORDER);
  });

  test('NOT_ENOUGH_BALANCE: collateral, shares, reserved funds, unknown account', () => {
    const s = funded();
    rejects(s, () => s.buy('alice', 'YES', '0.5', '2000.02'), 'rejected o1 NOT_ENOUGH_BALANCE');
    rejects(s, () => s.sell('alice', 'YES', '0.5', '1'), 'rejected o2 NOT_ENOUGH_BALANCE');
    s.buy('alice', 'YES', '0.5', '1500');
    rejects(s, () => s.buy('alice', 'NO', '0.4', '1000'), 'rejected o4 NOT_ENOUGH_BALANCE');
    rejects(s, () => s.buy('nobody', 'YES', '0.5', '1'), 'rejected o5 NOT_ENOUGH_BALANCE');
    covered(Reject.NOT_ENOUGH_BALANCE);
  });

  test('INVALID_EXPIRATION: GTD under 60 s ahead, or an expiration on another type', () => {
    const s = funded();
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { type: 'GTD', expiresInMs: 59_999 }), 'rejected o1 INVALID_EXPIRATION');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { type: 'GTD' }), 'rejected o2 INVALID_EXPIRATION');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { expiresInMs: 120_000 }), 'rejected o3 INVALID_EXPIRATION');
    assert.equal(s.buy('alice', 'YES', '0.5', '1', { type: 'GTD', expiresInMs: 60_000 })[0],
      'accepted o4 BUY YES 0.5 x 1 GTD matched 0 rests');
    covered(Reject.INVALID_EXPIRATION);
  });

  test('POST_ONLY_CROSSES, POST_ONLY_INVALID_TYPE, FOK_NOT_FILLED, FAK_NO_MATCH', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.5', '1');
    rejects(s, () => s.buy('bob', 'NO', '0.5', '1', { postOnly: true }), 'rejected o2 POST_ONLY_CROSSES');
    rejects(s, () => s.buy('bob', 'NO', '0.5', '1', { postOnly: true, type: 'FAK' }), 'rejected o3 POST_ONLY_INVALID_TYPE');
    rejects(s, () => s.buy('bob', 'NO', '0.5', '2', { type: 'FOK' }), 'rejected o4 FOK_NOT_FILLED');
    rejects(s, () => s.buy('bob', 'NO', '0.49', '2', { type: 'FAK' }), 'rejected o5 FAK_NO_MATCH');
    [Reject.POST_ONLY_CROSSES, Reject.POST_ONLY_INVALID_TYPE, Reject.FOK_NOT_FILLED, Reject.FAK_NO_MATCH].forEach(covered);
  });

  test('TOO_MANY_ORDERS when the account is at its cap, unless the order fills at once', () => {
    const s = funded({ engine: { accountOrdersMax: 2 } });
    s.buy('alice', 'YES', '0.5', '1');
    s.buy('alice', 'YES', '0.4', '1');
    rejects(s, () => s.buy('alice', 'YES', '0.3', '1'), 'rejected o3 TOO_MANY_ORDERS');
    s.buy('bob', 'NO', '0.45', '1');
    assert.equal(s.buy('alice', 'YES', '0.55', '1')[0], 'fill MINT o5 BUY YES 0.55 <- o4 BUY NO 0.45 size 1 fee 0');
    covered(Reject.TOO_MANY_ORDERS);
  });

  test('BOOK_FULL when every order slot is taken, unless the order fills at once', () => {
    const s = funded({ engine: { orderSlots: 2 } });
    s.buy('alice', 'YES', '0.5', '1');
    s.buy('bob', 'NO', '0.3', '1');
    rejects(s, () => s.buy('bob', 'YES', '0.2', '1'), 'rejected o3 BOOK_FULL');
    assert.equal(s.buy('bob', 'NO', '0.5', '1')[0], 'fill MINT o4 BUY NO 0.5 <- o1 BUY YES 0.5 size 1 fee 0');
    covered(Reject.BOOK_FULL);
  });

  test('POSITIONS_FULL when the account would need a new position and none is left', () => {
    const s = funded({ markets: 2, engine: { positionsMax: 1 } });
    s.buy('alice', 'YES', '0.5', '1');
    rejects(s, () => s.buy('alice', 'YES', '0.5', '1', { market: 1 }), 'rejected o2 POSITIONS_FULL');
    rejects(s, () => s.buy('bob', 'YES', '0.5', '1'), 'rejected o3 POSITIONS_FULL');
    covered(Reject.POSITIONS_FULL);
  });

  test('LEVEL_FULL when one price level would pass 2^52 micro-shares', () => {
    const s = new Scenario({ tick: '0.0001', engine: { accountOrdersMax: 1000 } });
    s.deposit('whale', '1000000');
    // 450 orders of 10 million shares at 0.0001 fill 4.5 × 10^15 of the 4.503 × 10^15 allowed.
    for (let index = 0; index < 450; index += 1) s.buy('whale', 'YES', '0.0001', '10000000');
    rejects(s, () => s.buy('whale', 'YES', '0.0001', '10000000'), 'rejected o451 LEVEL_FULL');
    assert.equal(s.buy('whale', 'YES', '0.0001', '1000')[0], 'accepted o452 BUY YES 0.0001 x 1000 GTC matched 0 rests');
    covered(Reject.LEVEL_FULL);
  });
});

suite('cancelling', () => {
  test('ORDER_NOT_FOUND, NOT_OWNER, ALREADY_DONE, TOO_MANY_CANCEL_IDS', () => {
    const s = funded();
    s.buy('alice', 'YES', '0.5', '1');
    rejects(s, () => s.cancel('alice', 'nope'), 'cancel-rejected nope ORDER_NOT_FOUND');
    rejects(s, () => s.cancel('bob', 'o1'), 'cancel-rejected o1 NOT_OWNER');
    s.cancel('alice', 'o1');
    rejects(s, () => s.cancel('alice', 'o1'), 'cancel-rejected o1 ALREADY_DONE');
    rejects(s, () => s.cancel('bob', 'o1'), 'cancel-rejected o1 NOT_OWNER');
    const ids = Array.from({ length: 1001 }, (_, i) => `id${i}`);
    rejects(s, () => s.cancelMany('alice', ids), 'cancel-rejected  TOO_MANY_CANCEL_IDS');
    [Reject.ORDER_NOT_FOUND, Reject.NOT_OWNER, Reject.ALREADY_DONE, Reject.TOO_MANY_CANCEL_IDS].forEach(covered);
  });
});

suite('markets', () => {
  test('MARKET_EXISTS, INVALID_MARKET_INDEX, INVALID_TICK_SIZE, INVALID_MIN_SIZE, INVALID_FEE', () => {
    const s = funded();
    rejects(s, () => s.addMarket(0, '0.01', '5', 0), 'command-rejected MARKET_EXISTS');
    rejects(s, () => s.addMarket(16, '0.01', '5', 0), 'command-rejected INVALID_MARKET_INDEX');
    rejects(s, () => s.addMarket(1, '0.02', '5', 0), 'command-rejected INVALID_TICK_SIZE');
    rejects(s, () => s.addMarket(1, '0.01', '0.001', 0), 'command-rejected INVALID_MIN_SIZE');
    rejects(s, () => s.addMarket(1, '0.01', '5', 1001), 'command-rejected INVALID_FEE');
    rejects(s, () => s.setTick(0, '0.03'), 'command-rejected INVALID_TICK_SIZE');
    [Reject.MARKET_EXISTS, Reject.INVALID_MARKET_INDEX, Reject.INVALID_TICK_SIZE, Reject.INVALID_MIN_SIZE, Reject.INVALID_FEE]
      .forEach(covered);
  });

  test('MARKET_RESOLVED, INVALID_OUTCOME and UNKNOWN_MARKET on market commands', () => {
    const s = funded();
    rejects(s, () => s.run({ kind: CommandKind.ResolveMarket, market: 0, outcome: 2 }), 'command-rejected INVALID_OUTCOME');
    rejects(s, () => s.resolve(3, 'YES'), 'command-rejected UNKNOWN_MARKET');
    s.resolve(0, 'NO');
    rejects(s, () => s.resolve(0, 'YES'), 'command-rejected MARKET_RESOLVED');
    rejects(s, () => s.setAccepting(0, true), 'command-rejected MARKET_RESOLVED');
    rejects(s, () => s.setTick(0, '0.1'), 'command-rejected MARKET_RESOLVED');
    rejects(s, () => s.cancelMarket('alice', 5), 'command-rejected UNKNOWN_MARKET');
    covered(Reject.MARKET_RESOLVED);
  });
});

suite('collateral', () => {
  test('INVALID_AMOUNT, SUPPLY_LIMIT, ACCOUNTS_FULL, and NOT_ENOUGH_BALANCE on withdrawal', () => {
    const s = new Scenario({ engine: { accountsMax: 3 } });
    rejects(s, () => s.deposit('alice', '0'), 'command-rejected INVALID_AMOUNT');
    rejects(s, () => s.run({ kind: CommandKind.Deposit, account: 'alice', amountMicros: 1.5 }), 'command-rejected INVALID_AMOUNT');
    s.deposit('alice', '2000000000');
    rejects(s, () => s.deposit('alice', '300000000'), 'command-rejected SUPPLY_LIMIT');
    s.deposit('bob', '1');
    rejects(s, () => s.deposit('carol', '1'), 'command-rejected ACCOUNTS_FULL');
    rejects(s, () => s.withdraw('bob', '1.000001'), 'command-rejected NOT_ENOUGH_BALANCE');
    rejects(s, () => s.withdraw('carol', '1'), 'command-rejected NOT_ENOUGH_BALANCE');
    [Reject.INVALID_AMOUNT, Reject.SUPPLY_LIMIT, Reject.ACCOUNTS_FULL].forEach(covered);
  });
});

suite('texts', () => {
  test('every rejection above was produced, and every code has a text', () => {
    const context = { orderId: '0xabc', price: '0.015', tick: '0.01', size: '4', minSize: '5' };
    for (const code of Object.values(Reject)) {
      assert.ok(seen.has(code), `no scenario produced ${rejectName(code)}`);
      assert.ok(rejectText(code, context).length > 0);
    }
  });

  test("contract §4's texts are used verbatim", () => {
    const context = { orderId: '0xabc', price: '0.015', tick: '0.01', size: '4', minSize: '5' };
    assert.equal(rejectText(Reject.INVALID_TICK, context), 'order 0xabc is invalid. Price (0.015) breaks minimum tick size rule: 0.01');
    assert.equal(rejectText(Reject.SIZE_BELOW_MIN, context), 'order 0xabc is invalid. Size (4) lower than the minimum: 5');
    assert.equal(rejectText(Reject.INVALID_SIZE_PRECISION, context), 'order 0xabc is invalid. Size (4) must be a positive multiple of 0.0001 shares');
    assert.equal(rejectText(Reject.INVALID_SIZE_PRECISION, { ...context, tick: '0.005' }),
      'order 0xabc is invalid. Size (4) must be a positive multiple of 0.00001 shares');
    assert.equal(rejectText(Reject.DUPLICATE_ORDER, context), 'order 0xabc is invalid. Duplicated.');
    assert.equal(rejectText(Reject.NOT_ENOUGH_BALANCE, context), 'not enough balance / allowance');
    assert.equal(rejectText(Reject.INVALID_EXPIRATION, context), 'invalid expiration');
    assert.equal(rejectText(Reject.POST_ONLY_CROSSES, context), 'invalid post-only order: order crosses book');
    assert.equal(rejectText(Reject.FOK_NOT_FILLED, context), "order couldn't be fully filled. FOK orders are fully filled or killed.");
    assert.equal(rejectText(Reject.FAK_NO_MATCH, context),
      'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.');
    assert.equal(rejectText(Reject.MARKET_NOT_ACCEPTING, context), 'the market is not yet ready to process new orders');
  });
});
