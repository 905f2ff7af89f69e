// The public feeds (contract §5): GET /trades, every fill's public items newest first with
// interface.md's filters, and GET /activity, one user's trades, redemptions and deposits newest
// first. Both reject unknown query fields (`unknown_field: <name>`), callers outside
// FEED_IP_ALLOWLIST when it is set (`unauthorized: ip_not_allowlisted`), and answer a failing
// backend with `internal_error: <text>` while every other route keeps serving. And Polymarket's
// GET /markets/live-activity/{condition_id} (its client's getMarketTradesEvents): a market's
// latest fills as its market trade events, from the same index, under the same allow-list.
import { createHash } from 'node:crypto';
import { notionalMicros } from '../../engine/ledger/notional.js';
import { ADDRESS, BYTES32 } from '../auth/eip712.js';
import type { MarketRecord } from '../catalog/model.js';
import { formatUnits, jsonUnits, unitsNumber } from '../decimal.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { boolean, integer, number, oneOf, string, stringList } from '../params.js';
import type { Profile } from '../profiles.js';
import { json, type Reply } from '../respond.js';
import { arrayOf, failure, ok, ref } from '../response_schemas.js';
import { ROWS_CAPS } from '../rate_limit.js';
import { route, type Route } from '../router.js';
import { transactionHash } from '../trading/fill_ids.js';
import type { DepositRecord } from '../trading/treasury.js';
import { BUY } from './book.js';
import { CURSOR_LENGTH_MAX, decodeCursor, encodeCursor, longReads, readSliced, type FeedCursor } from './feed_pages.js';
import type { FeedReader, PublicItem, RedeemItem, TradeQuery } from './feed_reader.js';

/** The response header of GET /trades that names the next page's cursor (absent on the last page). */
export const NEXT_CURSOR_HEADER = 'x-next-cursor';

export const TRADES_LIMIT_MAX = 10_000;
export const TRADES_OFFSET_MAX = 10_000;
export const ACTIVITY_LIMIT_MAX = 500;
export const ACTIVITY_OFFSET_MAX = 10_000;
/** Fills GET /markets/live-activity/{condition_id} shows: the market's latest. */
export const LIVE_ACTIVITY_MAX = 100;
/** Most condition ids one `market` filter names. */
const MARKETS_FILTER_MAX = 100;
/** outcomeIndex of activity items that are not a trade of one token (as Polymarket shows them). */
const NOT_A_TOKEN = 999;

export interface FeedDeps {
  readonly feeds: FeedReader;
  readonly market: (conditionId: string) => MarketRecord | undefined;
  readonly eventSlug: (market: MarketRecord) => string;
  readonly profile: (address: string) => Profile;
  readonly deposits: (address: string, count: number) => DepositRecord[];
  /** Empty: every caller may read the feeds. */
  readonly allowlist: readonly string[];
}

const unauthorized = new HttpError(401, 'unauthorized: ip_not_allowlisted');
const notAllowlisted = failure('The caller is outside FEED_IP_ALLOWLIST: unauthorized: ip_not_allowlisted.');

/** uWS shows an IPv4 peer of a dual-stack socket as ::ffff:a.b.c.d. */
function plainIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

function address(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  if (!ADDRESS.test(raw)) throw badRequest(`${name} must be a 0x address`);
  return raw.toLowerCase();
}

function profileFields(profile: Profile) {
  return {
    name: profile.name, pseudonym: profile.pseudonym, bio: profile.bio,
    profileImage: profile.profileImage, profileImageOptimized: profile.profileImage,
  };
}

/** What one read looked up: the fields of each market outcome and each address it named. */
interface PageMemo {
  readonly markets: Map<string, { conditionId: string; title: string; slug: string; icon: string; eventSlug: string; outcome: string }>;
  readonly profiles: Map<string, ReturnType<typeof profileFields>>;
}

function newMemo(): PageMemo {
  return { markets: new Map(), profiles: new Map() };
}

/** Every public item of `user`, as taker or maker. */
function everyItemOf(user: string): Omit<TradeQuery, 'limit' | 'offset'> {
  return { takerOnly: false, markets: [], user, side: undefined, accept: () => true };
}

function sha256(text: string): string {
  return `0x${createHash('sha256').update(text).digest('hex')}`;
}

