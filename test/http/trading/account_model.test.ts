// The account read model fed by a bare engine's answers (encoded and decoded as the result ring
// carries them) over seeded random flows: every order type, fills, cancels, GTD expiries,
// resolutions, deposits and withdrawals. Fed from the start, or loaded as of a sequence number
// while answers are held (some older than the load, applied after it, and skipped), it ends with
// exactly the engine's live orders and balances of every account, and its finished orders are
// the engine's. The sorted order lists page and remove as a sorted array does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Engine } from '../../../engine/engine.js';
import type { FrameResult } from '../../../engine/shard/core.js';
import { AnswerDecoder, AnswerWriter } from '../../../engine/shard/answer_codec.js';
import type { AccountData as ShardAccountData, ShardRead } from '../../../engine/shard/protocol.js';
import { createLogger } from '../../../http/log.js';
import { AccountData } from '../../../http/trading/account_data.js';
import { compareListed, OrderList, type Listed } from '../../../http/trading/order_list.js';
import type { ShardPool } from '../../../http/trading/shards.js';
import { Prng } from '../../engine/prng.js';
import { RandomCommands } from '../../engine/random_commands.js';

const OPERATOR = '0x00000000000000000000000000000000000000fe';
const ACCOUNTS = 8;
const COMMANDS = 5_000;

/** A pool of one shard whose load read the test answers when it chooses. */
class LoadingPool {
  readonly count = 1;
  private answer: ((data: ShardAccountData) => void) | undefined;

  read<T>(_shard: number, read: ShardRead): Promise<T> {
    assert.equal(read.kind, 'accountData');
    return new Promise<T>((resolve) => (this.answer = resolve as (data: ShardAccountData) => void));
  }

  isReady(): boolean {
    return true;
  }

