// Helpers for the catalog suite: real servers on free ports, fixtures created through the admin
// API or imported through the CLI, checkers that hold every response to the field tables of
// interface.md (every listed field present with its type; nested objects exactly the ones the
// resource may carry), and a seeded random catalog with the model it was built from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Prng } from '../../engine/prng.js';
import { mainPath, removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../../support/server.js';

export const adminToken = 'catalog-suite-admin';

export interface CatalogServer {
  readonly catalog: string;
  readonly clob: string;
  readonly dataDir: string;
  readonly running: RunningServer;
}

export interface CatalogServerOptions {
  /** Load the demo catalog on an empty data directory (the default of the server). */
  readonly demo?: boolean;
  readonly dataDir?: string;
  /** Configure ADMIN_TOKEN (default true). */
  readonly admin?: boolean;
}

export async function startCatalog(options: CatalogServerOptions = {}): Promise<CatalogServer> {
  const env: Record<string, string> = { SEED_DEMO: options.demo === true ? '1' : '0' };
  if (options.admin !== false) env['ADMIN_TOKEN'] = adminToken;
  const running = await startServer({ env, ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }) });
  return { catalog: running.urls.catalog, clob: running.urls.clob, dataDir: running.dataDir, running };
}

/** Stops the server (it must exit 0) and removes its data directory unless told to keep it. */
export async function stopCatalog(server: CatalogServer | undefined, keepData = false): Promise<void> {
  if (server === undefined) return;
  const code = await server.running.stop();
  if (!keepData) removeDataDir(server.dataDir);
  assert.equal(code, 0, `server exited with ${code}: ${server.running.output().stderr}`);
}

/** GETs a catalog path and asserts a 200; returns the parsed body. */
export async function getJson<T>(server: CatalogServer, path: string): Promise<T> {
  const response = await request<T>(server.catalog + path);
  assert.equal(response.status, 200, `GET ${path} answered ${response.status}: ${response.text}`);
  assert.equal(response.headers.get('content-type'), 'application/json');
  return response.body;
}

/** GETs a catalog path and asserts the exact error status and body. */
export async function expectError(server: CatalogServer, path: string, status: number, body: unknown): Promise<void> {
  const response = await request(server.catalog + path);
  assert.equal(response.status, status, `GET ${path} answered ${response.status}: ${response.text}`);
  assert.deepEqual(response.body, body, `GET ${path}`);
}

export const expectBadRequest = (server: CatalogServer, path: string, error: string): Promise<void> =>
  expectError(server, path, 400, { type: 'bad request', error });

export const expectNotFound = (server: CatalogServer, path: string, error: 'slug not found' | 'id not found'): Promise<void> =>
  expectError(server, path, 404, { type: 'not found error', error });