export function feedRoutes(deps: FeedDeps): Route[] {
  const allowed = new Set(deps.allowlist.map(plainIp));
  /** Runs a feed read: allow-list first, then the read, with any backend failure as internal_error. */
  const guarded = async (ip: string, read: () => Promise<Reply>): Promise<Reply> => {
    if (allowed.size > 0 && !allowed.has(plainIp(ip))) throw unauthorized;
    try {
      return await longReads.run(read);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new HttpError(500, `internal_error: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const marketFields = (conditionId: string, outcome: number, memo: PageMemo) => {
    const key = `${conditionId}:${outcome}`;
    let fields = memo.markets.get(key);
    if (fields === undefined) {
      const market = deps.market(conditionId);
      fields = {
        conditionId, title: market?.question ?? '', slug: market?.slug ?? '', icon: market?.icon ?? '',
        eventSlug: market === undefined ? '' : deps.eventSlug(market), outcome: market?.outcomes[outcome] ?? '',
      };
      memo.markets.set(key, fields);
    }
    return fields;
  };
  const profileOf = (address: string, memo: PageMemo) => {
    let fields = memo.profiles.get(address);
    if (fields === undefined) {
      fields = profileFields(deps.profile(address));
      memo.profiles.set(address, fields);
    }
    return fields;
  };
  const publicFill = (item: PublicItem, memo: PageMemo) => {
    const [timeMs, shard, seq, fillIndex] = item.key;
    const market = marketFields(item.conditionId, item.outcome, memo);
    return {
      proxyWallet: item.address, side: item.side === BUY ? 'BUY' : 'SELL', asset: `${item.conditionId}:${item.outcome}`,
      conditionId: item.conditionId, size: unitsNumber(item.sizeMicros, 6), price: unitsNumber(item.priceUnits, 4),
      usdcSize: unitsNumber(notionalMicros(item.priceUnits, item.sizeMicros), 6), timestamp: Math.floor(timeMs / 1000),
      title: market.title, slug: market.slug, icon: market.icon, eventSlug: market.eventSlug, outcome: market.outcome,
      outcomeIndex: item.outcome, ...profileOf(item.address, memo), transactionHash: transactionHash(shard, seq, fillIndex),
    };
  };
  const activityOfTrade = (item: PublicItem, memo: PageMemo) => {
    const fill = publicFill(item, memo);
    return {
      proxyWallet: fill.proxyWallet, timestamp: fill.timestamp, conditionId: fill.conditionId, type: 'TRADE', size: fill.size,
      usdcSize: fill.usdcSize, transactionHash: fill.transactionHash, price: fill.price, asset: fill.asset, side: fill.side,
      outcomeIndex: fill.outcomeIndex, title: fill.title, slug: fill.slug, icon: fill.icon, eventSlug: fill.eventSlug,
      outcome: fill.outcome, ...profileOf(fill.proxyWallet, memo),
    };
  };
  const activityOfRedeem = (redeem: RedeemItem, memo: PageMemo) => {
    const market = marketFields(redeem.conditionId, redeem.winner, memo);
    const [yes, no] = redeem.sharesMicros;
    return {
      proxyWallet: redeem.address, timestamp: Math.floor(redeem.timeMs / 1000), conditionId: redeem.conditionId, type: 'REDEEM',
      size: unitsNumber(yes + no, 6), usdcSize: unitsNumber(redeem.sharesMicros[redeem.winner]!, 6),
      transactionHash: sha256(`redeem:${redeem.shard}:${redeem.seq}:${redeem.address}`), price: 0, asset: '', side: '',
      outcomeIndex: NOT_A_TOKEN, title: market.title, slug: market.slug, icon: market.icon, eventSlug: market.eventSlug, outcome: '',
      ...profileOf(redeem.address, memo),
    };
  };
  const activityOfDeposit = (deposit: DepositRecord, memo: PageMemo) => ({
    proxyWallet: deposit.address, timestamp: Math.floor(deposit.timeMs / 1000), conditionId: '', type: 'DEPOSIT',
    size: unitsNumber(deposit.micros, 6), usdcSize: unitsNumber(deposit.micros, 6), transactionHash: sha256(`deposit:${deposit.number}`),
    price: 0, asset: '', side: '', outcomeIndex: NOT_A_TOKEN, title: '', slug: '', icon: '', eventSlug: '', outcome: '',
    ...profileOf(deposit.address, memo),
  });

  const tradesRoute = route({
    method: 'GET', path: '/trades', limits: ['GET /trades'], cost: { limits: ROWS_CAPS, of: (query) => query.offset + query.limit }, unknownQuery: 'reject', clientIp: true, summary: 'Public fills, newest first.',
    response: { 200: { description: 'The page of items; X-Next-Cursor names the next page while there is one.', schema: arrayOf(ref('PublicTrade')), headers: [NEXT_CURSOR_HEADER] }, 401: notAllowlisted },
    query: {
      limit: integer({ min: 0, max: TRADES_LIMIT_MAX, default: 100, description: 'items to return' }),
      offset: integer({ min: 0, max: TRADES_OFFSET_MAX, default: 0, description: 'items to skip' }),
      takerOnly: boolean({ default: true, description: "only the taker's item of each fill" }),
      filterType: oneOf({ values: ['CASH', 'TOKENS'], description: 'CASH: usdcSize >= filterAmount; TOKENS: size >= filterAmount' }),
      filterAmount: number({ min: 0, description: 'threshold of filterType' }),
      market: stringList({ maxItems: MARKETS_FILTER_MAX, maxLength: 66, description: 'comma-separated condition ids' }),
      user: string({ description: 'wallet address', maxLength: 42 }),
      side: oneOf({ values: ['BUY', 'SELL'], description: 'the item’s side' }),
      cursor: string({
        description: `clobd's own: where the previous page's X-Next-Cursor header says the next page starts, with the same filters (instead of offset, which stops at ${TRADES_OFFSET_MAX}); every page of a query carries the next one's cursor until the last`,
        maxLength: CURSOR_LENGTH_MAX,
      }),
    },
    handler: async (context): Promise<Reply> => {
      const q = context.query;
      if ((q.filterType === undefined) !== (q.filterAmount === undefined)) throw badRequest('filterType and filterAmount go together');
      // The threshold in micros, compared with integers (cash and shares both have 6 decimals).
      const threshold = q.filterAmount === undefined ? 0 : jsonUnits(q.filterAmount, 6);
      if (threshold === undefined) throw badRequest('filterAmount must have at most 6 decimals');
      if (q.cursor !== undefined && q.offset > 0) throw badRequest('cursor and offset do not go together');
      const user = address(q.user, 'user');
      const query = {
        takerOnly: q.takerOnly, markets: q.market.map((id) => id.toLowerCase()), user,
        side: q.side === undefined ? undefined : q.side === 'BUY' ? 0 as const : 1 as const,
        accept: q.filterType === undefined ? () => true
          : q.filterType === 'CASH' ? (item: PublicItem) => notionalMicros(item.priceUnits, item.sizeMicros) >= threshold
            : (item: PublicItem) => item.sizeMicros >= threshold,
      };
      return guarded(context.ip, async () => {
        const memo = newMemo();
        const parts: string[] = [];
        const start = q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'cursor');
        const cursor = await tradesSliced(query, start, q.offset, q.limit, (items) => {
          parts.push(JSON.stringify(items.map((item) => publicFill(item, memo))).slice(1, -1));
        });
        const headers: [string, string][] = cursor === undefined ? [] : [[NEXT_CURSOR_HEADER, encodeCursor(cursor)]];
        return { status: 200, body: `[${parts.join(',')}]`, headers };
      });
    },
  });

  /** The items of a public-fills query in slices (readSliced, feed_pages.ts). */
  const tradesSliced = (
    query: Omit<TradeQuery, 'limit' | 'offset'>, start: FeedCursor | undefined, skip: number, limit: number, take: (items: PublicItem[]) => void,
  ): Promise<FeedCursor | undefined> => readSliced((want, cursor) => deps.feeds.trades({ ...query, limit: want, offset: 0 }, cursor), start, skip, limit, take);

  const activityRoute = route({
    method: 'GET', path: '/activity', limits: ['GET /activity'], cost: { limits: ROWS_CAPS, of: (query) => query.offset + query.limit }, unknownQuery: 'reject', clientIp: true, summary: "A user's trades, redemptions and deposits, newest first.",
    response: { ...ok(arrayOf(ref('Activity'))), 401: notAllowlisted },
    query: {
      user: string({ required: true, description: 'wallet address', maxLength: 42 }),
      limit: integer({ min: 0, max: ACTIVITY_LIMIT_MAX, default: 100, description: 'items to return' }),
      offset: integer({ min: 0, max: ACTIVITY_OFFSET_MAX, default: 0, description: 'items to skip' }),
    },
    handler: (context): Promise<Reply> => {
      const q = context.query;
      const user = address(q.user, 'user')!;
      const wanted = q.offset + q.limit;
      return guarded(context.ip, async () => {
        // The three streams are merged by time, and only the page's items are made.
        const trades: PublicItem[] = [];
        await tradesSliced(everyItemOf(user), undefined, 0, wanted, (items) => trades.push(...items));
        const memo = newMemo();
        const entries: { timeMs: number; order: number; item: (memo: PageMemo) => Record<string, unknown> }[] = [
          ...trades.map((item) => ({ timeMs: item.key[0], order: 0, item: (m: PageMemo) => activityOfTrade(item, m) })),
          ...deps.feeds.redeemsOf(user, wanted).map((redeem) => ({ timeMs: redeem.timeMs, order: 1, item: (m: PageMemo) => activityOfRedeem(redeem, m) })),
          ...deps.deposits(user, wanted).map((deposit) => ({ timeMs: deposit.timeMs, order: 2, item: (m: PageMemo) => activityOfDeposit(deposit, m) })),
        ];
        // Newest first; within one millisecond a deposit before a redemption before a trade.
        entries.sort((a, b) => b.timeMs - a.timeMs || a.order - b.order);
        return json(entries.slice(q.offset, wanted).map((entry) => entry.item(memo)));
      });
    },
  });
  /** A fill as Polymarket's market trade event, from its taker's side (`item`, the taker's item). */
  const marketTradeEvent = (item: PublicItem, market: MarketRecord, memo: PageMemo) => {
    const [timeMs, shard, seq, fillIndex] = item.key;
    const profile = profileOf(item.address, memo);
    return {
      event_type: 'trade',
      market: { condition_id: market.conditionId, asset_id: market.tokenIds[item.outcome], question: market.question, icon: market.icon, slug: market.slug },
      user: {
        address: item.address, username: profile.name, profile_picture: profile.profileImage,
        optimized_profile_picture: profile.profileImageOptimized, pseudonym: profile.pseudonym,
      },
      side: item.side === BUY ? 'BUY' : 'SELL', size: formatUnits(item.sizeMicros, 6), fee_rate_bps: String(market.takerBaseFeeBps),
      price: formatUnits(item.priceUnits, 4), outcome: market.outcomes[item.outcome], outcome_index: item.outcome,
      transaction_hash: transactionHash(shard, seq, fillIndex), timestamp: String(Math.floor(timeMs / 1000)),
    };
  };

  const liveActivityRoute = route({
    method: 'GET', path: '/markets/live-activity/:condition_id', limits: ['GET /markets/live-activity'],
    cost: { limits: ROWS_CAPS, of: () => LIVE_ACTIVITY_MAX }, clientIp: true,
    summary: `A market's latest ${LIVE_ACTIVITY_MAX} fills, newest first, as Polymarket's market trade events (each fill once, from its taker's side).`,
    params: { condition_id: string({ required: true, description: 'condition id (0x + 64 hex)', maxLength: 66 }) },
    response: {
      ...ok(arrayOf(ref('MarketTradeEvent'))), 401: notAllowlisted,
      404: failure('No market has this condition id: market not found.'),
    },
    handler: (context): Promise<Reply> => {
      const raw = context.params.condition_id;
      if (!BYTES32.test(raw)) throw badRequest('invalid condition_id');
      const market = deps.market(raw.toLowerCase());
      if (market === undefined) throw notFound('market not found');
      return guarded(context.ip, async () => {
        const { items } = deps.feeds.trades({
          takerOnly: true, markets: [market.conditionId], user: undefined, side: undefined, accept: () => true, limit: LIVE_ACTIVITY_MAX, offset: 0,
        });
        const memo = newMemo();
        return json(items.map((item) => marketTradeEvent(item, market, memo)));
      });
    },
  });
  return [tradesRoute, activityRoute, liveActivityRoute];
}
