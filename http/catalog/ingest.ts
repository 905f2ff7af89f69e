// Turns Gamma-shaped JSON (the admin create body, or events as Gamma's GET /events returns them
// for import) into typed catalog input. Every problem is a 400 naming the field's path.
// `create` mode is the admin API: the server assigns every id, so ids in the body are ignored.
// `import` mode keeps the ids it is given and assigns only what is missing.
import { BYTES32 } from '../auth/eip712.js';
import { badRequest } from '../errors.js';
import { jsonUnits } from '../decimal.js';
import { FEE_BPS_MAX, TICK_UNITS_ALLOWED } from '../../engine/constants.js';

export type IngestMode = 'create' | 'import';

export interface TagInput {
  readonly id: number | undefined;
  readonly label: string;
  readonly slug: string;
  readonly requiresTranslation: boolean;
  readonly createdAtMs: number;
  /** Undefined when the body gives none (see `stamps`). */
  readonly updatedAtMs: number | undefined;
}

export interface SeriesInput {
  readonly id: number | undefined;
  readonly slug: string;
  readonly ticker: string;
  readonly title: string;
  readonly description: string;
  readonly seriesType: string;
  readonly recurrence: string;
  readonly image: string;
  readonly icon: string;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly createdAtMs: number;
  /** Undefined when the body gives none (see `stamps`). */
  readonly updatedAtMs: number | undefined;
}

export interface MarketInput {
  readonly id: number | undefined;
  readonly question: string;
  readonly slug: string;
  readonly description: string;
  readonly resolutionSource: string;
  readonly image: string;
  readonly icon: string;
  readonly groupItemTitle: string;
  readonly outcomes: readonly [string, string];
  readonly conditionId: string | undefined;
  readonly questionId: string | undefined;
  readonly tokenIds: readonly [string, string] | undefined;
  readonly startDateMs: number | undefined;
  readonly endDateMs: number | undefined;
  readonly createdAtMs: number;
  /** Undefined when the body gives none (see `stamps`). */
  readonly updatedAtMs: number | undefined;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly creator: string | null;
  readonly tickUnits: number;
  readonly minSizeMicros: number;
  readonly negRisk: boolean;
  readonly makerBaseFeeBps: number;
  readonly takerBaseFeeBps: number;
  readonly enableOrderBook: boolean;
  readonly acceptingOrders: boolean;
}

