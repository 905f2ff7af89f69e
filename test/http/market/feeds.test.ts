// The public feeds over HTTP against the real server (contract §2 and §5, interface.md "Public
// trade fill", "Activity item", "Public feed endpoints"): GET /trades on the data and CLOB
// listeners with every filter and bound, GET /activity with trades as maker and taker, deposits
// and redemptions, the IP allow-list, and a corrupt feed record answered with internal_error
// while the rest of the server keeps serving.
import assert from 'node:assert/strict';
import { after, before, suite, test } from 'node:test';
import { open } from 'lmdb';
import { removeDataDir, request, startServer, type Response, type RunningServer } from '../../support/server.js';
import { ADMIN_TOKEN, deposit, startTrading, type PlainMarket, type Trader } from '../orders/trader.js';

type Item = Record<string, unknown>;

const shares = (count: number): number => count * 1_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DERIVED_PSEUDONYM = /^[A-Z][a-z]+-[A-Z][a-z]+$/;
const HASH = /^0x[0-9a-f]{64}$/;

let server: RunningServer;
let markets: readonly PlainMarket[];
let alice: Trader;
let bob: Trader;
let carol: Trader;
let startedS = 0;

const carolProfile = { name: 'Carol C', pseudonym: 'carol-c', bio: 'makes markets', profileImage: 'https://example.com/carol.png' };

/** What each fill's taker and maker items must show, in the order the fills were made. */
interface Side {
  readonly trader: () => Trader;
  readonly market: number;
  readonly outcome: number;
  readonly side: 'BUY' | 'SELL';
  readonly price: number;
  readonly size: number;
  readonly usdcSize: number;
}
interface Fill {
  readonly taker: Side;
  readonly maker: Side;
}

const fills: Fill[] = [
  // 1: MINT in market 0: bob BUY NO 0.60 x 10 against alice's resting BUY YES 0.40 x 10.
  {
    taker: { trader: () => bob, market: 0, outcome: 1, side: 'BUY', price: 0.6, size: 10, usdcSize: 6 },
    maker: { trader: () => alice, market: 0, outcome: 0, side: 'BUY', price: 0.4, size: 10, usdcSize: 4 },
  },
  // 2: NORMAL in market 0: alice SELL YES 0.44 x 5 into carol's BUY YES 0.45 x 5 (maker's price).
  {
    taker: { trader: () => alice, market: 0, outcome: 0, side: 'SELL', price: 0.45, size: 5, usdcSize: 2.25 },
    maker: { trader: () => carol, market: 0, outcome: 0, side: 'BUY', price: 0.45, size: 5, usdcSize: 2.25 },
  },
  // 3: MINT in market 1: carol BUY NO 0.70 x 20 against alice's BUY YES 0.30 x 20.
  {
    taker: { trader: () => carol, market: 1, outcome: 1, side: 'BUY', price: 0.7, size: 20, usdcSize: 14 },
    maker: { trader: () => alice, market: 1, outcome: 0, side: 'BUY', price: 0.3, size: 20, usdcSize: 6 },
  },
  // 4: NORMAL in market 1: bob BUY NO 0.80 x 8 against carol's resting SELL NO 0.75 x 8.
  {
    taker: { trader: () => bob, market: 1, outcome: 1, side: 'BUY', price: 0.75, size: 8, usdcSize: 6 },
    maker: { trader: () => carol, market: 1, outcome: 1, side: 'SELL', price: 0.75, size: 8, usdcSize: 6 },
  },
];

/** Catalog fields of each market as GET /markets/{id} on the catalog listener shows them. */
const catalogOf = new Map<string, { title: string; slug: string; icon: string; eventSlug: string }>();

function get<T = Item[]>(url: string): Promise<Response<T>> {
  return request<T>(url);
}

/** GET /trades?takerOnly=false shows `count` items as soon as the fills' answers are in. */
async function expectItems(count: number): Promise<void> {
  const response = await get<Item[]>(`${server.urls.data}/trades?takerOnly=false`);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.length, count, `the feeds show ${count} items once the fills are answered`);
}

