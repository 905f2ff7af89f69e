// Account reads (GET /data/orders, /data/order/{id}, /balance-allowance) are answered by the
// front end's account read model, not by a matching worker: the workers' read counter
// (clobd_shard_reads_total) does not move for them. They read their own writes: an order
// answered 200 is in the very next read, and so are its reserve, its fills and its cancel. Only
// an id the model does not hold (a finished order older than ACCOUNT_ORDER_HISTORY, or no
// order at all) is looked up by the workers' finished-order index.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { restMany, startTrading, type PlainMarket, type Trader } from './trader.js';

interface Page {
  data: Record<string, unknown>[];
  next_cursor: string;
  count: number;
}

interface Balance {
  balance: string;
  allowance: string;
}

/** The workers' reads so far, by kind (all shards together). */
async function workerReads(clobUrl: string): Promise<Map<string, number>> {
  const response = await request(`${clobUrl}/metrics`);
  assert.equal(response.status, 200);
  const reads = new Map<string, number>();
  for (const line of response.text.split('\n')) {
    const match = /^clobd_shard_reads_total\{shard="\d+",kind="(\w+)"\} (\d+)$/.exec(line);
    if (match !== null) reads.set(match[1]!, (reads.get(match[1]!) ?? 0) + Number(match[2]));
  }
  return reads;
}

/** How many more reads of each kind `after` counts than `before`; kinds that did not move are left out. */
function moved(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [kind, count] of after) if (count !== (before.get(kind) ?? 0)) delta[kind] = count - (before.get(kind) ?? 0);
  return delta;
}

const collateral = async (trader: Trader): Promise<Balance> => (await trader.send<Balance>('GET', '/balance-allowance?asset_type=COLLATERAL')).body;
const liveIds = async (trader: Trader, query = ''): Promise<string[]> => {
  const page = await trader.send<Page>('GET', `/data/orders${query}`);
  assert.equal(page.status, 200, page.text);
  return page.body.data.map((row) => String(row['id']));
};

