// Price history from trades (contract §5): GET /prices-history and POST /batch-prices-history.
// Each shard's store keeps each token's last trade price per minute; a request cuts its range into
// buckets of `fidelity` minutes (aligned to multiples of the bucket from the Unix epoch) and
// gives each bucket the last trade price at its end, carrying the previous price forward
// through buckets without trades. Buckets before the token's first trade are never shown.
import { unitsNumber } from '../decimal.js';
import { badRequest, notFound } from '../errors.js';
import { integer, oneOf, string } from '../params.js';
import { json, type Reply } from '../respond.js';
import { ok, ref } from '../response_schemas.js';
import { route, type Route } from '../router.js';
import { NO_BOOK, NO_BOOK_ANSWER } from './book_routes.js';
import type { FeedReader } from './feed_reader.js';

export const INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'max'] as const;
export type Interval = (typeof INTERVALS)[number];

const INTERVAL_S: Readonly<Record<Exclude<Interval, 'max'>, number>> = {
  '1h': 3_600, '6h': 21_600, '1d': 86_400, '1w': 604_800, '1m': 2_592_000,
};
/** Default fidelity: the finest of these (minutes) that keeps a range within DEFAULT_POINTS. */
const FIDELITIES = [1, 5, 15, 60, 180, 360, 1_440, 10_080];
const DEFAULT_POINTS = 1_440;
/** Most points one token's history may have; a finer request is refused. */
export const HISTORY_POINTS_MAX = 50_000;
/** Most tokens one POST /batch-prices-history names. */
export const HISTORY_BATCH_MAX = 20;
const FIDELITY_MAX = 525_600;
const unixSeconds = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

export interface HistoryRequest {
  readonly startS: number | undefined;
  readonly endS: number | undefined;
  readonly interval: Interval | undefined;
  readonly fidelity: number | undefined;
}

export interface Point {
  readonly t: number;
  readonly p: number;
}

/**
 * Points of one token. `startS`/`endS` and `interval` are exclusive; with neither the range is
 * the token's whole history (interval max).
 */
export function priceHistory(store: FeedReader, tokenId: string, request: HistoryRequest, nowS: number): Point[] {
  if (request.interval !== undefined && (request.startS !== undefined || request.endS !== undefined)) {
    throw badRequest('interval cannot be combined with startTs or endTs');
  }
  const first = store.firstMinute(tokenId);
  // Nothing after now exists yet: a later end is cut to now.
  let endS = Math.min(request.endS ?? nowS, nowS);
  let startS = request.startS ?? 0;
  if (request.interval !== undefined && request.interval !== 'max') {
    endS = nowS;
    startS = nowS - INTERVAL_S[request.interval];
  }
  if (endS < startS) throw badRequest('endTs must not be before startTs');
  if (first === undefined || endS < first) return [];
  startS = Math.max(startS, first);
  const bucketS = 60 * (request.fidelity ?? FIDELITIES.find((minutes) => (endS - startS) / (60 * minutes) < DEFAULT_POINTS) ?? FIDELITIES.at(-1)!);
  const firstBucket = Math.floor(startS / bucketS) * bucketS;
  const lastBucket = Math.floor(endS / bucketS) * bucketS;
  if ((lastBucket - firstBucket) / bucketS + 1 > HISTORY_POINTS_MAX) {
    throw badRequest(`fidelity too fine for the range: at most ${HISTORY_POINTS_MAX} points`);
  }
  const { before, minutes } = store.minutes(tokenId, firstBucket, Math.min(endS, lastBucket + bucketS - 1));
  const points: Point[] = [];
  let priceUnits = before?.[1];
  let next = 0;
  for (let bucket = firstBucket; bucket <= lastBucket; bucket += bucketS) {
    while (next < minutes.length && minutes[next]![0] < bucket + bucketS) priceUnits = minutes[next++]![1];
    if (priceUnits !== undefined) points.push({ t: bucket, p: unitsNumber(priceUnits, 4) });
  }
  return points;
}