export interface EventInput {
  readonly id: number | undefined;
  readonly title: string;
  readonly slug: string;
  readonly ticker: string;
  readonly description: string;
  readonly resolutionSource: string;
  readonly image: string;
  readonly icon: string;
  readonly startDateMs: number | undefined;
  readonly creationDateMs: number | undefined;
  readonly endDateMs: number | undefined;
  readonly createdAtMs: number;
  /** Undefined when the body gives none (see `stamps`). */
  readonly updatedAtMs: number | undefined;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly featured: boolean;
  readonly restricted: boolean;
  readonly negRisk: boolean;
  readonly openInterestMicros: number;
  readonly tags: readonly TagInput[];
  readonly series: readonly SeriesInput[];
  readonly markets: readonly MarketInput[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Bounds on what one event may carry, so one request cannot make an unbounded write. */
export const ingestLimits = {
  marketsPerEvent: 500,
  tagsPerEvent: 32,
  seriesPerEvent: 8,
  textLengthMax: 512,
  descriptionLengthMax: 20_000,
  metadataBytesMax: 16_384,
  /** An outcome's name, and a market's creator. */
  nameLengthMax: 128,
  /** A market's orderMinSize, in shares. */
  orderMinSharesMax: 10_000_000,
} as const;

/** A date, optionally with a time (groups 2) and an offset (group 3). */
export const isoDateTime = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Epoch ms of an ISO 8601 date or date-time (isoDateTime); undefined when it is not one, or
 * before 1970. A time without an offset is read as UTC, so a file imports the same on every host
 * (and a list filter means the same on every host).
 */
export function isoMs(text: string): number | undefined {
  const match = isoDateTime.exec(text);
  const ms = match === null ? Number.NaN : Date.parse(match[2] !== undefined && match[3] === undefined ? `${text}Z` : text);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
const uint256Decimal = /^\d{1,78}$/;

/** Reads fields of one JSON object, naming the object's path in every error. */
class Fields {
  constructor(
    private readonly object: Readonly<Record<string, unknown>>,
    private readonly path: string,
  ) {}

  static of(value: unknown, path: string): Fields {
    // The admin body is the root, whose path is empty; its error still needs a subject.
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${path === '' ? 'body' : path} must be an object`);
    return new Fields(value as Record<string, unknown>, path);
  }

  name(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  has(key: string): boolean {
    const value = this.object[key];
    return value !== undefined && value !== null;
  }

  raw(key: string): unknown {
    return this.object[key] ?? undefined;
  }

  text(key: string, fallback: string, lengthMax: number = ingestLimits.textLengthMax): string {
    const value = this.object[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'string') throw badRequest(`${this.name(key)} must be a string`);
    if (value.length > lengthMax) throw badRequest(`${this.name(key)} must be at most ${lengthMax} characters`);
    return value;
  }

  requiredText(key: string): string {
    const value = this.text(key, '');
    if (value.trim() === '') throw badRequest(`${this.name(key)} is required`);
    return value;
  }

  flag(key: string, fallback: boolean): boolean {
    const value = this.object[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') throw badRequest(`${this.name(key)} must be a boolean`);
    return value;
  }

  /** Gamma ids are numeric strings; numbers are accepted too. */
  id(key: string): number | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^\d{1,9}$/.test(text) || Number(text) < 1) throw badRequest(`${this.name(key)} must be a positive integer id`);
    return Number(text);
  }

  dateMs(key: string): number | undefined {
    const value = this.object[key];
    if (value === undefined || value === null || value === '') return undefined;
    const ms = typeof value === 'string' ? isoMs(value) : undefined;
    if (ms === undefined) throw badRequest(`${this.name(key)} must be an ISO 8601 date-time`);
    return ms;
  }

  /** A decimal amount as micro-units, truncated past 6 decimals (Gamma's statistics are floats). */
  micros(key: string): number {
    const value = this.object[key];
    if (value === undefined || value === null || value === '') return 0;
    const units = jsonUnits(value, 6, true);
    if (units === undefined) throw badRequest(`${this.name(key)} must be a non-negative decimal`);
    return units;
  }

  list(key: string, itemsMax: number): readonly unknown[] {
    const value = this.object[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw badRequest(`${this.name(key)} must be an array`);
    if (value.length > itemsMax) throw badRequest(`${this.name(key)} must have at most ${itemsMax} items`);
    return value;
  }
}

/** Gamma encodes outcome lists as JSON text inside a string; real arrays are accepted too. */
function pair(fields: Fields, key: string, item: RegExp | undefined): [string, string] | undefined {
  let value = fields.raw(key);
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw badRequest(`${fields.name(key)} must be a JSON array of two strings`);
    }
  }
  if (!Array.isArray(value) || value.length !== 2 || !value.every((entry) => typeof entry === 'string' && entry.trim() !== '' && entry.length <= ingestLimits.nameLengthMax)) {
    throw badRequest(`${fields.name(key)} must be a JSON array of two non-empty strings (binary markets only)`);
  }
  const [first, second] = value as [string, string];
  if (item !== undefined && !(item.test(first) && item.test(second))) throw badRequest(`${fields.name(key)} has a malformed entry`);
  if (first === second) throw badRequest(`${fields.name(key)} must name two different outcomes`);
  return [first, second];
}

function tickUnits(fields: Fields): number {
  if (!fields.has('orderPriceMinTickSize')) return 100;
  const units = jsonUnits(fields.raw('orderPriceMinTickSize'), 4);
  if (units === undefined || !TICK_UNITS_ALLOWED.includes(units)) {
    throw badRequest(`${fields.name('orderPriceMinTickSize')} must be one of 0.1, 0.01, 0.001, 0.0001, 0.005, 0.0025`);
  }
  return units;
}

function minSizeMicros(fields: Fields): number {
  if (!fields.has('orderMinSize')) return 5_000_000;
  const hundredths = jsonUnits(fields.raw('orderMinSize'), 2);
  if (hundredths === undefined || hundredths <= 0 || hundredths > ingestLimits.orderMinSharesMax * 100) throw badRequest(`${fields.name('orderMinSize')} must be a positive share count with at most 2 decimals`);
  return hundredths * 10_000;
}

function feeBps(fields: Fields, key: string): number {
  const value = fields.raw(key);
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > FEE_BPS_MAX) throw badRequest(`${fields.name(key)} must be an integer from 0 to ${FEE_BPS_MAX} (basis points)`);
  return value;
}

function creator(fields: Fields): string | null {
  const value = fields.text('creator', '', ingestLimits.nameLengthMax).trim().toLowerCase();
  return value === '' ? null : value;
}

/**
 * A missing `updatedAt` stays undefined rather than becoming "now": the store then keeps the
 * record's own (or uses `createdAt` for a new record), so re-importing a file is a no-op.
 */
function stamps(fields: Fields, nowMs: number): { createdAtMs: number; updatedAtMs: number | undefined } {
  return { createdAtMs: fields.dateMs('createdAt') ?? nowMs, updatedAtMs: fields.dateMs('updatedAt') };
}

function readTag(value: unknown, path: string, mode: IngestMode, nowMs: number): TagInput {
  const fields = Fields.of(value, path);
  const label = fields.requiredText('label');
  return {
    id: mode === 'import' ? fields.id('id') : undefined,
    label,
    slug: fields.text('slug', ''),
    requiresTranslation: fields.flag('requiresTranslation', false),
    ...stamps(fields, nowMs),
  };
}

function readSeries(value: unknown, path: string, mode: IngestMode, nowMs: number): SeriesInput {
  const fields = Fields.of(value, path);
  const title = fields.text('title', '');
  const slug = fields.text('slug', '');
  if (title.trim() === '' && slug.trim() === '') throw badRequest(`${path} needs a slug or a title`);
  return {
    id: mode === 'import' ? fields.id('id') : undefined,
    slug,
    ticker: fields.text('ticker', ''),
    title,
    description: fields.text('description', '', ingestLimits.descriptionLengthMax),
    seriesType: fields.text('seriesType', 'single'),
    recurrence: fields.text('recurrence', ''),
    image: fields.text('image', ''),
    icon: fields.text('icon', ''),
    active: fields.flag('active', true),
    closed: fields.flag('closed', false),
    archived: fields.flag('archived', false),
    ...stamps(fields, nowMs),
  };
}

function importedIds(fields: Fields): Pick<MarketInput, 'conditionId' | 'questionId' | 'tokenIds'> {
  const conditionId = fields.text('conditionId', '');
  const questionId = fields.text('questionID', '');
  if (conditionId !== '' && !BYTES32.test(conditionId)) throw badRequest(`${fields.name('conditionId')} must be 0x followed by 64 hex digits`);
  if (questionId !== '' && !BYTES32.test(questionId)) throw badRequest(`${fields.name('questionID')} must be 0x followed by 64 hex digits`);
  return {
    conditionId: conditionId === '' ? undefined : conditionId.toLowerCase(),
    questionId: questionId === '' ? undefined : questionId.toLowerCase(),
    tokenIds: pair(fields, 'clobTokenIds', uint256Decimal),
  };
}

function readMarket(value: unknown, path: string, mode: IngestMode, nowMs: number): MarketInput {
  const fields = Fields.of(value, path);
  const ids = mode === 'import' ? importedIds(fields) : { conditionId: undefined, questionId: undefined, tokenIds: undefined };
  return {
    id: mode === 'import' ? fields.id('id') : undefined,
    question: fields.requiredText('question'),
    slug: fields.text('slug', ''),
    description: fields.text('description', '', ingestLimits.descriptionLengthMax),
    resolutionSource: fields.text('resolutionSource', ''),
    image: fields.text('image', ''),
    icon: fields.text('icon', ''),
    groupItemTitle: fields.text('groupItemTitle', ''),
    outcomes: pair(fields, 'outcomes', undefined) ?? ['Yes', 'No'],
    ...ids,
    startDateMs: fields.dateMs('startDate'),
    endDateMs: fields.dateMs('endDate'),
    ...stamps(fields, nowMs),
    active: fields.flag('active', true),
    closed: fields.flag('closed', false),
    archived: fields.flag('archived', false),
    creator: creator(fields),
    tickUnits: tickUnits(fields),
    minSizeMicros: minSizeMicros(fields),
    negRisk: fields.flag('negRisk', false),
    makerBaseFeeBps: feeBps(fields, 'makerBaseFee'),
    takerBaseFeeBps: feeBps(fields, 'takerBaseFee'),
    enableOrderBook: fields.flag('enableOrderBook', true),
    acceptingOrders: fields.flag('acceptingOrders', true),
  };
}

function metadata(fields: Fields): Readonly<Record<string, unknown>> {
  const value = fields.raw('eventMetadata');
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${fields.name('eventMetadata')} must be an object`);
  if (JSON.stringify(value).length > ingestLimits.metadataBytesMax) throw badRequest(`${fields.name('eventMetadata')} must be at most ${ingestLimits.metadataBytesMax} bytes`);
  return value as Record<string, unknown>;
}

/** Reads one Gamma-shaped event with its markets, tags and series. */
export function readEvent(value: unknown, path: string, mode: IngestMode, nowMs: number): EventInput {
  const fields = Fields.of(value, path);
  const title = fields.requiredText('title');
  const endDateMs = fields.dateMs('endDate');
  if (mode === 'create' && endDateMs === undefined) throw badRequest(`${fields.name('endDate')} is required`);
  const markets = fields.list('markets', ingestLimits.marketsPerEvent).map((market, index) => readMarket(market, fields.name(`markets[${index}]`), mode, nowMs));
  if (mode === 'create' && markets.length === 0) throw badRequest(`${fields.name('markets')} must have at least one market`);
  return {
    id: mode === 'import' ? fields.id('id') : undefined,
    title,
    slug: fields.text('slug', ''),
    ticker: fields.text('ticker', ''),
    description: fields.text('description', '', ingestLimits.descriptionLengthMax),
    resolutionSource: fields.text('resolutionSource', ''),
    image: fields.text('image', ''),
    icon: fields.text('icon', ''),
    startDateMs: fields.dateMs('startDate'),
    creationDateMs: fields.dateMs('creationDate'),
    endDateMs,
    ...stamps(fields, nowMs),
    active: fields.flag('active', true),
    closed: fields.flag('closed', false),
    archived: fields.flag('archived', false),
    featured: fields.flag('featured', false),
    restricted: fields.flag('restricted', false),
    negRisk: fields.flag('negRisk', markets.some((market) => market.negRisk)),
    openInterestMicros: fields.micros('openInterest'),
    tags: fields.list('tags', ingestLimits.tagsPerEvent).map((tag, index) => readTag(tag, fields.name(`tags[${index}]`), mode, nowMs)),
    series: fields.list('series', ingestLimits.seriesPerEvent).map((series, index) => readSeries(series, fields.name(`series[${index}]`), mode, nowMs)),
    markets,
    metadata: metadata(fields),
  };
}