async function placed(trader: Trader, input: Parameters<Trader['place']>[0], status: string): Promise<void> {
  const response = await trader.place(input);
  assert.equal(response.status, 200, response.text);
  assert.equal((response.body as { status: string }).status, status, response.text);
}

function admin(method: string, path: string, body?: unknown) {
  return request<Item>(`${server.urls.clob}${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

before(async () => {
  startedS = Math.floor(Date.now() / 1000);
  const setup = await startTrading([101, 102, 103], { SEED_DEMO: '0' });
  ({ server, markets } = setup);
  [alice, bob, carol] = setup.traders as [Trader, Trader, Trader];
  for (const market of markets.slice(0, 2)) {
    const catalog = await get<{ question: string; slug: string; icon: string; events: { slug: string }[] }>(
      `${server.urls.catalog}/markets/${market.conditionId}`,
    );
    assert.equal(catalog.status, 200, catalog.text);
    catalogOf.set(market.conditionId, {
      title: catalog.body.question, slug: catalog.body.slug, icon: catalog.body.icon ?? '', eventSlug: catalog.body.events[0]?.slug ?? '',
    });
  }
  const profile = await admin('PUT', `/admin/profiles/${carol.checksumLikeAddress}`, carolProfile);
  assert.equal(profile.status, 200, profile.text);

  const [m0, m1] = markets as [PlainMarket, PlainMarket];
  await placed(alice, { tokenId: m0.yes, side: 'BUY', priceUnits: 4000, sizeMicros: shares(10) }, 'live');
  await placed(bob, { tokenId: m0.no, side: 'BUY', priceUnits: 6000, sizeMicros: shares(10) }, 'matched');
  await expectItems(2);
  await placed(carol, { tokenId: m0.yes, side: 'BUY', priceUnits: 4500, sizeMicros: shares(5) }, 'live');
  await placed(alice, { tokenId: m0.yes, side: 'SELL', priceUnits: 4400, sizeMicros: shares(5) }, 'matched');
  await expectItems(4);
  await placed(alice, { tokenId: m1.yes, side: 'BUY', priceUnits: 3000, sizeMicros: shares(20) }, 'live');
  await placed(carol, { tokenId: m1.no, side: 'BUY', priceUnits: 7000, sizeMicros: shares(20) }, 'matched');
  await expectItems(6);
  await placed(carol, { tokenId: m1.no, side: 'SELL', priceUnits: 7500, sizeMicros: shares(8) }, 'live');
  await placed(bob, { tokenId: m1.no, side: 'BUY', priceUnits: 8000, sizeMicros: shares(8) }, 'matched');
  await expectItems(8);
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

/** Index of a fill (1-based, as made) and role, newest first as the feed sorts them. */
type Ref = readonly [fill: number, role: 'taker' | 'maker'];
const takers: Ref[] = [[4, 'taker'], [3, 'taker'], [2, 'taker'], [1, 'taker']];
/** Both items of every fill: within one fill the maker's item sorts first (role 1 > role 0). */
const everything: Ref[] = [4, 3, 2, 1].flatMap((fill) => [[fill, 'maker'], [fill, 'taker']] as Ref[]);

function expectedOf([fill, role]: Ref): Side {
  return fills[fill - 1]![role];
}

/** The fields an item must show for a fill side, checked exactly (timestamp, hash and pseudonym separately). */
function assertItem(item: Item, ref: Ref): void {
  const side = expectedOf(ref);
  const market = markets[side.market]!;
  const catalog = catalogOf.get(market.conditionId)!;
  const trader = side.trader();
  const where = `fill ${ref[0]} ${ref[1]}`;
  assert.equal(item['proxyWallet'], trader.address, where);
  assert.equal(item['conditionId'], market.conditionId, where);
  assert.equal(item['asset'], `${market.conditionId}:${side.outcome}`, where);
  assert.equal(item['outcomeIndex'], side.outcome, where);
  assert.equal(item['outcome'], market.outcomes[side.outcome], where);
  assert.equal(item['side'], side.side, where);
  assert.equal(item['price'], side.price, where);
  assert.equal(item['size'], side.size, where);
  assert.equal(item['usdcSize'], side.usdcSize, where);
  assert.equal(Math.round(side.size * side.price * 1e6) / 1e6, side.usdcSize, 'usdcSize = size × price');
  assert.deepEqual([item['title'], item['slug'], item['icon'], item['eventSlug']], [catalog.title, catalog.slug, catalog.icon, catalog.eventSlug], where);
  if (trader === carol) {
    assert.deepEqual(
      [item['name'], item['pseudonym'], item['bio'], item['profileImage'], item['profileImageOptimized']],
      [carolProfile.name, carolProfile.pseudonym, carolProfile.bio, carolProfile.profileImage, carolProfile.profileImage], where,
    );
  } else {
    assert.match(String(item['pseudonym']), DERIVED_PSEUDONYM, where);
    assert.deepEqual([item['name'], item['bio'], item['profileImage'], item['profileImageOptimized']], ['', '', '', ''], where);
  }
  const timestamp = item['timestamp'] as number;
  assert.ok(Number.isInteger(timestamp) && timestamp >= startedS && timestamp <= Math.floor(Date.now() / 1000), `${where}: unix seconds`);
  assert.match(String(item['transactionHash']), HASH, where);
}

/** The public trade fill fields of interface.md with their JS types, and no others. */
const FILL_TYPES: Readonly<Record<string, string>> = {
  proxyWallet: 'string', side: 'string', asset: 'string', conditionId: 'string', size: 'number', price: 'number', usdcSize: 'number',
  timestamp: 'number', title: 'string', slug: 'string', icon: 'string', eventSlug: 'string', outcome: 'string', outcomeIndex: 'number',
  name: 'string', pseudonym: 'string', bio: 'string', profileImage: 'string', profileImageOptimized: 'string', transactionHash: 'string',
};
const ACTIVITY_TYPES: Readonly<Record<string, string>> = { ...FILL_TYPES, type: 'string' };

function assertTypes(item: Item, types: Readonly<Record<string, string>>): void {
  assert.deepEqual(Object.keys(item).sort(), Object.keys(types).sort());
  for (const [field, type] of Object.entries(types)) assert.equal(typeof item[field], type, `${field} is a ${type}`);
  assert.ok(Number.isInteger(item['timestamp']) && Number.isInteger(item['outcomeIndex']));
}

/** The feed's items as refs, for compact order comparisons. */
function refsOf(items: Item[]): string[] {
  return items.map((item) => {
    const ref = [...everything].find((candidate) => {
      const side = expectedOf(candidate);
      return side.trader().address === item['proxyWallet'] && markets[side.market]!.conditionId === item['conditionId']
        && side.outcome === item['outcomeIndex'] && side.side === item['side'] && side.size === item['size'] && side.price === item['price'];
    });
    return ref === undefined ? `unknown ${JSON.stringify(item)}` : `${ref[0]}${ref[1]}`;
  });
}
const names = (refs: Ref[]): string[] => refs.map(([fill, role]) => `${fill}${role}`);

async function trades(query: string, base = server.urls.data): Promise<Item[]> {
  const response = await get(`${base}/trades${query}`);
  assert.equal(response.status, 200, `${query}: ${response.text}`);
  return response.body;
}

suite('GET /trades', () => {
  test('the data and CLOB listeners serve the same taker items, newest first, with every field of interface.md', async () => {
    const data = await trades('');
    const clob = await trades('', server.urls.clob);
    assert.deepEqual(clob, data);
    assert.deepEqual(refsOf(data), names(takers));
    data.forEach((item, at) => {
      assertTypes(item, FILL_TYPES);
      assertItem(item, takers[at]!);
    });
    const stamps = data.map((item) => item['timestamp'] as number);
    assert.deepEqual(stamps, [...stamps].sort((a, b) => b - a), 'newest first');
  });

  test('takerOnly=false adds the makers’ items (proxyWallet = maker) with the fill’s transaction hash', async () => {
    const all = await trades('?takerOnly=false');
    assert.deepEqual(refsOf(all), names(everything));
    all.forEach((item, at) => {
      assertTypes(item, FILL_TYPES);
      assertItem(item, everything[at]!);
    });
    for (let at = 0; at < all.length; at += 2) {
      assert.equal(all[at]!['transactionHash'], all[at + 1]!['transactionHash'], 'both items of a fill name one settlement');
      assert.equal(all[at]!['timestamp'], all[at + 1]!['timestamp']);
    }
    assert.equal(new Set(all.map((item) => item['transactionHash'])).size, 4, 'one hash per fill');
    assert.deepEqual(await trades('?takerOnly=true'), await trades(''), 'takerOnly defaults to true');
    assert.deepEqual(await trades('?takerOnly=false', server.urls.clob), all);
    assert.equal((await get(`${server.urls.data}/trades?takerOnly=maybe`)).status, 400);
  });

  test('a derived pseudonym is stable for an address; an admin-set profile is shown', async () => {
    const all = await trades('?takerOnly=false');
    for (const trader of [alice, bob]) {
      const pseudonyms = new Set(all.filter((item) => item['proxyWallet'] === trader.address).map((item) => item['pseudonym']));
      assert.equal(pseudonyms.size, 1, 'one pseudonym per address');
    }
    const aliceName = all.find((item) => item['proxyWallet'] === alice.address)!['pseudonym'];
    const bobName = all.find((item) => item['proxyWallet'] === bob.address)!['pseudonym'];
    // Setting a profile changes what the feed shows at once; an empty set keeps the derived pseudonym.
    const set = await admin('PUT', `/admin/profiles/${bob.address}`, { name: 'Bob B' });
    assert.equal(set.status, 200, set.text);
    const bobs = await trades(`?user=${bob.address}`);
    assert.ok(bobs.length > 0);
    for (const item of bobs) assert.deepEqual([item['name'], item['pseudonym']], ['Bob B', bobName]);
    const again = await trades(`?user=${alice.address}&takerOnly=false`);
    for (const item of again) assert.equal(item['pseudonym'], aliceName);
    const reset = await admin('PUT', `/admin/profiles/${bob.address}`, { name: '' });
    assert.equal(reset.status, 200, reset.text);
  });

  test('side filters the item’s side, with and without makers', async () => {
    assert.deepEqual(refsOf(await trades('?side=SELL')), ['2taker']);
    assert.deepEqual(refsOf(await trades('?side=BUY')), ['4taker', '3taker', '1taker']);
    assert.deepEqual(refsOf(await trades('?side=SELL&takerOnly=false')), ['4maker', '2taker']);
    assert.deepEqual(refsOf(await trades('?side=BUY&takerOnly=false')), ['4taker', '3maker', '3taker', '2maker', '1maker', '1taker']);
    assert.equal((await get(`${server.urls.data}/trades?side=buy`)).status, 400);
  });

  test('user matches the address as taker or maker, in any letter case', async () => {
    assert.deepEqual(refsOf(await trades(`?user=${carol.address}`)), ['3taker']);
    assert.deepEqual(refsOf(await trades(`?user=${carol.checksumLikeAddress}&takerOnly=false`)), ['4maker', '3taker', '2maker']);
    assert.deepEqual(refsOf(await trades(`?user=${alice.address}&takerOnly=false`)), ['3maker', '2taker', '1maker']);
    assert.deepEqual(refsOf(await trades(`?user=${bob.address}&takerOnly=false`)), ['4taker', '1taker']);
    assert.deepEqual(refsOf(await trades(`?user=${alice.address}&side=BUY&takerOnly=false`)), ['3maker', '1maker']);
    assert.deepEqual(await trades(`?user=0x${'ab'.repeat(20)}`), []);
    const bad = await get(`${server.urls.data}/trades?user=0x1234`);
    assert.equal(bad.status, 400);
  });

  test('market takes a comma-separated list of condition ids', async () => {
    const [m0, m1, m2] = markets as [PlainMarket, PlainMarket, PlainMarket];
    assert.deepEqual(refsOf(await trades(`?market=${m0.conditionId}`)), ['2taker', '1taker']);
    assert.deepEqual(refsOf(await trades(`?market=${m1.conditionId}`)), ['4taker', '3taker']);
    assert.deepEqual(refsOf(await trades(`?market=${m0.conditionId},${m1.conditionId}`)), names(takers));
    assert.deepEqual(refsOf(await trades(`?market=${m1.conditionId},${m0.conditionId}&takerOnly=false`)), names(everything));
    assert.deepEqual(await trades(`?market=${m2.conditionId}`), []);
    const upper = `0x${m0.conditionId.slice(2).toUpperCase()}`;
    assert.deepEqual(refsOf(await trades(`?market=${upper}`)), ['2taker', '1taker']);
    assert.deepEqual(refsOf(await trades(`?market=${m0.conditionId},${m1.conditionId}&user=${carol.address}&takerOnly=false`)), ['4maker', '3taker', '2maker']);
    assert.deepEqual(refsOf(await trades(`?market=${m0.conditionId}&side=SELL`)), ['2taker']);
  });

  test('filterType=CASH keeps usdcSize >= filterAmount, TOKENS keeps size >= filterAmount (inclusive)', async () => {
    // Taker items: 4 (8 @ 0.75 = 6), 3 (20 @ 0.70 = 14), 2 (5 @ 0.45 = 2.25), 1 (10 @ 0.60 = 6).
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=6')), ['4taker', '3taker', '1taker']);
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=6.000001')), ['3taker']);
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=2.25')), names(takers));
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=2.250001')), ['4taker', '3taker', '1taker']);
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=14')), ['3taker']);
    assert.deepEqual(await trades('?filterType=CASH&filterAmount=14.000001'), []);
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=0')), names(takers));
    // Maker items: 4 (6), 3 (20 @ 0.30 = 6), 2 (2.25), 1 (10 @ 0.40 = 4).
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=4&takerOnly=false')), ['4maker', '4taker', '3maker', '3taker', '1maker', '1taker']);
    assert.deepEqual(refsOf(await trades('?filterType=CASH&filterAmount=4.000001&takerOnly=false')), ['4maker', '4taker', '3maker', '3taker', '1taker']);
    assert.deepEqual(refsOf(await trades('?filterType=TOKENS&filterAmount=10')), ['3taker', '1taker']);
    assert.deepEqual(refsOf(await trades('?filterType=TOKENS&filterAmount=10.000001')), ['3taker']);
    assert.deepEqual(refsOf(await trades('?filterType=TOKENS&filterAmount=5')), names(takers));
    assert.deepEqual(refsOf(await trades('?filterType=TOKENS&filterAmount=5.000001')), ['4taker', '3taker', '1taker']);
    assert.deepEqual(refsOf(await trades('?filterType=TOKENS&filterAmount=8&takerOnly=false&side=SELL')), ['4maker']);
  });

  test('filterType and filterAmount go together; bad values are 400', async () => {
    for (const query of ['filterType=CASH', 'filterType=TOKENS', 'filterAmount=5', 'filterType=SHARES&filterAmount=1', 'filterType=CASH&filterAmount=-1', 'filterType=CASH&filterAmount=abc']) {
      const response = await get(`${server.urls.data}/trades?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(typeof (response.body as unknown as { error: string }).error, 'string', query);
    }
  });

  test('limit and offset page the newest-first list; bounds are validated', async () => {
    assert.deepEqual(refsOf(await trades('?limit=1&offset=1')), ['3taker']);
    assert.deepEqual(refsOf(await trades('?limit=2')), ['4taker', '3taker']);
    assert.deepEqual(refsOf(await trades('?limit=2&offset=3')), ['1taker']);
    assert.deepEqual(refsOf(await trades('?limit=3&offset=2&takerOnly=false')), ['3maker', '3taker', '2maker']);
    assert.deepEqual(refsOf(await trades(`?limit=1&offset=1&user=${alice.address}&takerOnly=false`)), ['2taker']);
    assert.deepEqual(refsOf(await trades(`?limit=1&offset=1&market=${markets[0]!.conditionId}`)), ['1taker']);
    assert.deepEqual(await trades('?offset=4'), []);
    assert.deepEqual(await trades('?limit=0'), []);
    assert.deepEqual(await trades('?limit=10000&offset=10000'), []);
    for (const query of ['limit=10001', 'offset=10001', 'limit=-1', 'offset=-1', 'limit=1.5', 'limit=x']) {
      const response = await get(`${server.urls.data}/trades?${query}`);
      assert.equal(response.status, 400, query);
    }
    assert.equal((await get(`${server.urls.clob}/trades?limit=10001`)).status, 400);
  });

  test('an unknown query field is 400 unknown_field: <name> on both listeners', async () => {
    for (const base of [server.urls.data, server.urls.clob]) {
      const response = await get(`${base}/trades?foo=1`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 'unknown_field: foo' });
    }
    const mixed = await get(`${server.urls.data}/trades?limit=1&foo=1`);
    assert.deepEqual([mixed.status, mixed.body], [400, { error: 'unknown_field: foo' }]);
  });
});

