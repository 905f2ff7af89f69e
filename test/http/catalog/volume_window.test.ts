// volume24hr follows the front end's clock: a market's fills count in the clock hour (UTC) they
// were made in and the 23 after it, by the hour, whatever else happens; volume keeps them all. The
// whole server runs in this process on a clock the test moves (the catalog's answers are cached,
// so an hour passing must make them new), and a restart reads the hours back from the shard.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../http/config.js';
import { createLogger } from '../../../http/log.js';
import { startServer, type Server } from '../../../http/server.js';
import { removeDataDir, request, temporaryDataDir } from '../../support/server.js';
import { ADMIN_TOKEN, deposit, Trader, type PlainMarket } from '../orders/trader.js';

interface LiveMarket {
  readonly volume: string;
  readonly volumeNum: number;
  readonly volume24hr: number;
}

const HOUR_MS = 3_600_000;

async function start(dataDir: string, now: () => number): Promise<Server> {
  const config = loadConfig({
    DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: '1', LOG_LEVEL: 'silent', SEED_DEMO: '0', ADMIN_TOKEN, RATE_LIMITS: 'off',
  }, new Map());
  return startServer(config, createLogger(config.logLevel), { now });
}

describe('volume24hr by the clock hour', () => {
  const dataDir = temporaryDataDir();
  // 10:30 UTC: the first fill's hour is 10:00-11:00.
  let clockMs = Date.UTC(2030, 0, 1, 10, 30);
  const now = (): number => clockMs;
  let server: Server;
  let market: PlainMarket;
  let marketId: string;
  let maker: Trader;
  let taker: Trader;

  const read = async (): Promise<[number, number]> => {
    const answer = await request<LiveMarket>(`${server.urls.catalog}/markets/${marketId}`);
    assert.equal(answer.status, 200, answer.text);
    return [answer.body.volumeNum, answer.body.volume24hr];
  };
  const eventVolumes = async (): Promise<[number, number]> => {
    const [event] = (await request<{ volume: number; volume24hr: number }[]>(`${server.urls.catalog}/events`)).body;
    return [event!.volume, event!.volume24hr];
  };
  /** A YES bid at `priceUnits` for 5 shares, taken by a NO buyer: 5 × (1 − price) traded at the taker's price. */
  const trade = async (priceUnits: number): Promise<void> => {
    const bid = await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits, sizeMicros: 5_000_000 });
    assert.equal(bid.status, 200, bid.text);
    const hit = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 10_000 - priceUnits, sizeMicros: 5_000_000, orderType: 'FOK' });
    assert.equal(hit.status, 200, hit.text);
    assert.equal((hit.body as { status?: string }).status, 'matched', hit.text);
  };

  before(async () => {
    server = await start(dataDir, now);
    const created = await request<{ markets: { id: string; conditionId: string; clobTokenIds: string; outcomes: string }[] }>(`${server.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Clock event', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'By the hour?' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const made = created.body.markets[0]!;
    const [yes, no] = JSON.parse(made.clobTokenIds) as [string, string];
    market = { conditionId: made.conditionId, yes, no, outcomes: JSON.parse(made.outcomes) as string[] };
    marketId = made.id;
    const nowS = (): number => Math.floor(clockMs / 1000);
    maker = new Trader(server.urls.clob, 31, nowS);
    taker = new Trader(server.urls.clob, 32, nowS);
    for (const trader of [maker, taker]) {
      await trader.createKey();
      await deposit(server.urls.clob, trader.address, 1_000_000_000);
    }
  });
  after(async () => {
    await server?.stop();
    removeDataDir(dataDir);
  });

  test('fills count in their hour and the 23 after it; volume keeps them all', async () => {
    assert.deepEqual(await read(), [0, 0]);
    await trade(6000); // the NO taker pays 0.40 × 5 = 2 at 10:30
    assert.deepEqual(await read(), [2, 2]);
    clockMs += HOUR_MS; // 11:30
    await trade(4000); // 0.60 × 5 = 3
    assert.deepEqual(await read(), [5, 5]);
    assert.deepEqual(await eventVolumes(), [5, 5]);
    clockMs = Date.UTC(2030, 0, 2, 9, 59, 59); // the next day's 09:00 hour: 10:00 yesterday is still in
    assert.deepEqual(await read(), [5, 5]);
    clockMs = Date.UTC(2030, 0, 2, 10, 0); // the 10:00 hour is a day old
    assert.deepEqual(await read(), [5, 3]);
    assert.deepEqual(await eventVolumes(), [5, 3]);
    clockMs = Date.UTC(2030, 0, 2, 11, 0);
    assert.deepEqual(await read(), [5, 0]);
    assert.deepEqual(await eventVolumes(), [5, 0]);
  });

  test('sorts and filters by volume24hr see the clock too', async () => {
    const page = async (query: string) => (await request<{ id: string }[]>(`${server.urls.catalog}/markets?${query}`)).body.map((item) => item.id);
    assert.deepEqual(await page('volume_num_min=5'), [marketId]);
    clockMs = Date.UTC(2030, 0, 2, 12, 15);
    await trade(5000); // 0.50 × 5 = 2.5
    assert.deepEqual(await read(), [7.5, 2.5]);
    assert.deepEqual(await page('order=volume24hr'), [marketId]);
  });

  test('a restart reads the hours back: the window is the same after it', async () => {
    await server.stop();
    clockMs = Date.UTC(2030, 0, 3, 11, 59);
    server = await start(dataDir, now);
    assert.deepEqual(await read(), [7.5, 2.5]);
    clockMs = Date.UTC(2030, 0, 3, 12, 0);
    assert.deepEqual(await read(), [7.5, 0]);
  });
});
