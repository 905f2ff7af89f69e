// The shard's record of finished orders, built from events, against the engine's own view of
// each order right after the command that finished it, over seeded random flows (every order
// type, fills, cancels, expiries, resolutions); and a resolution that finishes more orders than
// the engine's history holds is still recorded in full.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandKind, OrderType, Side, makeCommand } from '../../../engine/command.js';
import { Engine } from '../../../engine/engine.js';
import { OrderStatus } from '../../../engine/orders/order_status.js';
import type { OrderView } from '../../../engine/state/reads.js';
import { recordFinishedOrders } from '../../../engine/shard/finished_orders.js';
import { RandomCommands } from '../random_commands.js';

const OPERATOR = '0x00000000000000000000000000000000000000fe';

test('every order a command finishes is recorded as the engine then shows it', () => {
  for (const seed of [1, 2, 3]) {
    const flow = new RandomCommands(seed, { accounts: 6, markets: 3, marketsMax: 64 });
    const engine = new Engine({ operatorAddress: OPERATOR, verify: true, orderHistory: 5000, marketsMax: 64 });
    const run = (timeMs: number, command: ReturnType<RandomCommands['next']>): Map<string, OrderView> => {
      engine.execute(command);
      const finished = new Map<string, OrderView>();
      recordFinishedOrders(engine.events, timeMs, finished);
      engine.events.clear();
      return finished;
    };
    for (const command of flow.setup()) run(command.timeMs, command);
    let recorded = 0;
    for (let step = 0; step < 20_000; step += 1) {
      const command = flow.next(engine);
      const finished = run(command.timeMs, command);
      for (const [id, view] of finished) {
        assert.deepEqual(view, engine.getOrder(id), `seed ${seed}, step ${step}: ${id}`);
        recorded += 1;
      }
    }
    assert.ok(recorded > 2000, `seed ${seed}: ${recorded} finished orders compared`);
  }
});

test('a resolution that cancels more orders than the history holds records every one of them', () => {
  const engine = new Engine({ operatorAddress: OPERATOR, orderHistory: 16 });
  const at = (fields: Parameters<typeof makeCommand>[0]): void => {
    engine.execute(makeCommand({ seq: 1, timeMs: 1_700_000_000_000, ...fields }));
  };
  const trader = '0x0000000000000000000000000000000000000001';
  at({ kind: CommandKind.AddMarket, market: 0, tickUnits: 100, minSizeMicros: 1_000_000, feeBps: 0 });
  at({ kind: CommandKind.Deposit, account: trader, amountMicros: 1_000_000_000 });
  for (let index = 0; index < 100; index += 1) {
    at({
      kind: CommandKind.PlaceOrder, account: trader, orderId: `0x${index}`, market: 0, outcome: 0, side: Side.Buy,
      orderType: OrderType.GTC, priceUnits: 100 * (1 + (index % 40)), sizeMicros: 5_000_000,
    });
  }
  engine.events.clear();
  at({ kind: CommandKind.ResolveMarket, market: 0, outcome: 1 });
  const finished = new Map<string, OrderView>();
  recordFinishedOrders(engine.events, 1_700_000_000_000, finished);
  assert.equal(finished.size, 100);
  assert.ok([...finished.values()].every((view) => view.status === OrderStatus.CANCELED_MARKET_RESOLVED && view.owner === trader));
  const forgotten = [...finished.keys()].filter((id) => engine.getOrder(id) === undefined);
  assert.equal(forgotten.length, 100 - 16, 'the engine itself remembers only the last 16');
});