suite('GET /activity', () => {
  test('a user’s trades as maker and taker and the startTrading deposit, newest first, with every field', async () => {
    const response = await get(`${server.urls.data}/activity?user=${alice.address}`);
    assert.equal(response.status, 200, response.text);
    const items = response.body;
    assert.deepEqual(items.map((item) => item['type']), ['TRADE', 'TRADE', 'TRADE', 'DEPOSIT']);
    for (const item of items) assertTypes(item, ACTIVITY_TYPES);
    const refs: Ref[] = [[3, 'maker'], [2, 'taker'], [1, 'maker']];
    refs.forEach((ref, at) => assertItem(items[at]!, ref));
    const publicItems = await trades(`?user=${alice.address}&takerOnly=false`);
    items.slice(0, 3).forEach((item, at) => {
      const { type, ...fill } = item;
      assert.deepEqual(fill, publicItems[at], 'a TRADE item carries the public fill’s fields');
    });
    const depositItem = items[3]!;
    assert.equal(depositItem['proxyWallet'], alice.address);
    assert.equal(depositItem['size'], 1000);
    assert.equal(depositItem['usdcSize'], 1000);
    assert.match(String(depositItem['transactionHash']), HASH);
    assert.match(String(depositItem['pseudonym']), DERIVED_PSEUDONYM);
    assert.ok((depositItem['timestamp'] as number) >= startedS);
    const stamps = items.map((item) => item['timestamp'] as number);
    assert.deepEqual(stamps, [...stamps].sort((a, b) => b - a), 'newest first');
    // Carol: maker of 4 and 2, taker of 3, her deposit; her admin-set profile on each.
    const carols = (await get(`${server.urls.data}/activity?user=${carol.checksumLikeAddress}`)).body;
    assert.deepEqual(carols.map((item) => item['type']), ['TRADE', 'TRADE', 'TRADE', 'DEPOSIT']);
    assert.deepEqual(refsOf(carols.slice(0, 3)), ['4maker', '3taker', '2maker']);
    for (const item of carols) assert.deepEqual([item['name'], item['pseudonym']], [carolProfile.name, carolProfile.pseudonym]);
    // An address that never traded or deposited.
    assert.deepEqual((await get(`${server.urls.data}/activity?user=0x${'cd'.repeat(20)}`)).body, []);
  });

  test('limit and offset page it; bounds, a missing user and unknown fields are 400', async () => {
    const all = (await get(`${server.urls.data}/activity?user=${alice.address}`)).body;
    assert.deepEqual((await get(`${server.urls.data}/activity?user=${alice.address}&limit=2&offset=1`)).body, all.slice(1, 3));
    assert.deepEqual((await get(`${server.urls.data}/activity?user=${alice.address}&limit=0`)).body, []);
    assert.equal((await get(`${server.urls.data}/activity?user=${alice.address}&limit=500&offset=10000`)).status, 200);
    for (const query of [`user=${alice.address}&limit=501`, `user=${alice.address}&offset=10001`, `user=${alice.address}&limit=-1`, 'limit=5', '', 'user=0x12']) {
      const response = await get(`${server.urls.data}/activity?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(typeof (response.body as unknown as { error: string }).error, 'string', query);
    }
    const unknown = await get(`${server.urls.data}/activity?user=${alice.address}&foo=1`);
    assert.deepEqual([unknown.status, unknown.body], [400, { error: 'unknown_field: foo' }]);
  });

  test('a later deposit and a resolution show as DEPOSIT and REDEEM items (usdcSize = payout), newest first', async () => {
    const m1 = markets[1]!;
    await deposit(server.urls.clob, alice.address, 5_000_000);
    await sleep(5);
    // Market 1 holders: alice 20 YES (maker of fill 3), carol 12 NO, bob 8 NO. YES wins.
    const resolved = await admin('POST', `/admin/markets/${m1.conditionId}/resolve`, { winner: m1.outcomes[0] });
    assert.equal(resolved.status, 200, resolved.text);
    // The resolution's answer is in: its payouts are in the feed already.
    const response = await get<Item[]>(`${server.urls.data}/activity?user=${alice.address}`);
    assert.equal(response.status, 200, response.text);
    const items = response.body;
    assert.deepEqual(items.map((item) => item['type']), ['REDEEM', 'DEPOSIT', 'TRADE', 'TRADE', 'TRADE', 'DEPOSIT']);
    for (const item of items) assertTypes(item, ACTIVITY_TYPES);
    const [redeem, later] = items as [Item, Item];
    const catalog = catalogOf.get(m1.conditionId)!;
    assert.equal(redeem['proxyWallet'], alice.address);
    assert.equal(redeem['conditionId'], m1.conditionId);
    assert.equal(redeem['usdcSize'], 20, '20 winning shares pay 20.00');
    assert.equal(redeem['size'], 20);
    assert.deepEqual([redeem['title'], redeem['slug'], redeem['eventSlug']], [catalog.title, catalog.slug, catalog.eventSlug]);
    assert.match(String(redeem['transactionHash']), HASH);
    assert.deepEqual([later['size'], later['usdcSize']], [5, 5]);
    assert.notEqual(later['transactionHash'], items[5]!['transactionHash'], 'each deposit has its own hash');
    const stamps = items.map((item) => item['timestamp'] as number);
    assert.deepEqual(stamps, [...stamps].sort((a, b) => b - a), 'newest first');

    // The losing side's holders are redeemed for nothing.
    const carols = await get<Item[]>(`${server.urls.data}/activity?user=${carol.address}`);
    const carolRedeem = carols.body[0]!;
    assert.equal(carolRedeem['type'], 'REDEEM');
    assert.deepEqual([carolRedeem['size'], carolRedeem['usdcSize']], [12, 0]);
    const bobs = await get<Item[]>(`${server.urls.data}/activity?user=${bob.address}`);
    assert.deepEqual([bobs.body[0]!['type'], bobs.body[0]!['size'], bobs.body[0]!['usdcSize']], ['REDEEM', 8, 0]);
    // Redemptions are not trades.
    assert.equal((await trades('?takerOnly=false')).length, 8);
  });
});

suite('FEED_IP_ALLOWLIST', () => {
  test('a server that allows 127.0.0.1 serves the feeds to this test', async () => {
    const allowed = await startServer({ env: { FEED_IP_ALLOWLIST: '127.0.0.1', SEED_DEMO: '0' } });
    try {
      for (const base of [allowed.urls.data, allowed.urls.clob]) {
        const response = await get(`${base}/trades`);
        assert.deepEqual([response.status, response.body], [200, []]);
      }
      const activity = await get(`${allowed.urls.data}/activity?user=${alice.address}`);
      assert.deepEqual([activity.status, activity.body], [200, []]);
    } finally {
      assert.equal(await allowed.stop(), 0);
      removeDataDir(allowed.dataDir);
    }
  });

  test('a server that allows only 10.9.8.7 answers 401 ip_not_allowlisted on the feeds, and the rest still works', async () => {
    const setup = await startTrading([], { FEED_IP_ALLOWLIST: '10.9.8.7', SEED_DEMO: '0' });
    const closed = setup.server;
    try {
      const refused = { error: 'unauthorized: ip_not_allowlisted' };
      for (const url of [`${closed.urls.data}/trades`, `${closed.urls.clob}/trades`, `${closed.urls.data}/trades?limit=5&takerOnly=false`,
        `${closed.urls.data}/activity?user=${alice.address}`]) {
        const response = await get(url);
        assert.deepEqual([response.status, response.body], [401, refused], url);
      }
      const market = setup.markets[0]!;
      const book = await get<Item>(`${closed.urls.clob}/book?token_id=${market.yes}`);
      assert.equal(book.status, 200, book.text);
      assert.equal(book.body['asset_id'], market.yes);
      assert.equal((await get(`${closed.urls.clob}/markets`)).status, 200);
      assert.equal((await get(`${closed.urls.clob}/prices-history?market=${market.yes}&interval=max`)).status, 200);
      assert.equal((await get(`${closed.urls.catalog}/markets/${market.conditionId}`)).status, 200);
    } finally {
      assert.equal(await closed.stop(), 0);
      removeDataDir(closed.dataDir);
    }
  });
});

suite('backend failure', () => {
  test('a record that does not decode is 500 internal_error on /trades; the server keeps serving', async (t) => {
    // A fill newer than any other in shard 0's store, whose bytes are not a fill.
    const root = open({ path: `${server.dataDir}/shard-0`, maxDbs: 16 });
    try {
      const fills = root.openDB({ name: 'fills', encoding: 'binary', keyEncoding: 'ordered-binary' });
      await fills.put([Number.MAX_SAFE_INTEGER - 1, 0], Buffer.from([0xc1]));
      let response = await get<{ error: string }>(`${server.urls.data}/trades`);
      const deadline = Date.now() + 2_000;
      while (response.status === 200 && Date.now() < deadline) {
        await sleep(10);
        response = await get<{ error: string }>(`${server.urls.data}/trades`);
      }
      assert.equal(response.status, 500, response.text);
      assert.deepEqual(Object.keys(response.body), ['error']);
      assert.ok(response.body.error.startsWith('internal_error: '), response.body.error);
      assert.ok(response.body.error.length > 'internal_error: '.length, 'the detail is a text');
      t.diagnostic(`answered: ${response.text}`);
      const clob = await get<{ error: string }>(`${server.urls.clob}/trades?takerOnly=false`);
      assert.equal(clob.status, 500);
      assert.ok(clob.body.error.startsWith('internal_error: '), clob.body.error);

      // Everything that does not read the corrupt record still answers.
      const market = markets[0]!;
      assert.equal((await get(`${server.urls.clob}/book?token_id=${market.yes}`)).status, 200);
      assert.equal((await get(`${server.urls.clob}/markets`)).status, 200);
      assert.equal((await get(`${server.urls.catalog}/markets`)).status, 200);
      assert.deepEqual(refsOf(await trades(`?user=${alice.address}&takerOnly=false`)), ['3maker', '2taker', '1maker']);
      assert.deepEqual(refsOf(await trades(`?market=${market.conditionId}`)), ['2taker', '1taker']);
      assert.equal((await get(`${server.urls.data}/activity?user=${carol.address}`)).status, 200);
      assert.equal((await get(`${server.urls.data}/trades`)).status, 500, 'the failure is answered again, not cached or fatal');
      assert.equal(server.process.exitCode, null, 'the process is alive');
    } finally {
      await root.close();
    }
  });
});