/** POST /admin/events with a bearer token (the suite's by default; null sends none); the raw response. */
export function postEvent(server: CatalogServer, body: unknown, token: string | null = adminToken) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  return request<unknown>(server.clob + '/admin/events', { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Creates an event through the admin API, asserts 201, and returns the created event. */
export async function createEvent(server: CatalogServer, body: unknown): Promise<FullEvent> {
  const response = await postEvent(server, body);
  assert.equal(response.status, 201, `POST /admin/events answered ${response.status}: ${response.text}`);
  return response.body as FullEvent;
}

/** Encodes query parameters (repeat a name by giving an array). */
export function query(params: Readonly<Record<string, string | number | boolean | readonly string[]>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) search.append(name, item);
    else search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : '?' + text;
}

// The resources as the tests read them. Only the fields the interface lists (and the Gamma
// statistics the tests sort on) are typed; the checkers below hold the rest.

export interface Tag {
  readonly id: string;
  readonly label: string;
  readonly slug: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly requiresTranslation: boolean;
}

export interface EventSummary {
  readonly id: string;
  readonly ticker: string;
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly resolutionSource: string;
  readonly image: string;
  readonly icon: string;
  readonly startDate: string;
  readonly creationDate: string;
  readonly endDate: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly volume: number;
  readonly volume24hr: number;
  readonly liquidity: number;
  readonly openInterest: number;
}

export interface EventItem extends EventSummary {
  readonly tags: readonly Tag[];
  readonly markets: readonly Market[];
}

export interface Market {
  readonly id: string;
  readonly question: string;
  readonly conditionId: string;
  readonly slug: string;
  readonly resolutionSource: string;
  readonly image: string;
  readonly icon: string;
  readonly description: string;
  readonly questionID: string;
  readonly outcomes: string;
  readonly clobTokenIds: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly orderPriceMinTickSize: number;
  readonly orderMinSize: number;
  readonly negRisk: boolean;
  readonly makerBaseFee: number;
  readonly takerBaseFee: number;
  readonly groupItemTitle: string;
  readonly outcomePrices: string;
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
  readonly spread: number | null;
  readonly lastTradePrice: number | null;
  readonly volume: string;
  readonly volumeNum: number;
  readonly volume24hr: number;
  readonly liquidity: string;
  readonly liquidityNum: number;
}

export interface MarketWithEvents extends Market {
  readonly events: readonly EventSummary[];
}

export interface Series {
  readonly id: string;
  readonly ticker: string;
  readonly slug: string;
  readonly title: string;
  readonly seriesType: string;
  readonly recurrence: string;
  readonly image: string;
  readonly icon: string;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface SeriesWithEvents extends Series {
  readonly events: readonly EventSummary[];
}

export interface FullEvent extends EventItem {
  readonly markets: readonly Market[];
  readonly series: readonly Series[];
  readonly eventMetadata: Readonly<Record<string, unknown>>;
}

export interface SearchEventMatch {
  readonly id: string;
  readonly ticker: string;
  readonly slug: string;
  readonly title: string;
}

export interface SearchTagMatch {
  readonly id: string;
  readonly label: string;
  readonly slug: string;
  readonly event_count: number;
}

export interface SearchResult {
  readonly events: readonly SearchEventMatch[];
  readonly tags: readonly SearchTagMatch[];
  readonly pagination: { readonly hasMore: boolean; readonly totalResults: number };
}

// Field checkers. A kind is the interface's type, sharpened where the contract fixes the format.

type Kind = 'string' | 'id' | 'date-time' | 'boolean' | 'integer' | 'hex32' | 'outcomes' | 'token-ids' | 'amount' | 'decimal' | 'price-or-null' | 'prices';

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const hex32 = /^0x[0-9a-f]{64}$/;
const uint256Decimal = /^(0|[1-9]\d{0,77})$/;

/** Parses a JSON-encoded array of two distinct strings, as `outcomes` and `clobTokenIds` are. */
export function pairOf(text: string, where: string): [string, string] {
  const value: unknown = JSON.parse(text);
  assert.ok(Array.isArray(value) && value.length === 2, `${where} must encode an array of two items: ${text}`);
  const [first, second] = value as unknown[];
  assert.ok(typeof first === 'string' && typeof second === 'string', `${where} must encode strings: ${text}`);
  assert.notEqual(first, second, `${where} must name two different items`);
  return [first, second];
}

function checkKind(value: unknown, kind: Kind, where: string): void {
  switch (kind) {
    case 'string':
      assert.equal(typeof value, 'string', `${where} must be a string, got ${JSON.stringify(value)}`);
      return;
    case 'id':
      assert.ok(typeof value === 'string' && /^[1-9]\d*$/.test(value), `${where} must be a numeric id string, got ${JSON.stringify(value)}`);
      return;
    case 'date-time':
      assert.ok(typeof value === 'string' && isoUtc.test(value), `${where} must be an ISO 8601 UTC date-time, got ${JSON.stringify(value)}`);
      assert.equal(new Date(value).toISOString().slice(0, 19), value.slice(0, 19), `${where} must be a real date`);
      return;
    case 'boolean':
      assert.equal(typeof value, 'boolean', `${where} must be a boolean, got ${JSON.stringify(value)}`);
      return;
    case 'integer':
      assert.ok(Number.isInteger(value), `${where} must be an integer, got ${JSON.stringify(value)}`);
      return;
    case 'hex32':
      assert.ok(typeof value === 'string' && hex32.test(value), `${where} must be 0x and 64 lower-case hex digits, got ${JSON.stringify(value)}`);
      return;
    case 'outcomes':
      assert.equal(typeof value, 'string', `${where} must be a string`);
      pairOf(value as string, where);
      return;
    case 'amount':
      assert.ok(typeof value === 'number' && value >= 0 && Number.isFinite(value), `${where} must be a non-negative number, got ${JSON.stringify(value)}`);
      return;
    case 'decimal':
      assert.ok(typeof value === 'string' && /^\d+(\.\d{1,6})?$/.test(value), `${where} must be a decimal string, got ${JSON.stringify(value)}`);
      return;
    case 'price-or-null':
      assert.ok(value === null || (typeof value === 'number' && value >= 0 && value <= 1), `${where} must be a price from 0 to 1 or null, got ${JSON.stringify(value)}`);
      return;
    case 'prices': {
      assert.equal(typeof value, 'string', `${where} must be a string`);
      const prices: unknown = JSON.parse(value as string);
      assert.ok(Array.isArray(prices) && prices.length === 2, `${where} must encode two prices: ${String(value)}`);
      for (const price of prices as unknown[]) assert.ok(typeof price === 'string' && /^(0(\.\d{1,5})?|1)$/.test(price), `${where} entries must be decimal prices from 0 to 1: ${String(value)}`);
      return;
    }
    case 'token-ids': {
      assert.equal(typeof value, 'string', `${where} must be a string`);
      for (const token of pairOf(value as string, where)) assert.match(token, uint256Decimal, `${where} entries must be decimal uint256`);
      return;
    }
  }
}

type Check = (value: unknown, where: string) => void;

function isNested(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/**
 * Asserts every listed field with its kind, and that the fields holding objects or arrays are
 * exactly `nested` (each checked by its own checker). Scalar fields beyond the list may follow.
 */
function checkResource(value: unknown, fields: Readonly<Record<string, Kind>>, nested: Readonly<Record<string, Check>>, where: string): void {
  assert.ok(isNested(value) && !Array.isArray(value), `${where} must be an object`);
  const record = value as Readonly<Record<string, unknown>>;
  for (const [name, kind] of Object.entries(fields)) {
    assert.ok(name in record, `${where}.${name} is missing`);
    checkKind(record[name], kind, `${where}.${name}`);
  }
  const nestedNames = Object.keys(record).filter((name) => isNested(record[name])).sort();
  assert.deepEqual(nestedNames, Object.keys(nested).sort(), `${where} carries nested objects ${nestedNames.join(', ')}`);
  for (const [name, check] of Object.entries(nested)) check(record[name], `${where}.${name}`);
}

function arrayOf(check: Check): Check {
  return (value, where) => {
    assert.ok(Array.isArray(value), `${where} must be an array`);
    value.forEach((item, index) => check(item, `${where}[${index}]`));
  };
}

const plainObject: Check = (value, where) => assert.ok(isNested(value) && !Array.isArray(value), `${where} must be an object`);

const tagFields = { id: 'id', label: 'string', slug: 'string', createdAt: 'date-time', updatedAt: 'date-time', requiresTranslation: 'boolean' } as const;

const eventSummaryFields = {
  id: 'id',
  ticker: 'string',
  slug: 'string',
  title: 'string',
  description: 'string',
  resolutionSource: 'string',
  image: 'string',
  icon: 'string',
  startDate: 'date-time',
  creationDate: 'date-time',
  endDate: 'date-time',
  createdAt: 'date-time',
  updatedAt: 'date-time',
  active: 'boolean',
  closed: 'boolean',
  archived: 'boolean',
  volume: 'amount',
  volume24hr: 'amount',
  liquidity: 'amount',
} as const;

const marketFields = {
  id: 'id',
  question: 'string',
  conditionId: 'hex32',
  slug: 'string',
  resolutionSource: 'string',
  image: 'string',
  icon: 'string',
  description: 'string',
  questionID: 'hex32',
  outcomes: 'outcomes',
  clobTokenIds: 'token-ids',
  startDate: 'date-time',
  endDate: 'date-time',
  createdAt: 'date-time',
  updatedAt: 'date-time',
  active: 'boolean',
  closed: 'boolean',
  archived: 'boolean',
  outcomePrices: 'prices',
  bestBid: 'price-or-null',
  bestAsk: 'price-or-null',
  spread: 'price-or-null',
  lastTradePrice: 'price-or-null',
  volume: 'decimal',
  volumeNum: 'amount',
  volume24hr: 'amount',
  liquidity: 'decimal',
  liquidityNum: 'amount',
} as const;

const seriesFields = {
  id: 'id',
  ticker: 'string',
  slug: 'string',
  title: 'string',
  seriesType: 'string',
  recurrence: 'string',
  image: 'string',
  icon: 'string',
  active: 'boolean',
  closed: 'boolean',
  archived: 'boolean',
  createdAt: 'date-time',
  updatedAt: 'date-time',
} as const;

export const checkTag: Check = (value, where) => checkResource(value, tagFields, {}, where);
export const checkEventSummary: Check = (value, where) => checkResource(value, eventSummaryFields, {}, where);
/** An item of GET /events: the summary plus `tags` and `markets` (without events), and no series or metadata. */
export const checkEventItem: Check = (value, where) => checkResource(value, eventSummaryFields, { tags: arrayOf(checkTag), markets: arrayOf(checkMarket) }, where);
/** A catalog market without `events` (list items and markets nested in an event). */
export const checkMarket: Check = (value, where) => checkResource(value, marketFields, {}, where);
/** A single-market read: the market plus `events`, exactly its one event as a summary. */
export const checkMarketWithEvents: Check = (value, where) => {
  checkResource(value, marketFields, { events: arrayOf(checkEventSummary) }, where);
  assert.equal((value as MarketWithEvents).events.length, 1, `${where}.events must hold the market's event`);
};
export const checkSeries: Check = (value, where) => checkResource(value, seriesFields, {}, where);
export const checkSeriesWithEvents: Check = (value, where) => checkResource(value, seriesFields, { events: arrayOf(checkEventSummary) }, where);
/** A single-event read: summary, tags, markets (without events), series (without events), metadata. */
export const checkFullEvent: Check = (value, where) =>
  checkResource(value, eventSummaryFields, { tags: arrayOf(checkTag), markets: arrayOf(checkMarket), series: arrayOf(checkSeries), eventMetadata: plainObject }, where);

const searchEventFields = { id: 'id', ticker: 'string', slug: 'string', title: 'string' } as const;
const searchTagFields = { id: 'id', label: 'string', slug: 'string', event_count: 'integer' } as const;

export const checkSearchResult: Check = (value, where) =>
  checkResource(
    value,
    {},
    {
      events: arrayOf((item, at) => checkResource(item, searchEventFields, {}, at)),
      tags: arrayOf((item, at) => checkResource(item, searchTagFields, {}, at)),
      pagination: (item, at) => checkResource(item, { hasMore: 'boolean', totalResults: 'integer' }, {}, at),
    },
    where,
  );

export const checkList = (check: Check): Check => arrayOf(check);

/** The ids of a list, for exact ordering assertions. */
export const idsOf = (items: readonly { readonly id: string }[]): string[] => items.map((item) => item.id);
export const slugsOf = (items: readonly { readonly slug: string }[]): string[] => items.map((item) => item.slug);

/** A minimal valid admin body: one market, an end date; `fields` override or add. */
export function eventBody(title: string, fields: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return { title, endDate: '2031-01-01T00:00:00Z', markets: [{ question: `${title}: will it happen?` }], ...fields };
}

/** The fields the catalog computes from the books and trades at each read (not part of what an import moves). */
export const LIVE_FIELDS: ReadonlySet<string> = new Set([
  'outcomePrices', 'bestBid', 'bestAsk', 'spread', 'lastTradePrice', 'volume', 'volumeNum', 'volume24hr', 'liquidity', 'liquidityNum',
]);

/** `value` without the live fields of any object in it. */
export function withoutLive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLive);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !LIVE_FIELDS.has(name)).map(([name, inner]) => [name, withoutLive(inner)]));
}

