// The shard pool under pressure. A full command ring refuses at once with ShardUnavailable
// (the edge's 503 with Retry-After: 1) instead of queueing, and everything it did accept is
// answered, each answer matched to its request. A shard worker that dies answers ShardUnavailable
// until the pool has restarted it, then comes back with the state of its acknowledged work; the
// commands it committed without answering are answered by the next worker, never refused, and
// the treasury stays exact even for funded orders that were in flight when it died. A read that
// meets a stored record that does not decode fails with that error, and the shard goes on.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CommandKind, OrderType, Side } from '../../../engine/command.js';
import type { FrameResult } from '../../../engine/shard/core.js';
import { openDurable } from '../../../engine/durable_env.js';
import { COMMAND_LAYOUT } from '../../../engine/shard/protocol.js';
import type { Server } from '../../../http/server.js';
import { TradingClient, type PlaceOrder, type TradeResult } from '../../../http/trading/client.js';
import { ShardUnavailable } from '../../../http/trading/shards.js';
import { Prng } from '../../engine/prng.js';
import {
  accountAddress, assertRuntimeState, marketsOnEveryShard, ONE_MICROS, OrderFlow, readRuntimeState, removeDataDir, runFlow,
  startInProcess, stateHashes, suiteServer, temporaryDataDir, waitUntil,
} from './support.js';

const ACCOUNTS = Array.from({ length: 16 }, (_, index) => accountAddress(index));
const DEPOSIT_MICROS = 100_000 * ONE_MICROS;
const RESTART_TIMEOUT_MS = 10_000;
/** The flood stops once the full ring refused this many frames... */
const REFUSALS = 1_000;
/** ...which must happen long before this many: the shard holds a bounded number of answers. */
const ATTEMPTS_MAX = COMMAND_LAYOUT.slotCount * 32;

function assertUnavailable(error: unknown): true {
  assert.ok(error instanceof ShardUnavailable, `expected ShardUnavailable, got ${String(error)}`);
  assert.equal(error.retryAfterS, 1);
  return true;
}

/** Settles every promise; answers and ShardUnavailable refusals apart. */
async function settle<T>(promises: readonly Promise<T>[]): Promise<{ answered: T[]; refused: number }> {
  const answered: T[] = [];
  let refused = 0;
  for (const outcome of await Promise.allSettled(promises)) {
    if (outcome.status === 'fulfilled') answered.push(outcome.value);
    else if (assertUnavailable(outcome.reason)) refused++;
  }
  return { answered, refused };
}

function acceptedId(result: TradeResult): string | undefined {
  for (const event of result.events) if (event.kind === 'ORDER_ACCEPTED') return event.orderId;
  return undefined;
}

