// The CLI `import <file>` against real processes: a catalog read through the API, written as a
// Gamma-shaped file, imported into a fresh data directory, serves the same answers (ids,
// condition ids and token ids kept); re-importing changes nothing; a bad file changes nothing
// and exits non-zero naming the field; imported ids are kept and new ids are assigned past them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { demoCreators } from '../../../http/catalog/demo.js';
import { removeDataDir, temporaryDataDir } from '../../support/server.js';
import {
  catalogSnapshot,
  createEvent,
  eventBody,
  expectNotFound,
  getJson,
  idsOf,
  pairOf,
  runImport,
  startCatalog,
  stopCatalog,
  type CatalogServer,
  type EventItem,
  type FullEvent,
  type Market,
} from './support.js';

const extraCreator = '0x00000000000000000000000000000000000000ee';
const creators = [demoCreators.site, demoCreators.wallet, extraCreator];

/** The catalog as Gamma's GET /events returns it: list items with their markets, series and metadata. */
async function gammaExport(server: CatalogServer): Promise<Record<string, unknown>[]> {
  // The API does not name a market's creator; the creator-scoped reads tell which it is.
  const creatorOf = new Map<string, string>();
  for (const creator of creators) for (const market of await getJson<Market[]>(server, `/markets?limit=500&creator=${creator}`)) creatorOf.set(market.id, creator);
  const items = await getJson<EventItem[]>(server, '/events?limit=500&ascending=true');
  const events: Record<string, unknown>[] = [];
  for (const item of items) {
    const full = await getJson<FullEvent>(server, `/events/${item.id}`);
    const markets = full.markets.map((market) => {
      const creator = creatorOf.get(market.id);
      return creator === undefined ? market : { ...market, creator };
    });
    events.push({ ...item, markets, series: full.series, eventMetadata: full.eventMetadata });
  }
  return events;
}