/**
 * Every answer a whole catalog gives, keyed by path: the lists (unscoped and per creator), two
 * searches, and the single read of every event and market by each of its keys. `stored`: only
 * what the catalog stores, without the live fields (the books' and trades').
 */
export async function catalogSnapshot(server: CatalogServer, creators: readonly string[], stored = false): Promise<Record<string, unknown>> {
  const paths = ['/events?limit=500', '/events?limit=500&order=volume&ascending=true', '/markets?limit=500', '/series?limit=500', '/tags?limit=500', '/public-search?q=bitcoin', '/public-search?q=will'];
  for (const creator of creators) paths.push(`/events?limit=500&creator=${creator}`, `/markets?limit=500&creator=${creator}`, `/series?creator=${creator}`, `/tags?creator=${creator}`);
  for (const event of await getJson<EventItem[]>(server, '/events?limit=500')) paths.push(`/events/${event.id}`, `/events/slug/${event.slug}`);
  for (const market of await getJson<Market[]>(server, '/markets?limit=500')) paths.push(`/markets/${market.id}`, `/markets/${market.conditionId}`, `/markets/slug/${market.slug}`);
  const answers: Record<string, unknown> = {};
  for (const path of paths) answers[path] = stored ? withoutLive(await getJson(server, path)) : await getJson(server, path);
  return answers;
}

