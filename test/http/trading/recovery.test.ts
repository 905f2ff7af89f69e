// Clean restarts and order ids. A clean stop leaves a snapshot: the next start replays nothing and
// reaches the same per-shard state hashes, stored orders and fills, and treasury balances (with
// SHARDS=2 and SHARDS=1). An order id is used once for good: a second order with it is
// DUPLICATE_ORDER (its funds return to the treasury) while the engine remembers the id, after a
// restart, and after the engine forgot it, when only the shard's LMDB table still knows it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { OrderType, Side } from '../../../engine/command.js';
import type { EngineEvent } from '../../../engine/events/event_objects.js';
import { Reject } from '../../../engine/events/reject.js';
import { createLogger } from '../../../http/log.js';
import type { Server } from '../../../http/server.js';
import { TradingClient, type PlaceOrder } from '../../../http/trading/client.js';
import { ShardPool } from '../../../http/trading/shards.js';
import { Treasury } from '../../../http/trading/treasury.js';
import { Prng } from '../../engine/prng.js';
import {
  accountAddress, assertRuntimeState, marketsOnEveryShard, ONE_MICROS, OrderFlow, readRuntimeState, removeDataDir, runFlow,
  startInProcess, stateHashes, temporaryDataDir,
} from './support.js';

const ACCOUNTS = Array.from({ length: 12 }, (_, index) => accountAddress(index));
const DEPOSIT_MICROS = 5_000 * ONE_MICROS;

/** Deposits for every account and runs `count` seeded commands, each awaited by one of 16 lanes. */
async function trade(server: Server, seed: number, count: number): Promise<void> {
  const { client } = server.trading;
  for (const account of ACCOUNTS) assert.equal(client.deposit(account, DEPOSIT_MICROS), true);
  const flow = new OrderFlow(new Prng(seed), ACCOUNTS, marketsOnEveryShard(server.trading, 3).flat(), `r${seed}-`);
  await runFlow(client, flow, count, 16, { onAck: () => undefined });
}

/** 0 when the order was accepted, else its rejection reason. */
function rejectionOf(events: readonly EngineEvent[], orderId: string): number {
  for (const event of events) {
    if (event.kind === 'ORDER_ACCEPTED' && event.orderId === orderId) return 0;
    if (event.kind === 'ORDER_REJECTED' && event.orderId === orderId) return event.reason;
  }
  throw new assert.AssertionError({ message: `no answer for ${orderId}` });
}

for (const shards of [2, 1]) {
  test(`a clean stop and restart with SHARDS=${shards} replays nothing and reaches the same state`, async () => {
    const dataDir = temporaryDataDir();
    let server: Server | undefined;
    try {
      server = await startInProcess(dataDir, shards);
      await trade(server, 40 + shards, 600);
      const before = await readRuntimeState(server.trading, ACCOUNTS);
      assertRuntimeState(before);
      assert.ok(before.fills.length > 0 && before.orders.some(([, view]) => view.remainingMicros > 0), 'the flow filled and rested orders');
      await server.stop();
      server = await startInProcess(dataDir, shards);
      const pool = server.trading.pool;
      for (let shard = 0; shard < shards; shard++) {
        const recovery = pool.recovery(shard);
        assert.equal(recovery?.replayedFrames, 0, `shard ${shard} replayed frames after a clean stop`);
        assert.ok((recovery?.snapshotBatch ?? 0) > 0, `shard ${shard} started from a snapshot`);
      }
      const afterRestart = await readRuntimeState(server.trading, ACCOUNTS);
      assertRuntimeState(afterRestart);
      assert.deepEqual(stateHashes(afterRestart.statuses), stateHashes(before.statuses));
      assert.deepEqual(afterRestart.orders, before.orders);
      assert.deepEqual(afterRestart.fills, before.fills);
      assert.deepEqual(afterRestart.freeByAccount, before.freeByAccount, 'the treasury rebuilds every free balance');
      assert.equal(afterRestart.externalMicros, before.externalMicros);
      // The restarted runtime keeps trading where it left off.
      await trade(server, 50 + shards, 200);
      assertRuntimeState(await readRuntimeState(server.trading, ACCOUNTS));
    } finally {
      await server?.stop();
      removeDataDir(dataDir);
    }
  });
}

test('a DATA_DIR written with SHARDS=2 refuses to start with SHARDS=1', async () => {
  const dataDir = temporaryDataDir();
  try {
    const server = await startInProcess(dataDir, 2);
    await server.stop();
    await assert.rejects(startInProcess(dataDir, 1), /SHARDS=2/);
  } finally {
    removeDataDir(dataDir);
  }
});