describe('a full command ring', () => {
  const dataDir = temporaryDataDir();
  let server: Server;
  before(async () => {
    server = await startInProcess(dataDir, 1);
    for (const account of ACCOUNTS) assert.equal(server.trading.client.deposit(account, DEPOSIT_MICROS), true);
  });
  after(async () => {
    await server.stop();
    removeDataDir(dataDir);
  });

  test('refuses the overflow at once with ShardUnavailable and answers every frame it took', async () => {
    const { pool } = server.trading;
    const committedBefore = (await pool.status(0)).framesCommitted;
    const startedMs = Date.now();
    // Nothing awaits inside the loop, so the front end reads no answer while it writes: once the
    // shard has filled its result ring (and its commits in flight) it stops taking frames, and
    // the command ring fills up. The loop goes on until the ring has refused REFUSALS frames.
    const sent: [string, Promise<FrameResult>][] = [];
    let refused = 0;
    let attempts = 0;
    for (let index = 0; index < ATTEMPTS_MAX && refused < REFUSALS; index++) {
      attempts++;
      const orderId = `flood-${index}`;
      try {
        sent.push([orderId, pool.send(0, (frame) => {
          const command = frame.command;
          command.kind = CommandKind.CancelOrder;
          command.timeMs = Date.now();
          command.account = 'a';
          command.orderId = orderId;
          frame.marketKey = '';
        })]);
      } catch (error) {
        assertUnavailable(error);
        refused++;
      }
    }
    assert.equal(refused, REFUSALS, `the ring was still taking frames after ${attempts}`);
    assert.ok(sent.length >= COMMAND_LAYOUT.slotCount / 2, `the ring took ${sent.length} frames before it was full`);
    assert.equal(sent.length + refused, attempts);
    for (const [orderId, promise] of sent) {
      const result = await promise;
      assert.equal(result.error, '');
      assert.deepEqual(result.events.map((event) => [event.kind, 'orderId' in event ? event.orderId : '']), [['CANCEL_REJECTED', orderId]]);
    }
    // Besides the flood, the shard committed one expiry tick per second (ExpireOrders).
    const committed = (await pool.status(0)).framesCommitted - committedBefore;
    const ticksMax = Math.ceil((Date.now() - startedMs) / 1000) + 1;
    assert.ok(committed >= sent.length && committed <= sent.length + ticksMax, `${committed} frames committed for ${sent.length} sent`);
  });

  test('funded orders refused by a full ring get their collateral back', async () => {
    const { client, treasury } = server.trading;
    const marketKey = client.marketKeys()[0]!;
    const order = (index: number): PlaceOrder => ({
      account: ACCOUNTS[index % ACCOUNTS.length]!, orderId: `fok-${index}`, marketKey, outcome: index % 2, side: Side.Buy,
      orderType: OrderType.FOK, priceUnits: 100 * (1 + (index % 40)), sizeMicros: 5 * ONE_MICROS,
    });
    // More orders than the command ring, the result ring and the shard's pending commits hold
    // together, so some must be refused whatever the shard's speed.
    const attempts = COMMAND_LAYOUT.slotCount * 6;
    const { answered, refused } = await settle(Array.from({ length: attempts }, (_, index) => client.placeOrder(order(index))));
    assert.ok(refused > 0, 'the ring filled up');
    assert.equal(answered.length + refused, attempts);
    assert.ok(answered.every((result) => result.events.some((event) => event.kind === 'ORDER_REJECTED' || event.kind === 'ORDER_ACCEPTED')));
    for (const account of ACCOUNTS) assert.equal(treasury.freeOf(account), DEPOSIT_MICROS, `${account} holds no stray reserve`);
    assertRuntimeState(await readRuntimeState(server.trading, ACCOUNTS));
  });

  test('a non-ASCII order id is refused before it reaches the ring, and the shard keeps answering', async () => {
    const { client, treasury } = server.trading;
    const marketKey = client.marketKeys()[0]!;
    const account = ACCOUNTS[0]!;
    const order: PlaceOrder = {
      account, orderId: 'ordré', marketKey, outcome: 0, side: Side.Buy, orderType: OrderType.GTC, priceUnits: 1000, sizeMicros: 5 * ONE_MICROS,
    };
    await assert.rejects(client.placeOrder(order), RangeError);
    assert.equal(treasury.freeOf(account), DEPOSIT_MICROS);
    const answer = await client.placeOrder({ ...order, orderId: 'plain-ascii' });
    assert.equal(acceptedId(answer), 'plain-ascii');
    assert.ok((await client.cancelOrder(account, 'plain-ascii')).events.some((event) => event.kind === 'ORDER_CANCELLED'));
  });
});