export interface ImportRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node dist/http/main.js import <args>` against a data directory, as a user would. */
export function runImport(dataDir: string, ...args: string[]): ImportRun {
  const run = spawnSync(process.execPath, [mainPath, 'import', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, SEED_DEMO: '1', LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * Gamma-shaped events 1..count, each with its own tag, series and market (all numbered like the
 * event), and volume equal to the number (which the import ignores): enough records to go past
 * every page bound.
 */
export function bulkEvents(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => {
    const number = index + 1;
    return {
      id: String(number),
      slug: `bulk-${number}`,
      title: `Bulk event ${number}`,
      endDate: '2031-01-01T00:00:00Z',
      createdAt: '2025-01-01T00:00:00Z',
      volume: number,
      tags: [{ id: String(number), label: `Bulk tag ${number}`, slug: `bulk-tag-${number}` }],
      series: [{ id: String(number), slug: `bulk-series-${number}`, title: `Bulk series ${number}` }],
      markets: [{ id: String(number), question: `Bulk question ${number}?`, slug: `bulk-market-${number}`, volume: number }],
    };
  });
}

/** Imports `events` into a fresh data directory through the CLI and starts a server on it. */
export async function startImportedCatalog(events: readonly unknown[]): Promise<CatalogServer> {
  const workDir = mkdtempSync(join(tmpdir(), 'clobd-bulk-'));
  const dataDir = temporaryDataDir();
  try {
    const file = join(workDir, 'events.json');
    writeFileSync(file, JSON.stringify(events));
    const run = runImport(dataDir, file);
    assert.equal(run.status, 0, run.stderr);
    return await startCatalog({ dataDir });
  } catch (error) {
    removeDataDir(dataDir);
    throw error;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `count` descending (or ascending) id strings from `from`: the expected id column of a page. */
export function idRange(from: number, count: number, step: 1 | -1): string[] {
  return Array.from({ length: count }, (_, index) => String(from + step * index));
}

// A seeded random catalog and the model it was built from, for tests that compare every list
// read against a plain reference computation. Values come from small sets so ties are common.

export interface ModelMarket {
  readonly id: number;
  readonly question: string;
  readonly slug: string;
  readonly creator: string | null;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly startDate: number;
  readonly endDate: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Live (no trades, no books in these catalogs): 0. The import file gives other values, which are ignored. */
  readonly volume: number;
  readonly volume24hr: number;
  readonly liquidity: number;
}

export interface ModelEvent {
  readonly id: number;
  readonly title: string;
  readonly slug: string;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly startDate: number;
  readonly creationDate: number;
  readonly endDate: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Live: the sums of its markets' (0). */
  readonly volume: number;
  readonly volume24hr: number;
  readonly liquidity: number;
  readonly openInterest: number;
  readonly tags: readonly string[];
  readonly series: string | null;
  readonly markets: readonly ModelMarket[];
}

export const modelCreators = ['c-one', 'c-two'] as const;
export const modelTags = ['t-red', 't-green', 't-blue'] as const;
export const modelSeries = ['s-one', 's-two'] as const;

/** The seed of the random-catalog tests: CLOBD_SEED=<n> replays one. */
export const catalogSeed = Number(process.env['CLOBD_SEED'] ?? 20_261_122);

export function randomCatalog(prng: Prng, eventsCount: number): { readonly events: readonly ModelEvent[]; readonly gamma: readonly Record<string, unknown>[] } {
  const day = (): number => Date.UTC(2030, 0, 1 + prng.below(6));
  const flag = (): boolean => prng.chance(0.5);
  const amount = (): number => prng.pick([0, 10, 20, 30]);
  const events: ModelEvent[] = [];
  let marketId = 0;
  for (let index = 1; index <= eventsCount; index++) {
    const markets: ModelMarket[] = Array.from({ length: prng.between(1, 3) }, () => {
      marketId++;
      return {
        id: marketId,
        question: prng.pick(['Will it rain?', 'Will it snow?', 'Will it hail?']),
        slug: `m-${marketId}`,
        creator: prng.pick([null, ...modelCreators]),
        active: flag(),
        closed: flag(),
        archived: flag(),
        startDate: day(),
        endDate: day(),
        createdAt: day(),
        updatedAt: day(),
        volume: 0,
        volume24hr: 0,
        liquidity: 0,
      };
    });
    events.push({
      id: index,
      title: prng.pick(['Alpha', 'Beta', 'Gamma', 'Delta']),
      slug: `e-${index}`,
      active: flag(),
      closed: flag(),
      archived: flag(),
      startDate: day(),
      creationDate: day(),
      endDate: day(),
      createdAt: day(),
      updatedAt: day(),
      volume: 0,
      volume24hr: 0,
      liquidity: 0,
      openInterest: amount(),
      tags: modelTags.filter(() => prng.chance(0.4)),
      series: prng.pick([null, ...modelSeries]),
      markets,
    });
  }
  const iso = (ms: number): string => new Date(ms).toISOString();
  // The file carries Gamma's statistics too, which the import ignores (the catalog computes them).
  const gamma = events.map((event) => ({
    ...event,
    volume: amount(),
    liquidity: amount(),
    id: String(event.id),
    startDate: iso(event.startDate),
    creationDate: iso(event.creationDate),
    endDate: iso(event.endDate),
    createdAt: iso(event.createdAt),
    updatedAt: iso(event.updatedAt),
    tags: event.tags.map((slug) => ({ label: slug.toUpperCase(), slug })),
    series: event.series === null ? [] : [{ slug: event.series, title: event.series }],
    markets: event.markets.map((market) => ({
      ...market,
      volume: amount(),
      liquidityNum: amount(),
      id: String(market.id),
      creator: market.creator ?? undefined,
      startDate: iso(market.startDate),
      endDate: iso(market.endDate),
      createdAt: iso(market.createdAt),
      updatedAt: iso(market.updatedAt),
    })),
  }));
  return { events, gamma };
}

/** Page sizes and offsets a random list query draws from. */
export interface PageSpan {
  readonly limitMax: number;
  readonly offsetMax: number;
}

/**
 * Adds a random sort and page to a random list query (`order`, `ascending`, `limit`, `offset`,
 * each sometimes left out to exercise its default), fetches `path` with it, and checks the ids
 * answered against the same page of `expected` in the reference order. `spell` names a column in
 * the query (an alias Gamma accepts for it, say). True when the page held more than one record.
 */
export async function assertRandomPage<R extends { readonly id: number }>(
  server: CatalogServer, prng: Prng, path: string, params: Record<string, string | number | boolean>, expected: readonly R[],
  columns: readonly (keyof R & string)[], span: PageSpan, where: string, spell: (column: string) => string = (column) => column,
): Promise<boolean> {
  const order = Array.from({ length: prng.below(3) }, () => prng.pick(columns));
  const spelled = order.map(spell);
  if (order.length > 0) params['order'] = spelled.join(',');
  const ascending = [undefined, true, false][prng.below(3)];
  if (ascending !== undefined) params['ascending'] = ascending;
  const limit = prng.chance(0.7) ? prng.between(1, span.limitMax) : 100;
  if (limit !== 100 || prng.chance(0.5)) params['limit'] = limit;
  const offset = prng.chance(0.6) ? prng.between(0, span.offsetMax) : 0;
  if (offset !== 0 || prng.chance(0.5)) params['offset'] = offset;
  const sorted = referenceOrder(expected, order.length > 0 ? order : ['id'], ascending === true);
  const url = path + query(params);
  const page = idsOf(await getJson<{ id: string }[]>(server, url));
  assert.deepEqual(page, sorted.slice(offset, offset + limit).map((record) => String(record.id)), `${where}: ${url}`);
  return page.length > 1;
}

/** The reference order: by each column in turn, then id; descending reverses all of it. */
export function referenceOrder<R extends { readonly id: number }>(records: readonly R[], columns: readonly (keyof R)[], ascending: boolean): R[] {
  const sorted = [...records].sort((a, b) => {
    for (const column of columns) {
      if (a[column] < b[column]) return -1;
      if (a[column] > b[column]) return 1;
    }
    return a.id - b.id;
  });
  return ascending ? sorted : sorted.reverse();
}