describe('a reused order id', () => {
  const dataDir = temporaryDataDir();
  let server: Server | undefined;
  after(async () => {
    await server?.stop();
    removeDataDir(dataDir);
  });

  test('is DUPLICATE_ORDER while live, after its cancel, and after a restart; its funds come back', async () => {
    server = await startInProcess(dataDir, 2);
    const account = accountAddress(0);
    const marketKey = server.trading.client.marketKeys()[0]!;
    const order: PlaceOrder = {
      account, orderId: 'same-id', marketKey, outcome: 0, side: Side.Buy, orderType: OrderType.GTC, priceUnits: 3000, sizeMicros: 10 * ONE_MICROS,
    };
    assert.equal(server.trading.client.deposit(account, 100 * ONE_MICROS), true);
    assert.equal(rejectionOf((await server.trading.client.placeOrder(order)).events, 'same-id'), 0);
    const freeMicros = server.trading.treasury.freeOf(account);
    assert.equal(freeMicros, 97 * ONE_MICROS);
    const again = { ...order, priceUnits: 4000 };
    assert.equal(rejectionOf((await server.trading.client.placeOrder(again)).events, 'same-id'), Reject.DUPLICATE_ORDER);
    assert.equal(server.trading.treasury.freeOf(account), freeMicros, 'the duplicate\'s funding went back');
    const cancelled = await server.trading.client.cancelOrder(account, 'same-id');
    assert.ok(cancelled.events.some((event) => event.kind === 'ORDER_CANCELLED'));
    assert.equal(rejectionOf((await server.trading.client.placeOrder(again)).events, 'same-id'), Reject.DUPLICATE_ORDER);
    await server.stop();
    server = await startInProcess(dataDir, 2);
    assert.equal(rejectionOf((await server.trading.client.placeOrder(again)).events, 'same-id'), Reject.DUPLICATE_ORDER);
    assert.equal(server.trading.treasury.freeOf(account), 100 * ONE_MICROS);
    assertRuntimeState(await readRuntimeState(server.trading, [account]));
  });
});

/** What a test on a one-shard pool of its own gets: a client, one funded account, one market. */
interface OwnPool {
  readonly pool: ShardPool;
  readonly treasury: Treasury;
  readonly client: TradingClient;
  readonly account: string;
  readonly marketKey: string;
}

/** Runs `body` on a fresh one-shard pool (the engine's default order history unless given), then removes it. */
async function withOwnPool(orderHistory: number | undefined, body: (own: OwnPool) => Promise<void>): Promise<void> {
  const dataDir = temporaryDataDir();
  const treasury = new Treasury(dataDir, 1);
  const engine = { operatorAddress: accountAddress(99), ...(orderHistory === undefined ? {} : { orderHistory }) };
  const pool = new ShardPool({ dataDir, shards: 1, engine }, treasury, createLogger('silent'));
  try {
    await pool.start();
    const client = new TradingClient(pool, treasury, Date.now);
    const marketKey = '0x' + 'ab'.repeat(32);
    await client.addMarket({ key: marketKey, tickUnits: 100, minSizeMicros: ONE_MICROS, feeBps: 0 });
    const account = accountAddress(0);
    assert.equal(client.deposit(account, 1_000 * ONE_MICROS), true);
    await body({ pool, treasury, client, account, marketKey });
  } finally {
    await pool.stop();
    await treasury.close();
    removeDataDir(dataDir);
  }
}

test('an id the engine forgot is still DUPLICATE_ORDER: the shard checks its stored orders', async () => {
  // A tiny order history, so finished orders leave the engine's memory.
  await withOwnPool(4, async ({ pool, treasury, client, account, marketKey }) => {
    const order = (orderId: string): PlaceOrder => ({
      account, orderId, marketKey, outcome: 0, side: Side.Buy, orderType: OrderType.GTC, priceUnits: 5000, sizeMicros: 2 * ONE_MICROS,
    });
    for (let index = 0; index < 10; index++) {
      const id = `forgotten-${index}`;
      assert.equal(rejectionOf((await client.placeOrder(order(id))).events, id), 0);
      assert.ok((await client.cancelOrder(account, id)).events.some((event) => event.kind === 'ORDER_CANCELLED'));
    }
    const [remembered] = await client.statuses();
    assert.equal(remembered?.stats['ordersFinishedRemembered'], 4, 'the engine remembers the last 4 of 10 finished orders');
    assert.equal((await pool.read<unknown[]>(0, { kind: 'storedOrders' })).length, 10);
    const freeMicros = treasury.freeOf(account);
    const result = await client.placeOrder(order('forgotten-0'));
    assert.equal(rejectionOf(result.events, 'forgotten-0'), Reject.DUPLICATE_ORDER);
    assert.equal(treasury.freeOf(account), freeMicros, 'the refused order\'s funding went back');
    const [status] = await client.statuses();
    assert.ok(status !== undefined && status.invariantsHold);
    assert.equal(treasury.totalFree() + (status.stats['supplyMicros'] ?? -1), treasury.totalExternal());
    // The refusal was never journaled: a fresh id right after it is accepted and the shard moves on.
    assert.equal(rejectionOf((await client.placeOrder(order('fresh'))).events, 'fresh'), 0);
  });
});

test('a resting order sent again as another type is DUPLICATE_ORDER before any other check', async () => {
  // The orders table holds finished orders only, so for a live order the shard asks its engine;
  // the engine alone would refuse a post-only FOK first (its checks run in a fixed order).
  await withOwnPool(undefined, async ({ client, account, marketKey }) => {
    const order = (orderType: OrderType): PlaceOrder => ({
      account, orderId: 'resting-post-only', marketKey, outcome: 0, side: Side.Buy, orderType, postOnly: true, priceUnits: 4000, sizeMicros: 2 * ONE_MICROS,
    });
    assert.equal(rejectionOf((await client.placeOrder(order(OrderType.GTC))).events, 'resting-post-only'), 0);
    for (const orderType of [OrderType.FOK, OrderType.FAK, OrderType.GTC]) {
      assert.equal(rejectionOf((await client.placeOrder(order(orderType))).events, 'resting-post-only'), Reject.DUPLICATE_ORDER, `as type ${orderType}`);
    }
  });
});