const historyQuery = {
  market: string({ required: true, description: 'token id', maxLength: 100 }),
  startTs: integer({ min: 0, description: 'unix seconds, start of the range' }),
  endTs: integer({ min: 0, description: 'unix seconds, end of the range' }),
  interval: oneOf({ values: INTERVALS, description: 'range ending now: 1h, 6h, 1d, 1w, 1m (30 days) or max' }),
  fidelity: integer({ min: 1, max: FIDELITY_MAX, description: 'bucket length in minutes' }),
};

function optionalInteger(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function historyRoutes(deps: {
  readonly feeds: FeedReader;
  /** Whether the token id names a tradable token. */
  readonly isToken: (tokenId: string) => boolean;
  readonly now: () => number;
}): Route[] {
  const pointsOf = (tokenId: string, request: HistoryRequest): Point[] => {
    if (!deps.isToken(tokenId)) throw notFound(NO_BOOK);
    return priceHistory(deps.feeds, tokenId, request, Math.floor(deps.now() / 1000));
  };
  return [
    route({
      method: 'GET', path: '/prices-history', limits: ['GET /prices-history'], summary: "A token's last trade price per bucket: {history: [{t, p}]}.", query: historyQuery,
      response: { ...ok(ref('PriceHistory')), 404: NO_BOOK_ANSWER },
      handler: (context): Reply => {
        const q = context.query;
        return json({ history: pointsOf(q.market, { startS: q.startTs, endS: q.endTs, interval: q.interval, fidelity: q.fidelity }) });
      },
    }),
    route({
      method: 'POST', path: '/batch-prices-history', limits: ['POST /batch-prices-history'], body: 'json',
      request: {
        type: 'object',
        properties: {
          markets: { type: 'array', items: { type: 'string', description: 'token id' }, minItems: 1, maxItems: HISTORY_BATCH_MAX },
          start_ts: unixSeconds, end_ts: unixSeconds, interval: { enum: INTERVALS }, fidelity: { type: 'integer', minimum: 1, maximum: FIDELITY_MAX, description: 'bucket length in minutes' },
        },
        required: ['markets'],
        description: 'An interval is a range ending now: it cannot be combined with start_ts or end_ts.',
        dependentSchemas: { interval: { properties: { start_ts: false, end_ts: false } } },
      },
      response: { ...ok(ref('PriceHistories')), 404: NO_BOOK_ANSWER },
      summary: `Price history of up to ${HISTORY_BATCH_MAX} tokens: {history: {token: [{t, p}]}}.`,
      handler: (context): Reply => {
        const body = context.body;
        if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be an object with markets');
        const fields = body as Record<string, unknown>;
        const markets = fields['markets'];
        if (!Array.isArray(markets) || markets.length === 0 || !markets.every((item) => typeof item === 'string')) {
          throw badRequest('markets must be a non-empty array of token ids');
        }
        if (markets.length > HISTORY_BATCH_MAX) throw badRequest(`at most ${HISTORY_BATCH_MAX} markets per request`);
        const interval = fields['interval'];
        if (interval !== undefined && !INTERVALS.includes(interval as Interval)) throw badRequest(`interval must be one of ${INTERVALS.join(', ')}`);
        const request: HistoryRequest = {
          startS: optionalInteger(fields, 'start_ts', unixSeconds.minimum, unixSeconds.maximum), endS: optionalInteger(fields, 'end_ts', unixSeconds.minimum, unixSeconds.maximum),
          interval: interval as Interval | undefined, fidelity: optionalInteger(fields, 'fidelity', 1, FIDELITY_MAX),
        };
        const history: Record<string, Point[]> = {};
        for (const tokenId of markets as string[]) history[tokenId] = pointsOf(tokenId, request);
        return json({ history });
      },
    }),
  ];
}
