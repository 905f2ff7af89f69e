// The account read model against the matching workers. After a seeded mix of placements of every
// type, fills, cancels, withdrawals, GTD expiries, a resolution and a worker killed mid-flow and
// restarted, every account's live orders and balances on every shard in the model are exactly
// what the worker answers ('openOrders', 'balance'), and every finished order the model holds is
// what the worker's 'order' read answers. A killed shard's model is loaded again from the new
// worker and is exact too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OrderType, Side } from '../../../engine/command.js';
import { CancelReason, OrderStatus } from '../../../engine/orders/order_status.js';
import type { BalanceView, OrderView } from '../../../engine/state/reads.js';
import type { Server } from '../../../http/server.js';
import { compareListed } from '../../../http/trading/order_list.js';
import { ShardUnavailable } from '../../../http/trading/shards.js';
import { Prng } from '../../engine/prng.js';
import {
  accountAddress, marketsOnEveryShard, MIN_SHARES, ONE_MICROS, OrderFlow, removeDataDir, runFlow, startInProcess, temporaryDataDir, waitUntil,
} from './support.js';

const SEED = Number(process.env['SEED'] ?? 39);
const ACCOUNTS = Array.from({ length: 12 }, (_, index) => accountAddress(200 + index));
const DEPOSIT_MICROS = 50_000 * ONE_MICROS;

const dataDir = temporaryDataDir();
let server: Server;
let markets: string[];
/** The server's clock runs this far ahead of the wall clock (GTD orders expire when it moves). */
let clockOffsetMs = 0;

before(async () => {
  server = await startInProcess(dataDir, 2, process.env['LOG_LEVEL'] ?? 'silent', {}, () => Date.now() + clockOffsetMs);
  for (const account of ACCOUNTS) assert.equal(server.trading.client.deposit(account, DEPOSIT_MICROS), true);
  markets = marketsOnEveryShard(server.trading, 3).flat();
});

after(async () => {
  await server.stop();
  removeDataDir(dataDir);
});

/** A balance with nothing in it reads as none: the worker answers an account it has seen, the model forgets an empty one. */
function held(view: BalanceView | null | undefined): BalanceView | undefined {
  if (view === null || view === undefined) return undefined;
  return view.collateralFreeMicros === 0 && view.collateralReservedMicros === 0 && view.positions.length === 0 ? undefined : view;
}

/** Every account's live orders and balances, and every finished order the model holds, as the workers answer them. */
async function assertModelIsExact(what: string): Promise<void> {
  const { pool, accountData } = server.trading;
  assert.ok(accountData.loaded(), `${what}: the model is loaded`);
  let live = 0;
  for (let shard = 0; shard < pool.count; shard++) {
    for (const account of ACCOUNTS) {
      const orders = await pool.read<OrderView[]>(shard, { kind: 'openOrders', account });
      const balance = await pool.read<BalanceView | null>(shard, { kind: 'balance', account });
      const listed = orders.map((view) => ({ ...view, shard })).sort(compareListed).map(({ shard: _shard, ...view }) => view);
      assert.deepEqual(accountData.openOrdersOn(account, shard), listed, `${what}: live orders of ${account} on shard ${shard} (seed ${SEED})`);
      assert.deepEqual(accountData.balanceOn(account, shard), held(balance), `${what}: balances of ${account} on shard ${shard} (seed ${SEED})`);
      live += orders.length;
    }
  }
  let finished = 0;
  for (const { shard, view } of accountData.finishedOrders()) {
    assert.deepEqual(await pool.read<OrderView | null>(shard, { kind: 'order', orderId: view.orderId }), view, `${what}: finished order ${view.orderId} (seed ${SEED})`);
    finished++;
  }
  assert.ok(live > 0 && finished > 0, `${what}: ${live} live and ${finished} finished orders compared`);
}

// Bounded: a shard that stops answering must fail this test, not hold the suite (see the stop's
// bound in shards.ts).
test('the account read model equals the workers through fills, cancels, expiries, a resolution and a worker killed mid-flow', { timeout: 120_000 }, async () => {
  const { client, pool, accountData } = server.trading;
  const prng = new Prng(SEED);
  const flow = new OrderFlow(prng, ACCOUNTS, markets, 'mix-');
  await runFlow(client, flow, 800, 16, { onAck: () => undefined });
  await assertModelIsExact('after the mixed flow');

  // GTD orders that expire: placed 61 s ahead of the server's clock, which then moves past them.
  const expiring: string[] = [];
  for (let index = 0; index < 24; index++) {
    const orderId = `gtd-${index}`;
    const result = await client.placeOrder({
      account: ACCOUNTS[index % ACCOUNTS.length]!, orderId, marketKey: markets[index % markets.length]!, outcome: index % 2, side: Side.Buy,
      orderType: OrderType.GTD, priceUnits: 100 * (1 + (index % 5)), sizeMicros: MIN_SHARES * ONE_MICROS, expirationMs: Date.now() + clockOffsetMs + 61_000,
    });
    if (result.events.some((event) => event.kind === 'ORDER_ACCEPTED' && event.orderId === orderId && event.rests)) expiring.push(orderId);
  }
  assert.ok(expiring.length > 12, `${expiring.length} GTD orders rest`);
  await assertModelIsExact('with GTD orders resting');
  clockOffsetMs += 62_000;
  await client.expire();
  for (const orderId of expiring) {
    const found = accountData.order(orderId);
    assert.deepEqual([found?.view.status, found?.view.cancelReason], [OrderStatus.CANCELED, CancelReason.EXPIRED], `${orderId} expired`);
  }
  await assertModelIsExact('after the expiries');

  // A resolution: every resting order of the market cancelled, its holders paid.
  const resolved = markets[0]!;
  const resolution = await client.resolveMarket(resolved, 1);
  assert.ok(resolution.events.some((event) => event.kind === 'ORDER_CANCELLED'), 'the resolution cancelled resting orders');
  await runFlow(client, flow, 300, 16, { onAck: () => undefined });
  await assertModelIsExact('after the resolution');

  // A worker killed while orders are in flight: the model keeps every answer that came, then
  // loads the shard again from the new worker, holding the answers that come meanwhile.
  const restarts = pool.restarts(0);
  let sent = 0;
  let refused = 0;
  const lane = async (): Promise<void> => {
    while (sent < 1_200) {
      sent++;
      try {
        await flow.run(client, flow.next(Date.now() + clockOffsetMs));
      } catch (error) {
        if (!(error instanceof ShardUnavailable)) throw error;
        refused++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  const lanes = Promise.all(Array.from({ length: 16 }, lane));
  await waitUntil(() => sent >= 300, 30_000, 'the flow to be under way');
  await pool.killWorker(0);
  await lanes;
  await waitUntil(() => pool.isReady(0) && accountData.loaded(), 10_000, 'shard 0 to restart and the model to load it');
  assert.equal(pool.restarts(0), restarts + 1);
  await runFlow(client, flow, 200, 16, { onAck: () => undefined });
  await assertModelIsExact(`after a worker was killed mid-flow (${refused} commands refused while it was down)`);
});