describe('a shard worker that dies', () => {
  const dataDir = temporaryDataDir();
  let server: Server;
  let markets: string[][];
  before(async () => {
    server = await startInProcess(dataDir, 2);
    for (const account of ACCOUNTS) assert.equal(server.trading.client.deposit(account, DEPOSIT_MICROS), true);
    markets = marketsOnEveryShard(server.trading, 3);
  });
  after(async () => {
    await server.stop();
    removeDataDir(dataDir);
  });

  const restingBuy = (shard: number, orderId: string): PlaceOrder => ({
    account: ACCOUNTS[0]!, orderId, marketKey: markets[shard]![0]!, outcome: 0, side: Side.Buy, orderType: OrderType.GTC,
    priceUnits: 1000, sizeMicros: 5 * ONE_MICROS,
  });

  test('is answered ShardUnavailable while it restarts, then comes back with the state of its acknowledged work', async () => {
    const { client, pool } = server.trading;
    const flow = new OrderFlow(new Prng(7), ACCOUNTS, markets.flat(), 'before-');
    await runFlow(client, flow, 500, 16, { onAck: () => undefined });
    const before = await readRuntimeState(server.trading, ACCOUNTS);
    assertRuntimeState(before);
    await pool.killWorker(0);
    assert.equal(pool.isReady(0), false);
    await assert.rejects(client.placeOrder(restingBuy(0, 'during-restart')), assertUnavailable);
    await assert.rejects(pool.status(0), assertUnavailable);
    assert.equal(server.trading.treasury.freeOf(ACCOUNTS[0]!), before.freeByAccount[0]![1], 'the refused order\'s funding stayed');
    // The other shard does not notice.
    assert.equal(acceptedId(await client.placeOrder(restingBuy(1, 'other-shard'))), 'other-shard');
    await waitUntil(() => pool.isReady(0), RESTART_TIMEOUT_MS, 'shard 0 to restart');
    assert.equal(pool.restarts(0), 1);
    assert.ok((pool.recovery(0)?.replayedFrames ?? 0) > 0, 'the restarted shard replayed its journal');
    const statuses = await client.statuses();
    assert.equal(statuses[0]!.stateHash, before.statuses[0]!.stateHash);
    assert.equal(await client.order('during-restart'), null);
    assert.equal(acceptedId(await client.placeOrder(restingBuy(0, 'after-restart'))), 'after-restart');
    await runFlow(client, flow, 300, 16, { onAck: () => undefined });
    assertRuntimeState(await readRuntimeState(server.trading, ACCOUNTS));
  });

  test('keeps what it acknowledged when killed with funded orders in flight, and the treasury stays exact', async (t) => {
    const { client, pool } = server.trading;
    const restarts = pool.restarts(0);
    const funded = (from: number, count: number): Promise<TradeResult>[] => Array.from({ length: count }, (_, offset) => {
      const index = from + offset;
      return client.placeOrder({
        ...restingBuy(0, `in-flight-${index}`), account: ACCOUNTS[index % ACCOUNTS.length]!, outcome: index % 2, priceUnits: 100 * (1 + (index % 45)),
      });
    });
    // A first wave is acknowledged; a second is written and the worker is killed as its first
    // answer arrives: it has committed part of the wave and cannot have committed all of it (a
    // batch takes at most 4 096 frames). A fixed delay instead raced the worker's speed.
    const acknowledged = await Promise.all(funded(0, 200));
    const inFlight = funded(200, 6_000);
    await Promise.any(inFlight).catch(() => undefined); // every one refused: nothing to wait for
    await pool.killWorker(0);
    const { answered, refused } = await settle(inFlight);
    // The kill lands while the worker works through the wave; on a loaded machine it may land
    // after the last commit, and then nothing is refused (what follows holds either way; the
    // kill between a commit and its answers is made certain in huge_answers.test.ts).
    assert.equal(answered.length + refused, inFlight.length);
    answered.push(...acknowledged);
    await waitUntil(() => pool.isReady(0), RESTART_TIMEOUT_MS, 'shard 0 to restart');
    assert.equal(pool.restarts(0), restarts + 1);
    const state = await readRuntimeState(server.trading, ACCOUNTS);
    assertRuntimeState(state);
    const stored = new Set(state.orders.map(([, view]) => view.orderId));
    const acceptedIds = new Set<string>();
    for (const result of answered) {
      const id = acceptedId(result);
      if (id !== undefined) acceptedIds.add(id);
      if (id !== undefined) assert.ok(stored.has(id), `acknowledged order ${id} was lost with the worker`);
    }
    // No order the shard committed is refused: the restarted worker answers what the dead one
    // committed and did not answer (from its journal), and refuses only what it never ran.
    const committedRefused = [...stored].filter((id) => id.startsWith('in-flight-') && !acceptedIds.has(id)).length;
    t.diagnostic(`in flight at the kill: ${answered.length - acknowledged.length} answered, ${refused} refused`);
    assert.equal(committedRefused, 0, 'no committed order was answered as failed');
    const [status] = await client.statuses();
    assert.deepEqual(stateHashes([status!]), stateHashes([state.statuses[0]!]));
  });
});

