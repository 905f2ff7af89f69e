// The demo catalog: loaded on the first start of an empty data directory (not with SEED_DEMO=0,
// not over existing data), big enough to show everything the catalog does, identical on every
// fresh install, and well-formed in every resource the interface describes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { demoCreators } from '../../../http/catalog/demo.js';
import { removeDataDir, temporaryDataDir } from '../../support/server.js';
import {
  catalogSnapshot,
  checkEventItem,
  checkFullEvent,
  checkList,
  checkMarket,
  checkMarketWithEvents,
  checkSearchResult,
  checkSeriesWithEvents,
  checkTag,
  createEvent,
  eventBody,
  getJson,
  idsOf,
  pairOf,
  startCatalog,
  stopCatalog,
  type CatalogServer,
  type EventItem,
  type FullEvent,
  type Market,
  type MarketWithEvents,
  type SeriesWithEvents,
  type Tag,
} from './support.js';

const creators = [demoCreators.site, demoCreators.wallet];

describe('the demo catalog', () => {
  let server: CatalogServer;
  let events: EventItem[];
  let markets: Market[];
  before(async () => {
    server = await startCatalog({ demo: true });
    events = await getJson<EventItem[]>(server, '/events?limit=500&ascending=true');
    markets = await getJson<Market[]>(server, '/markets?limit=500&ascending=true');
  });
  after(() => stopCatalog(server));

  test('holds at least 12 events, 40 binary markets, 2 series and 6 tags', async () => {
    assert.ok(events.length >= 12, `${events.length} events`);
    assert.ok(markets.length >= 40, `${markets.length} markets`);
    for (const market of markets) assert.equal(pairOf(market.outcomes, `market ${market.id}`).length, 2);
    assert.ok((await getJson<SeriesWithEvents[]>(server, '/series')).length >= 2);
    assert.ok((await getJson<Tag[]>(server, '/tags')).length >= 6);
  });

  test('splits its markets between two creators, each with events of its own', async () => {
    const bySite = idsOf(await getJson<Market[]>(server, `/markets?limit=500&creator=${demoCreators.site}`));
    const byWallet = idsOf(await getJson<Market[]>(server, `/markets?limit=500&creator=${demoCreators.wallet}`));
    assert.ok(bySite.length > 0 && byWallet.length > 0);
    assert.equal(bySite.filter((id) => byWallet.includes(id)).length, 0);
    const siteEvents = idsOf(await getJson<EventItem[]>(server, `/events?limit=500&creator=${demoCreators.site}`));
    const walletEvents = idsOf(await getJson<EventItem[]>(server, `/events?limit=500&creator=${demoCreators.wallet}`));
    assert.ok(siteEvents.some((id) => !walletEvents.includes(id)));
    assert.ok(walletEvents.some((id) => !siteEvents.includes(id)));
    // An event with markets of both creators shows each only its own.
    const shared = siteEvents.find((id) => walletEvents.includes(id)) ?? assert.fail('no event shared by both creators');
    const forSite = await getJson<FullEvent>(server, `/events/${shared}?creator=${demoCreators.site}`);
    const forWallet = await getJson<FullEvent>(server, `/events/${shared}?creator=${demoCreators.wallet}`);
    assert.ok(forSite.markets.every((market) => bySite.includes(market.id)));
    assert.ok(forWallet.markets.every((market) => byWallet.includes(market.id)));
    assert.ok(forSite.markets.length + forWallet.markets.length <= (await getJson<FullEvent>(server, `/events/${shared}`)).markets.length);
  });

  test('every list item and single read has the interface fields and only the nested objects it may carry', async () => {
    checkList(checkEventItem)(events, 'events');
    checkList(checkMarket)(markets, 'markets');
    checkList(checkSeriesWithEvents)(await getJson(server, '/series'), 'series');
    checkList(checkTag)(await getJson(server, '/tags'), 'tags');
    for (const event of events) {
      checkFullEvent(await getJson(server, `/events/${event.id}`), `events/${event.id}`);
      checkFullEvent(await getJson(server, `/events/slug/${event.slug}`), `events/slug/${event.slug}`);
    }
    for (const market of markets) checkMarketWithEvents(await getJson(server, `/markets/${market.id}`), `markets/${market.id}`);
    for (const q of ['bitcoin', 'will', 'crypto']) checkSearchResult(await getJson(server, `/public-search?q=${q}`), `search ${q}`);
  });

  test('every market belongs to exactly one event, and its single read names that event', async () => {
    const owner = new Map<string, string>();
    for (const event of events) {
      for (const market of (await getJson<FullEvent>(server, `/events/${event.id}`)).markets) {
        assert.equal(owner.has(market.id), false, `market ${market.id} in two events`);
        owner.set(market.id, event.id);
      }
    }
    assert.deepEqual([...owner.keys()].sort(), idsOf(markets).sort());
    for (const market of markets) assert.deepEqual(idsOf((await getJson<MarketWithEvents>(server, `/markets/${market.id}`)).events), [owner.get(market.id)]);
  });

  test('the tag and series filters agree with the tags and series the events carry', async () => {
    for (const tag of await getJson<Tag[]>(server, '/tags')) {
      const tagged = idsOf(events.filter((event) => event.tags.some((entry) => entry.id === tag.id)));
      assert.deepEqual(idsOf(await getJson<EventItem[]>(server, `/events?limit=500&ascending=true&tag_slug=${tag.slug}`)), tagged, tag.slug);
      assert.deepEqual(idsOf(await getJson<EventItem[]>(server, `/events?limit=500&ascending=true&tag_id=${tag.id}`)), tagged, tag.slug);
    }
    for (const series of await getJson<SeriesWithEvents[]>(server, '/series')) {
      assert.deepEqual(idsOf(await getJson<EventItem[]>(server, `/events?limit=500&ascending=true&series_slug=${series.slug}`)), idsOf(series.events), series.slug);
      for (const event of series.events) assert.ok((await getJson<FullEvent>(server, `/events/${event.id}`)).series.some((entry) => entry.id === series.id));
    }
  });

  test('a second fresh install serves exactly the same catalog', async () => {
    const other = await startCatalog({ demo: true });
    try {
      assert.deepEqual(await catalogSnapshot(other, creators), await catalogSnapshot(server, creators));
    } finally {
      await stopCatalog(other);
    }
  });
});

test('SEED_DEMO=0 starts with an empty catalog', async () => {
  const server = await startCatalog({ demo: false });
  try {
    for (const path of ['/events', '/markets', '/series', '/tags']) assert.deepEqual(await getJson(server, path), [], path);
    assert.deepEqual(await getJson(server, '/public-search?q=bitcoin'), { events: [], tags: [], pagination: { hasMore: false, totalResults: 0 } });
  } finally {
    await stopCatalog(server);
  }
});

test('the demo is loaded only into an empty data directory', async () => {
  const dataDir = temporaryDataDir();
  const first = await startCatalog({ demo: false, dataDir });
  let second: CatalogServer | undefined;
  try {
    const own = await createEvent(first, eventBody('Only event'));
    await stopCatalog(first, true);
    second = await startCatalog({ demo: true, dataDir });
    assert.deepEqual(idsOf(await getJson<EventItem[]>(second, '/events')), [own.id]);
  } finally {
    // Stopping a server that already exited just reports its exit code.
    await stopCatalog(first, true);
    await stopCatalog(second, true);
    removeDataDir(dataDir);
  }
});