  /** Answers the pending load and lets the model take it. */
  async load(data: ShardAccountData): Promise<void> {
    this.answer!(data);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The engine's answers to a seeded flow, and its accounts as of command `loadAt` (sequence number seq). */
function run(seed: number, loadAt: number): { engine: Engine; results: FrameResult[]; data: ShardAccountData; accounts: string[] } {
  const flow = new RandomCommands(seed, { accounts: ACCOUNTS, markets: 3, marketsMax: 64 });
  const engine = new Engine({ operatorAddress: OPERATOR, marketsMax: 64, orderHistory: 1 << 16 });
  const writer = new AnswerWriter();
  const decoder = new AnswerDecoder();
  const results: FrameResult[] = [];
  const commands = flow.setup();
  let data: ShardAccountData | undefined;
  for (let index = 0; results.length < COMMANDS; index++) {
    const command = index < commands.length ? commands[index]! : flow.next(engine);
    engine.execute(command);
    const start = writer.write({ requestId: index + 1, timeMs: command.timeMs, error: '', market: -1, marketKey: '', fundedAccount: '', fundedMicros: 0, credits: [], redemptions: [] }, engine.events);
    const bytes = writer.slice(start, writer.end() - start);
    results.push(decoder.decode(bytes, 0, bytes.length));
    writer.reset();
    engine.events.clear();
    if (results.length === loadAt) data = { seq: command.seq, accounts: engine.accounts() };
  }
  const accounts = [OPERATOR, ...Array.from({ length: ACCOUNTS }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`)];
  return { engine, results, data: data!, accounts };
}

function assertSame(model: AccountData, engine: Engine, accounts: readonly string[], what: string): void {
  let live = 0;
  for (const account of accounts) {
    const orders = engine.openOrdersOf(account).map((view) => ({ ...view, shard: 0 })).sort(compareListed).map(({ shard: _shard, ...view }) => view);
    assert.deepEqual(model.openOrdersOn(account, 0), orders, `${what}: live orders of ${account}`);
    const balance = engine.balanceOf(account);
    const holds = balance !== undefined && (balance.collateralFreeMicros !== 0 || balance.collateralReservedMicros !== 0 || balance.positions.length > 0);
    assert.deepEqual(model.balanceOn(account, 0), holds ? balance : undefined, `${what}: balances of ${account}`);
    live += orders.length;
  }
  let finished = 0;
  for (const { view } of model.finishedOrders()) {
    assert.deepEqual(view, engine.getOrder(view.orderId), `${what}: finished order ${view.orderId}`);
    finished++;
  }
  assert.ok(live > 0 && finished > 0, `${what}: ${live} live and ${finished} finished orders compared`);
}

for (const seed of [1, 2, 3]) {
  test(`the model equals the engine, fed from the start or loaded midway with answers held (seed ${seed})`, async () => {
    const loadAt = 2_000 + 500 * seed;
    const { engine, results, data, accounts } = run(seed, loadAt);
    const log = createLogger('silent');

    const fromStart = new LoadingPool();
    const fed = new AccountData(fromStart as unknown as ShardPool, log, 1 << 20);
    fed.started(0);
    await fromStart.load({ seq: 0, accounts: new Engine({ operatorAddress: OPERATOR }).accounts() });
    for (const result of results) fed.answered(0, result);
    assertSame(fed, engine, accounts, 'fed from the start');

    // Loaded as of answer `loadAt`: the answers before `heldUntil` wait for the load; those
    // from there to `loadAt` come after it, and the model must skip them as the load holds them.
    const midway = new LoadingPool();
    const loaded = new AccountData(midway as unknown as ShardPool, log, 1 << 20);
    loaded.started(0);
    const heldUntil = loadAt - 300;
    results.slice(0, heldUntil).forEach((result) => loaded.answered(0, result));
    assert.equal(loaded.loaded(), false);
    await midway.load(data);
    assert.equal(loaded.loaded(), true);
    results.slice(heldUntil).forEach((result) => loaded.answered(0, result));
    assertSame(loaded, engine, accounts, 'loaded midway');
  });
}

test('finished orders past the history are forgotten, oldest first', async () => {
  const { results } = run(4, 1);
  const pool = new LoadingPool();
  const model = new AccountData(pool as unknown as ShardPool, createLogger('silent'), 16);
  model.started(0);
  await pool.load({ seq: 0, accounts: new Engine({ operatorAddress: OPERATOR }).accounts() });
  const order: string[] = [];
  for (const result of results) {
    model.answered(0, result);
    for (const event of result.events) {
      const finished = (event.kind === 'ORDER_ACCEPTED' && !event.rests && event.remainingMicros === 0) || event.kind === 'ORDER_CANCELLED'
        || (event.kind === 'ORDER_UPDATED' && event.remainingMicros === 0);
      if (!finished) continue;
      const at = order.indexOf(event.orderId);
      if (at !== -1) order.splice(at, 1);
      order.push(event.orderId);
    }
  }
  assert.deepEqual([...model.finishedOrders()].map(({ view }) => view.orderId), order.slice(-16));
});

test('an order list keeps creation order through inserts and removals, and pages as a sorted array slices', () => {
  const prng = new Prng(9);
  const list = new OrderList<Listed>();
  const reference: Listed[] = [];
  for (let step = 0; step < 20_000; step++) {
    if (reference.length > 0 && prng.below(100) < 45) {
      const [item] = reference.splice(prng.below(reference.length), 1);
      assert.equal(list.remove(item!), true);
      assert.equal(list.remove(item!), false, 'an item is removed once');
    } else {
      // Mostly the newest, sometimes one the same millisecond or older, on two shards.
      const createdAtMs = 1_000 + step - (prng.below(10) === 0 ? prng.below(500) : 0);
      const item = { createdAtMs, orderId: `0x${prng.below(1 << 20).toString(16)}`, shard: prng.below(2) };
      list.insert(item);
      reference.push(item);
      reference.sort(compareListed);
    }
    if (step % 1_000 === 999) {
      assert.equal(list.size, reference.length);
      assert.deepEqual([...list.values()], reference);
      for (const offset of [0, 1, 127, 128, 500, Math.max(0, reference.length - 3)]) {
        assert.deepEqual(list.page(offset, 100), reference.slice(offset, offset + 100), `page at ${offset}`);
      }
    }
  }
});