describe('a cancel sent to every shard while one is down', () => {
  const suite = suiteServer(async (dataDir) => ({ server: await startInProcess(dataDir, 2) }));

  test('is answered by the shard that has the order (its cancel is committed), and is a 503 only when that shard may be the one down', async () => {
    const { server } = suite();
    assert.equal(server.trading.client.deposit(ACCOUNTS[0]!, DEPOSIT_MICROS), true);
    const { pool, treasury } = server.trading;
    const markets = marketsOnEveryShard(server.trading, 1);
    const resting = (shard: number, orderId: string): PlaceOrder => ({
      account: ACCOUNTS[0]!, orderId, marketKey: markets[shard]![0]!, outcome: 0, side: Side.Buy, orderType: OrderType.GTC, priceUnits: 1000, sizeMicros: 5 * ONE_MICROS,
    });
    assert.equal(acceptedId(await server.trading.client.placeOrder(resting(1, 'on-shard-1'))), 'on-shard-1');
    // A client without hints (as after a restart of the front end) asks every shard.
    const unhinted = new TradingClient(pool, treasury, Date.now);
    await pool.killWorker(0);
    assert.equal(pool.isReady(0), false);
    const answer = await unhinted.cancelOrder(ACCOUNTS[0]!, 'on-shard-1');
    assert.deepEqual(answer.events.filter((event) => event.kind === 'ORDER_CANCELLED').map((event) => 'orderId' in event && event.orderId), ['on-shard-1']);
    // An order no shard that answered knows may be on the one that is down: retry later.
    await assert.rejects(unhinted.cancelOrder(ACCOUNTS[0]!, 'nowhere'), assertUnavailable);
    await waitUntil(() => pool.isReady(0), RESTART_TIMEOUT_MS, 'shard 0 to restart');
    const notFound = await unhinted.cancelOrder(ACCOUNTS[0]!, 'nowhere');
    assert.ok(notFound.events.every((event) => event.kind === 'CANCEL_REJECTED'));
  });
});

describe('a stored record that does not decode', () => {
  const dataDir = temporaryDataDir();
  let server: Server;
  before(async () => {
    server = await startInProcess(dataDir, 1);
  });
  after(async () => {
    await server.stop();
    removeDataDir(dataDir);
  });

  test('fails the read that meets it, with its error, and the shard goes on', async () => {
    const { client, pool } = server.trading;
    const [buyer, seller] = [accountAddress(0), accountAddress(1)];
    for (const account of [buyer, seller]) assert.equal(client.deposit(account, DEPOSIT_MICROS), true);
    const [marketKey] = marketsOnEveryShard(server.trading, 1)[0]!;
    const order = (account: string, orderId: string, outcome: number): PlaceOrder => ({
      account, orderId, marketKey: marketKey!, outcome, side: Side.Buy, orderType: OrderType.GTC, priceUnits: 5000, sizeMicros: 10 * ONE_MICROS,
    });
    assert.equal(acceptedId(await client.placeOrder(order(buyer, 'yes-1', 0))), 'yes-1');
    assert.equal(acceptedId(await client.placeOrder(order(seller, 'no-1', 1))), 'no-1', 'the two BUYs mint');

    // The worker's environment, shared within this process: the fill's record (its group, read
    // by nobody yet) becomes bytes of no layout.
    const root = openDurable(join(dataDir, 'shard-0'), 16);
    const fills = root.openDB({ name: 'fills', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const keys = [...fills.getKeys()];
    assert.equal(keys.length, 1, 'one fill, in one group');
    root.transactionSync(() => fills.putSync(keys[0]!, Buffer.from([9, 9, 9])));
    await assert.rejects(pool.read(0, { kind: 'storedFills' }), /shard 0 read failed: the fills from \d+:\d+ does not decode/);

    assert.equal(pool.restarts(0), 0, 'the worker did not die');
    assert.equal(acceptedId(await client.placeOrder(order(buyer, 'yes-2', 0))), 'yes-2');
    const [status] = await client.statuses();
    assert.ok(status !== undefined && status.invariantsHold);
  });
});