describe('import round trip', () => {
  let source: CatalogServer | undefined;
  let target: CatalogServer | undefined;
  let workDir: string;
  let targetDir: string;
  let file: string;
  let expected: Record<string, unknown>;
  let exported: Record<string, unknown>[];

  before(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'clobd-import-'));
    targetDir = temporaryDataDir();
    // The demo catalog plus events that use what the demo does not: metadata, custom outcomes,
    // flags, a third creator, explicit dates and amounts with decimals.
    source = await startCatalog({ demo: true });
    await createEvent(
      source,
      eventBody('Round trip special', {
        slug: 'round-trip-special',
        ticker: 'RTS',
        description: 'Carries every optional field.',
        startDate: '2030-02-01T10:00:00Z',
        createdAt: '2025-05-05T05:05:05.505Z',
        updatedAt: '2025-06-06T06:06:06Z',
        featured: true,
        volume: '1234.567891',
        liquidity: 42.5,
        eventMetadata: { notes: ['a', 'b'], nested: { depth: 2 } },
        tags: [{ label: 'Crypto', slug: 'crypto' }, { label: 'Round Trip' }],
        series: [{ slug: 'round-trips', title: 'Round trips', recurrence: 'weekly' }],
        markets: [
          { question: 'Up or down?', outcomes: JSON.stringify(['Up', 'Down']), creator: extraCreator, orderPriceMinTickSize: 0.001, orderMinSize: 15, takerBaseFee: 30, makerBaseFee: 10, negRisk: true, groupItemTitle: 'Direction', volume: '77.5', description: 'Direction of travel.' },
          { question: 'Bitcoin round trip?', closed: true, archived: true, active: false },
        ],
      }),
    );
    expected = await catalogSnapshot(source, creators, true);
    exported = await gammaExport(source);
    file = join(workDir, 'catalog.json');
    writeFileSync(file, JSON.stringify(exported, null, 2));
    await stopCatalog(source);
    source = undefined;
  });
  after(async () => {
    await stopCatalog(source);
    await stopCatalog(target);
    removeDataDir(targetDir);
    rmSync(workDir, { recursive: true, force: true });
  });

  test('importing the exported catalog into a fresh data directory reports what it wrote', () => {
    const run = runImport(targetDir, file);
    assert.equal(run.status, 0, run.stderr);
    const markets = exported.reduce((sum, event) => sum + (event['markets'] as unknown[]).length, 0);
    const tags = exported.reduce((sum, event) => sum + (event['tags'] as unknown[]).length, 0);
    const series = exported.reduce((sum, event) => sum + (event['series'] as unknown[]).length, 0);
    assert.deepEqual(JSON.parse(run.stdout), { imported: { events: exported.length, markets, tags, series } });
    assert.equal(exported.length, 16);
  });

  test('the imported catalog answers every read exactly as the source did (but for the live fields: an import moves no book or trade)', async () => {
    target = await startCatalog({ dataDir: targetDir });
    assert.deepEqual(await catalogSnapshot(target, creators, true), expected);
  });

  test('ids, condition ids, question ids and token ids are the source’s', async () => {
    const server = target ?? assert.fail('target not started');
    const markets = await getJson<Market[]>(server, '/markets?limit=500&ascending=true');
    const exportedMarkets = exported.flatMap((event) => event['markets'] as Market[]);
    assert.deepEqual(
      markets.map(({ id, conditionId, questionID, clobTokenIds }) => ({ id, conditionId, questionID, clobTokenIds })),
      exportedMarkets.map(({ id, conditionId, questionID, clobTokenIds }) => ({ id, conditionId, questionID, clobTokenIds })),
    );
    for (const market of markets) pairOf(market.clobTokenIds, `market ${market.id}`);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?limit=500&ascending=true')), exported.map((event) => event['id']));
  });

  test('re-importing the same file is idempotent', async () => {
    await stopCatalog(target, true);
    target = undefined;
    const run = runImport(targetDir, file);
    assert.equal(run.status, 0, run.stderr);
    target = await startCatalog({ dataDir: targetDir });
    assert.deepEqual(await catalogSnapshot(target, creators, true), expected);
  });

  test('a bad file changes nothing and exits non-zero naming the field path', async () => {
    await stopCatalog(target, true);
    target = undefined;
    const bad = structuredClone(exported);
    const markets = bad[1]?.['markets'] as Record<string, unknown>[];
    delete markets[1]?.['question'];
    // The first event is changed too: a bad file must not apply its good parts either.
    bad[0] = { ...bad[0], title: 'Half applied?' };
    const badFile = join(workDir, 'bad.json');
    writeFileSync(badFile, JSON.stringify(bad));
    const run = runImport(targetDir, badFile);
    assert.equal(run.status, 1);
    assert.equal(run.stderr, `clobd: ${badFile}: [1].markets[1].question is required\n`);
    assert.equal(run.stdout, '');

    // A write that fails inside the transaction (a slug held by another id) is rolled back too.
    const clash = [{ ...bad[0], title: 'Changed title' }, { ...exported[2], slug: exported[0]?.['slug'] }];
    const clashFile = join(workDir, 'clash.json');
    writeFileSync(clashFile, JSON.stringify(clash));
    const clashRun = runImport(targetDir, clashFile);
    assert.equal(clashRun.status, 1);
    assert.equal(clashRun.stderr, `clobd: ${clashFile}: event slug already exists: ${String(exported[0]?.['slug'])}\n`);

    target = await startCatalog({ dataDir: targetDir });
    assert.deepEqual(await catalogSnapshot(target, creators, true), expected);
  });
});