describe('account reads on the read model', () => {
  let server: RunningServer;
  let markets: readonly PlainMarket[];
  let maker: Trader;
  let taker: Trader;
  let deep: Trader;

  before(async () => {
    const setup = await startTrading([41, 42, 44]);
    ({ server, markets } = setup);
    [maker, taker, deep] = setup.traders as [Trader, Trader, Trader];
  });

  after(async () => {
    await server.stop();
    removeDataDir(server.dataDir);
  });

  test('read their own writes and ask no matching worker', async () => {
    const before = await workerReads(server.urls.clob);
    assert.ok((before.get('marketData') ?? 0) >= 2, 'the counter counts: the market read model loaded every shard through it');
    const placed: string[] = [];
    for (const [index, market] of markets.entries()) {
      const order = await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2000 + 100 * index, sizeMicros: 10_000_000 });
      assert.equal(order.status, 200, order.text);
      placed.push(order.orderId);
      // Right after the 200: the order, its reserve.
      assert.deepEqual(await liveIds(maker), placed);
      assert.deepEqual(await liveIds(maker, `?id=${order.orderId}`), [order.orderId]);
      const own = await maker.send<{ order: Record<string, unknown> }>('GET', `/data/order/${order.orderId}`);
      assert.deepEqual([own.status, own.body.order['status'], own.body.order['sizeMatched']], [200, 'LIVE', '0']);
    }
    const reserved = markets.reduce((sum, _, index) => sum + (2000 + 100 * index) * 1000, 0);
    assert.deepEqual(await collateral(maker), { balance: '1000000000', allowance: String(1_000_000_000 - reserved) });

    // A fill: the maker's order is partly matched, the taker holds NO shares, at once.
    const market = markets[0]!;
    const fill = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 8000, sizeMicros: 5_000_000, orderType: 'FOK' });
    assert.equal(fill.status, 200, fill.text);
    const partly = await maker.send<{ order: Record<string, unknown> }>('GET', `/data/order/${placed[0]}`);
    assert.deepEqual([partly.body.order['status'], partly.body.order['sizeMatched']], ['LIVE', '5']);
    const shares = await taker.send<Balance>('GET', `/balance-allowance?asset_type=CONDITIONAL&token_id=${market.no}`);
    assert.deepEqual(shares.body, { balance: '5000000', allowance: '5000000' });
    const taken = await taker.send<{ order: Record<string, unknown> }>('GET', `/data/order/${fill.orderId}`);
    assert.deepEqual([taken.status, taken.body.order['status'], taken.body.order['sizeMatched']], [200, 'MATCHED', '5']);
    assert.deepEqual(await liveIds(maker, `?market=${market.conditionId}`), [placed[0]]);
    assert.deepEqual(await liveIds(maker, `?asset_id=${markets[1]!.yes}`), [placed[1]]);
    assert.deepEqual(await liveIds(maker, `?asset_id=${markets[1]!.no}`), []);

    // A cancel: gone from the live list, CANCELED by id, its reserve back.
    const cancelled = await maker.send('DELETE', '/order', { orderID: placed[1] });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.deepEqual(await liveIds(maker), [placed[0], ...placed.slice(2)]);
    const gone = await maker.send<{ order: Record<string, unknown> }>('GET', `/data/order/${placed[1]}`);
    assert.equal(gone.body.order['status'], 'CANCELED');
    assert.equal((await taker.send('GET', `/data/order/${placed[0]}`)).status, 404, 'never another account\'s order');

    assert.deepEqual(moved(before, await workerReads(server.urls.clob)), {}, 'no read asked a worker');
  });

  test('pages of 500 in creation order, all, by market and by token, with their cursors', async () => {
    const before = await workerReads(server.urls.clob);
    await restMany(deep, markets[0]!, 600, 10_000);
    await restMany(deep, markets[1]!, 420, 20_000);
    // NO bids in markets[1] too, so a token's pages step over the other token's orders.
    for (let index = 0; index < 90; index++) {
      const order = await deep.place({ tokenId: markets[1]!.no, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000, salt: 30_000 + index });
      assert.equal(order.status, 200, order.text);
    }
    const pages = async (query: string): Promise<[Record<string, unknown>[], string[]]> => {
      const rows: Record<string, unknown>[] = [];
      const cursors: string[] = [];
      let cursor = 'MA==';
      while (cursor !== '') {
        const page = await deep.send<Page>('GET', `/data/orders?${query}next_cursor=${encodeURIComponent(cursor)}`);
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.count <= 500 && page.body.count === page.body.data.length);
        rows.push(...page.body.data);
        cursor = page.body.next_cursor;
        cursors.push(cursor);
      }
      return [rows, cursors];
    };
    // Creation time, then id: the order the route gave when it sorted every order.
    const sorted = (rows: Record<string, unknown>[]): boolean => rows.every((row, index) => index === 0
      || (String(rows[index - 1]!['createdAt']).localeCompare(String(row['createdAt'])) || String(rows[index - 1]!['id']).localeCompare(String(row['id']))) < 0);
    const [all, allCursors] = await pages('');
    assert.equal(all.length, 1_110);
    assert.equal(new Set(all.map((row) => row['id'])).size, 1_110);
    assert.deepEqual(allCursors, [Buffer.from('500').toString('base64'), Buffer.from('1000').toString('base64'), '']);
    assert.ok(sorted(all));
    const [inFirst, firstCursors] = await pages(`market=${markets[0]!.conditionId}&`);
    assert.deepEqual(inFirst.map((row) => row['id']), all.filter((row) => row['market'] === markets[0]!.conditionId).map((row) => row['id']));
    assert.equal(firstCursors.length, 2);
    const [noBids] = await pages(`asset_id=${markets[1]!.no}&`);
    assert.deepEqual(noBids.map((row) => row['id']), all.filter((row) => row['assetId'] === markets[1]!.no).map((row) => row['id']));
    assert.equal(noBids.length, 90);
    const [yesBids, yesCursors] = await pages(`market=${markets[1]!.conditionId.toUpperCase().replace('0X', '0x')}&asset_id=${markets[1]!.yes}&`);
    assert.equal(yesBids.length, 420);
    assert.deepEqual(yesCursors, ['']);
    const past = await deep.send<Page>('GET', `/data/orders?next_cursor=${Buffer.from('5000').toString('base64')}`);
    assert.deepEqual([past.body.count, past.body.next_cursor], [0, '']);
    assert.deepEqual(moved(before, await workerReads(server.urls.clob)), {}, 'no read asked a worker');
  });
});

describe('a finished order the read model no longer holds', () => {
  let server: RunningServer;
  let market: PlainMarket;
  let owner: Trader;

  before(async () => {
    const setup = await startTrading([43], { ACCOUNT_ORDER_HISTORY: '2', SHARDS: '1' });
    server = setup.server;
    market = setup.markets[0]!;
    [owner] = setup.traders as [Trader];
  });

  after(async () => {
    await server.stop();
    removeDataDir(server.dataDir);
  });

  test('is read from the worker\'s finished-order index, the only read that asks a worker', async () => {
    const finished: string[] = [];
    for (let index = 0; index < 4; index++) {
      const order = await owner.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000 + 100 * index, sizeMicros: 5_000_000 });
      assert.equal((await owner.send('DELETE', '/order', { orderID: order.orderId })).status, 200);
      finished.push(order.orderId);
    }
    const before = await workerReads(server.urls.clob);
    // The newest two are in the model; the oldest two are not.
    for (const orderId of finished.slice(2)) {
      assert.equal((await owner.send<{ order: Record<string, unknown> }>('GET', `/data/order/${orderId}`)).body.order['status'], 'CANCELED');
    }
    assert.deepEqual(moved(before, await workerReads(server.urls.clob)), {});
    for (const orderId of finished.slice(0, 2)) {
      const read = await owner.send<{ order: Record<string, unknown> }>('GET', `/data/order/${orderId}`);
      assert.deepEqual([read.status, read.body.order['id'], read.body.order['status']], [200, orderId, 'CANCELED']);
    }
    assert.equal((await owner.send('GET', `/data/order/0x${'cd'.repeat(32)}`)).status, 404);
    assert.deepEqual(moved(before, await workerReads(server.urls.clob)), { order: 3 });
  });
});