describe('import of a Gamma file', () => {
  let workDir: string;
  let dataDir: string;
  let server: CatalogServer | undefined;
  before(() => {
    workDir = mkdtempSync(join(tmpdir(), 'clobd-import-'));
    dataDir = temporaryDataDir();
  });
  after(async () => {
    await stopCatalog(server);
    removeDataDir(dataDir);
    rmSync(workDir, { recursive: true, force: true });
  });

  const conditionId = `0x${'0a'.repeat(32)}`;
  const questionId = `0x${'0b'.repeat(32)}`;
  const tokens = ['71321045679252212594626385532706912750332728571942532289631379312455583992563', '52114319501245915516055106046884209969926127482827954674443846427813813222426'];

  // Shaped as Gamma's GET /events answers: numeric-string ids, JSON-in-string arrays, float
  // statistics, and fields the catalog does not keep.
  const gammaEvents = [
    {
      id: '512345',
      ticker: 'fed-decision-in-march',
      slug: 'fed-decision-in-march',
      title: 'Fed decision in March?',
      description: 'FOMC March meeting.',
      startDate: '2026-01-01T00:00:00Z',
      creationDate: '2025-12-01T00:00:00Z',
      endDate: '2026-03-18T18:00:00Z',
      createdAt: '2025-12-01T00:00:00.123456Z',
      updatedAt: '2026-01-15T00:00:00Z',
      active: true,
      closed: false,
      archived: false,
      volume: 1234567.891234567,
      liquidity: '5000.5',
      commentCount: 12,
      competitive: 0.93,
      tags: [{ id: '100', label: 'Economy', slug: 'economy', forceShow: true }],
      series: [{ id: '9000', ticker: 'fed', slug: 'fed', title: 'Fed', seriesType: 'single', recurrence: 'monthly' }],
      markets: [
        {
          id: '600001',
          question: 'Fed cuts in March?',
          conditionId: conditionId.toUpperCase().replace('0X', '0x'),
          questionID: questionId,
          slug: 'fed-cuts-in-march',
          outcomes: '["Yes", "No"]',
          clobTokenIds: JSON.stringify(tokens),
          outcomePrices: '["0.2", "0.8"]',
          volume: '98765.4321',
          volumeNum: 98765.4321,
          orderPriceMinTickSize: 0.001,
          orderMinSize: 5,
          negRisk: false,
          creator: 'gamma.example',
        },
        { id: '600002', question: 'Fed holds in March?', slug: 'fed-holds-in-march' },
      ],
    },
  ];

  test('keeps the file’s ids, condition and token ids, lower-cases hex, and assigns only what is missing', async () => {
    const file = join(workDir, 'gamma.json');
    writeFileSync(file, JSON.stringify(gammaEvents));
    const run = runImport(dataDir, file);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { imported: { events: 1, markets: 2, tags: 1, series: 1 } });

    server = await startCatalog({ dataDir });
    const event = await getJson<FullEvent>(server, '/events/512345');
    assert.equal(event.slug, 'fed-decision-in-march');
    assert.equal(event.createdAt, '2025-12-01T00:00:00.123Z');
    // Gamma's statistics in the file are ignored: the catalog computes them from clobd's trades and books.
    assert.deepEqual([event.volume, event.liquidity], [0, 0]);
    assert.deepEqual(event.tags.map(({ id, slug }) => ({ id, slug })), [{ id: '100', slug: 'economy' }]);
    assert.deepEqual(event.series.map(({ id, slug, recurrence }) => ({ id, slug, recurrence })), [{ id: '9000', slug: 'fed', recurrence: 'monthly' }]);
    const [cut, hold] = event.markets;
    assert.deepEqual([cut?.id, cut?.conditionId, cut?.questionID, cut?.clobTokenIds, cut?.outcomes], ['600001', conditionId, questionId, JSON.stringify(tokens), '["Yes","No"]']);
    assert.deepEqual([cut?.volumeNum, cut?.outcomePrices], [0, '["0.5","0.5"]']);
    assert.equal(cut?.orderPriceMinTickSize, 0.001);
    assert.equal(hold?.id, '600002');
    assert.match(hold?.conditionId ?? '', /^0x[0-9a-f]{64}$/);
    assert.deepEqual(await getJson(server, `/markets/${conditionId}`), await getJson(server, '/markets/600001'));
    assert.deepEqual(idsOf(await getJson<Market[]>(server, '/markets?creator=gamma.example')), ['600001']);
  });

  test('ids the server assigns afterwards come after the imported ones', async () => {
    const current = server ?? assert.fail('server not started');
    const created = await createEvent(current, eventBody('After import', { tags: [{ label: 'Fresh' }], series: [{ slug: 'fresh-series' }] }));
    assert.equal(created.id, '512346');
    assert.equal(created.markets[0]?.id, '600003');
    assert.equal(created.tags[0]?.id, '101');
    assert.equal(created.series[0]?.id, '9001');
  });

  test('a re-import with changed fields updates the records in place and moves their slugs', async () => {
    await stopCatalog(server, true);
    server = undefined;
    const changed = structuredClone(gammaEvents);
    const event = changed[0] ?? assert.fail('fixture missing');
    event.title = 'Fed decision in March 2026?';
    event.slug = 'fed-march-2026';
    const market = event.markets[1] ?? assert.fail('fixture missing');
    market.slug = 'fed-holds-march-2026';
    // The first market moves to another creator, and the event's visibility must follow it.
    const moved = event.markets[0] ?? assert.fail('fixture missing');
    moved.creator = 'other.example';
    const file = join(workDir, 'gamma-changed.json');
    writeFileSync(file, JSON.stringify(changed));
    const run = runImport(dataDir, file);
    assert.equal(run.status, 0, run.stderr);

    server = await startCatalog({ dataDir });
    const read = await getJson<FullEvent>(server, '/events/slug/fed-march-2026');
    assert.deepEqual([read.id, read.title], ['512345', 'Fed decision in March 2026?']);
    await expectNotFound(server, '/events/slug/fed-decision-in-march', 'slug not found');
    assert.equal((await getJson<Market>(server, '/markets/slug/fed-holds-march-2026')).id, '600002');
    await expectNotFound(server, '/markets/slug/fed-holds-in-march', 'slug not found');
    assert.equal((await getJson<EventItem[]>(server, '/events?limit=500')).length, 2);
    assert.deepEqual(await getJson(server, '/events?creator=gamma.example'), []);
    assert.deepEqual(await getJson(server, '/markets?creator=gamma.example'), []);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?creator=other.example')), ['512345']);
    assert.deepEqual(idsOf((await getJson<FullEvent>(server, '/events/512345?creator=other.example')).markets), ['600001']);
  });

  test('the import command refuses a missing argument, unreadable JSON and a non-array', async () => {
    // Import runs on a stopped exchange (it refuses a directory a server holds).
    await stopCatalog(server, true);
    server = undefined;
    const usage = runImport(dataDir);
    assert.equal(usage.status, 2);
    assert.equal(usage.stderr, 'clobd: usage: import <file>\n');
    const notJson = join(workDir, 'not.json');
    writeFileSync(notJson, '[{"title":');
    const broken = runImport(dataDir, notJson);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, new RegExp(`^clobd: cannot read ${notJson} as JSON: `));
    const missing = runImport(dataDir, join(workDir, 'absent.json'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /cannot read .*absent\.json as JSON: ENOENT/);
    const object = join(workDir, 'object.json');
    writeFileSync(object, JSON.stringify({ events: gammaEvents }));
    const notArray = runImport(dataDir, object);
    assert.equal(notArray.status, 1);
    assert.equal(notArray.stderr, `clobd: ${object} must hold a JSON array of events\n`);
    const badId = join(workDir, 'bad-id.json');
    writeFileSync(badId, JSON.stringify([{ ...gammaEvents[0], id: 'abc' }]));
    const badIdRun = runImport(dataDir, badId);
    assert.equal(badIdRun.status, 1);
    assert.equal(badIdRun.stderr, `clobd: ${badId}: [0].id must be a positive integer id\n`);
    const badToken = join(workDir, 'bad-token.json');
    writeFileSync(badToken, JSON.stringify([{ ...gammaEvents[0], markets: [{ question: 'Q?', clobTokenIds: '["0x12","3"]' }] }]));
    const badTokenRun = runImport(dataDir, badToken);
    assert.equal(badTokenRun.status, 1);
    assert.equal(badTokenRun.stderr, `clobd: ${badToken}: [0].markets[0].clobTokenIds has a malformed entry\n`);
  });
});

test('re-importing a file that leaves out every date changes nothing either', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'clobd-import-'));
  const dataDir = temporaryDataDir();
  let server: CatalogServer | undefined;
  try {
    const file = join(workDir, 'undated.json');
    const undated = [
      {
        id: '7',
        title: 'Undated event',
        tags: [{ id: '70', label: 'Undated', slug: 'undated' }],
        series: [{ id: '700', slug: 'undated-series' }],
        markets: [{ id: '77', question: 'Undated market?', creator: 'undated.example' }],
      },
    ];
    writeFileSync(file, JSON.stringify(undated));
    assert.equal(runImport(dataDir, file).status, 0);
    server = await startCatalog({ dataDir });
    const first = await catalogSnapshot(server, ['undated.example']);
    await stopCatalog(server, true);
    server = undefined;
    // The import runs in a new process, well after the first: "now" has moved on.
    assert.equal(runImport(dataDir, file).status, 0);
    server = await startCatalog({ dataDir });
    assert.deepEqual(await catalogSnapshot(server, ['undated.example']), first);
  } finally {
    await stopCatalog(server, true);
    removeDataDir(dataDir);
    rmSync(workDir, { recursive: true, force: true });
  }
});
