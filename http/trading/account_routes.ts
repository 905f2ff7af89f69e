// Account reads (L2): the caller's orders, balances and trades, never anyone else's. Orders and
// balances are read from the front end's account read model (account_data.ts), never on a
// matching worker's thread, but for an order id the model does not hold (finished before its
// newest ACCOUNT_ORDER_HISTORY, or never placed), which the workers look up in their finished-order
// index; trades from the shards' fill indexes, in place (the feed reader). Shaped as interface.md's account
// order (camelCase) and account trade (snake_case, with maker_orders). Cursors (contract §5):
// orders page 500 by base64 offsets and end with ""; trades page 500 and end with "LTE=", and
// their cursor says where each shard's index stopped, so the next page seeks there: every trade
// of an account can be read, however many it has, each page at the cost of one.
import { orderStatusName } from '../../engine/orders/order_status.js';
import type { StoredFill } from '../../engine/shard/feed_tables.js';
import { CURSOR_LENGTH_MAX, decodeCursor, encodeCursor, longReads, readSliced } from '../market/feed_pages.js';
import type { FeedReader } from '../market/feed_reader.js';
import type { OrderView } from '../../engine/state/reads.js';
import { authenticateRequest, L2_HEADER_NAMES, type ApiKeyRecord, type L2Deps } from '../auth/l2.js';
import type { MarketRecord } from '../catalog/model.js';
import { formatUnits } from '../decimal.js';
import { cursorOf, cursorOffset, END_CURSOR } from '../cursor.js';
import { badRequest, notFound } from '../errors.js';
import { oneOf, string } from '../params.js';
import { json, type Reply } from '../respond.js';
import { ok, ref } from '../response_schemas.js';
import { ROWS_CAPS } from '../rate_limit.js';
import { route, type Route } from '../router.js';
import type { AccountData, FoundOrder, LiveOrder } from './account_data.js';
import { tradeId, transactionHash } from './fill_ids.js';
import type { TokenPlace } from './order_request.js';
import { compareListed, type OrderList } from './order_list.js';
import { EMPTY_ANSWER, emptyAnswer } from './polymarket_routes.js';
import { ShardUnavailable, type ShardPool } from './shards.js';

export const ORDERS_PAGE = 500;
export const TRADES_PAGE = 500;
/** The first page's cursor (base64 of offset 0), as Polymarket's clients send it. */
const START_CURSOR = 'MA==';
const ORDER_TYPES = ['GTC', 'GTD', 'FOK', 'FAK'];
/** How long a read waits for the account read model to load a restarted shard (it takes milliseconds) before a 503. */
const LOAD_WAIT_MS = 2_000;

export interface AccountRouteDeps extends L2Deps {
  readonly pool: ShardPool;
  /** The accounts' live orders, balances and newest finished orders. */
  readonly accounts: AccountData;
  /** The shard and engine market of a market key (condition id). */
  readonly placeOf: (key: string) => { readonly shard: number; readonly market: number } | undefined;
  /** The shards' fills and their indexes, read in place. */
  readonly feeds: FeedReader;
  /** The address's free collateral in the treasury. */
  readonly freeCollateral: (address: string) => number;
  /** The market and outcome of a token id. */
  readonly token: (tokenId: string) => TokenPlace | undefined;
  /** The catalog market with this condition id. */
  readonly market: (conditionId: string) => MarketRecord | undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function price(units: number): string {
  return formatUnits(units, 4);
}

function micros(amount: number): string {
  return formatUnits(amount, 6);
}

export function accountRoutes(deps: AccountRouteDeps): Route[] {
  const { pool } = deps;
  const shards = (): number[] => Array.from({ length: pool.count }, (_, shard) => shard);
  const marketOf = (shard: number, index: number): MarketRecord | undefined => {
    const key = pool.marketKeyAt(shard, index);
    return key === undefined ? undefined : deps.market(key);
  };

  const accountOrder = (view: OrderView, shard: number, key: ApiKeyRecord, withUpdated: boolean): Record<string, unknown> | undefined => {
    const market = marketOf(shard, view.market);
    if (market === undefined) return undefined;
    const order = {
      associateTrades: [], id: view.orderId, status: orderStatusName(view.status), market: market.conditionId,
      originalSize: micros(view.originalMicros), outcome: market.outcomes[view.outcome], makerAddress: view.owner,
      owner: key.apiKey, price: price(view.priceUnits), sizeMatched: micros(view.matchedMicros),
      assetId: market.tokenIds[view.outcome], side: view.side === 0 ? 'BUY' : 'SELL', type: ORDER_TYPES[view.orderType],
      createdAt: iso(view.createdAtMs), ...(withUpdated ? { updatedAt: iso(view.updatedAtMs) } : {}),
    };
    // The snake_case names Polymarket's own clients read (their OpenOrder type), beside the
    // interface's camelCase ones, so bots written against either work.
    return {
      ...order, associate_trades: order.associateTrades, original_size: order.originalSize, size_matched: order.sizeMatched,
      maker_address: order.makerAddress, asset_id: order.assetId, order_type: order.type,
      created_at: Math.floor(view.createdAtMs / 1000), expiration: String(Math.floor(view.expirationMs / 1000)),
    };
  };

  /**
   * Waits while the read model loads a restarted shard, so a read after an answer sees what the
   * answer did; a shard that is down while its model waits for it is 503, as a command to it is.
   */
  const whenReadable = async (): Promise<void> => {
    const { accounts } = deps;
    if (accounts.loaded()) return;
    for (const shard of shards()) if (!accounts.shardLoaded(shard) && !pool.isReady(shard)) throw pool.unavailable(shard);
    let timer: NodeJS.Timeout | undefined;
    const loaded = await Promise.race([
      accounts.whenLoaded().then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(resolve, LOAD_WAIT_MS, false))),
    ]);
    clearTimeout(timer);
    if (!loaded) throw new ShardUnavailable('the account read model is loading a restarted shard', 1);
  };

  /**
   * The caller's order with this id (undefined when absent or someone else's): from the read
   * model, or, for an id it does not hold, from each shard's finished-order index in turn.
   */
  const findOrder = async (orderId: string, key: ApiKeyRecord): Promise<FoundOrder | undefined> => {
    await whenReadable();
    const known = deps.accounts.order(orderId);
    if (known !== undefined) return known.view.owner === key.address ? known : undefined;
    for (const shard of shards()) {
      const view = await pool.read<OrderView | null>(shard, { kind: 'order', orderId });
      if (view !== null) return view.owner === key.address ? { view, shard } : undefined;
    }
    return undefined;
  };

  /**
   * Up to a page of `list` from `offset` on, of the orders `keep` keeps (all when undefined), and
   * whether more follow. Unfiltered, a page is a slice reached by skipping whole chunks; filtered,
   * it steps over what the filter leaves out up to the page's end.
   */
  const pageOf = (list: OrderList<LiveOrder> | undefined, offset: number, keep?: (order: LiveOrder) => boolean): { orders: LiveOrder[]; more: boolean } => {
    if (list === undefined) return { orders: [], more: false };
    if (keep === undefined) return { orders: list.page(offset, ORDERS_PAGE), more: offset + ORDERS_PAGE < list.size };
    const orders: LiveOrder[] = [];
    let kept = 0;
    for (const order of list.values()) {
      if (!keep(order) || kept++ < offset) continue;
      if (orders.length === ORDERS_PAGE) return { orders, more: true };
      orders.push(order);
    }
    return { orders, more: false };
  };

  /**
   * A page of the caller's live orders, oldest first, all of them or in one market or token: a
   * page of the account's list, or of its list in that market (for a token, stepping over the
   * other token's). Orders in a market the catalog lacks (only the trading client can place them)
   * are not shown and take no place in the offsets, as when the route sorted every order: an
   * account that has some is paged by stepping over them.
   */
  const livePage = (key: ApiKeyRecord, offset: number, market: string | undefined, assetId: string | undefined): { orders: LiveOrder[]; more: boolean } => {
    const { accounts } = deps;
    const listed = (conditionId: string): OrderList<LiveOrder> | undefined => {
      const place = deps.placeOf(conditionId);
      return place === undefined || marketOf(place.shard, place.market) === undefined ? undefined : accounts.liveOrders(key.address, place);
    };
    if (assetId !== undefined) {
      const token = deps.token(assetId);
      const conditionId = token?.market.conditionId;
      if (token === undefined || conditionId === undefined || (market !== undefined && conditionId !== market && conditionId !== market.toLowerCase())) {
        return { orders: [], more: false };
      }
      return pageOf(listed(conditionId), offset, (order) => order.outcome === token.outcome);
    }
    if (market !== undefined) {
      // Catalog condition ids are lower case; a market key of another case would be a second market.
      const lists = [...new Set([market, market.toLowerCase()])].map(listed).filter((list) => list !== undefined);
      if (lists.length < 2) return pageOf(lists[0], offset);
      const orders = lists.flatMap((list) => [...list.values()]).sort(compareListed);
      return { orders: orders.slice(offset, offset + ORDERS_PAGE), more: offset + ORDERS_PAGE < orders.length };
    }
    const all = accounts.liveOrders(key.address);
    const hidden = [...accounts.liveMarkets(key.address)].some(([shard, index]) => marketOf(shard, index) === undefined);
    return pageOf(all, offset, hidden ? (order) => marketOf(order.shard, order.market) !== undefined : undefined);
  };

  /** One fill as an account trade, from the reader's side. */
  const trade = (fill: StoredFill, shard: number, key: ApiKeyRecord): Record<string, unknown> | undefined => {
    const market = marketOf(shard, fill.market);
    if (market === undefined) return undefined;
    const taker = fill.takerAccount === key.address;
    const time = iso(fill.timeMs);
    return {
      id: tradeId(shard, fill.seq, fill.fillIndex), taker_order_id: fill.takerOrderId, market: market.conditionId,
      asset_id: market.tokenIds[fill.takerOutcome], side: fill.takerSide === 0 ? 'BUY' : 'SELL', size: micros(fill.sizeMicros),
      fee_rate_bps: String(market.takerBaseFeeBps), price: price(fill.takerPriceUnits), status: 'CONFIRMED', match_time: time,
      last_update: time, outcome: market.outcomes[fill.takerOutcome], bucket_index: 0, owner: key.apiKey,
      maker_address: fill.makerAccount, transaction_hash: transactionHash(shard, fill.seq, fill.fillIndex),
      maker_orders: [{
        order_id: fill.makerOrderId, maker_address: fill.makerAccount, owner: fill.makerAccount === key.address ? key.apiKey : '',
        matched_amount: micros(fill.sizeMicros), fee_rate_bps: '0', price: price(fill.makerPriceUnits),
        asset_id: market.tokenIds[fill.makerOutcome], outcome: market.outcomes[fill.makerOutcome], side: fill.makerSide === 0 ? 'BUY' : 'SELL',
      }],
      type: taker ? 'TAKER' : 'MAKER',
      // Polymarket's own clients read the side as trader_side.
      trader_side: taker ? 'TAKER' : 'MAKER',
    };
  };

  const balanceQuery = {
    asset_type: oneOf({ values: ['COLLATERAL', 'CONDITIONAL'], description: 'COLLATERAL or CONDITIONAL' }),
    token_id: string({ description: 'token id (CONDITIONAL)', maxLength: 100 }),
    signature_type: string({ description: 'accepted and ignored (EOA only)', maxLength: 4 }),
  };
  /** What a balance query names: collateral, or a known token (400 otherwise). */
  const balanceOf = (query: { asset_type: 'COLLATERAL' | 'CONDITIONAL' | undefined; token_id: string | undefined }): TokenPlace | 'COLLATERAL' => {
    if (query.asset_type === undefined) throw badRequest('asset_type is required: COLLATERAL or CONDITIONAL');
    if (query.asset_type === 'COLLATERAL') return 'COLLATERAL';
    const token = query.token_id === undefined ? undefined : deps.token(query.token_id);
    if (token === undefined) throw badRequest('token_id must be a known token for CONDITIONAL');
    return token;
  };

  return [
    route({
      method: 'GET', path: '/balance-allowance', limits: ['account'], accountLimits: ['account reads'],
      summary: 'What the caller holds of collateral or one token (free + reserved) and what new orders can still use (free), in millionths.',
      headers: L2_HEADER_NAMES, response: ok(ref('BalanceAllowance')), query: balanceQuery,
      handler: async (context): Promise<Reply> => {
        const key = authenticateRequest(deps, context);
        const asset = balanceOf(context.query);
        await whenReadable();
        if (asset === 'COLLATERAL') {
          let reserved = 0;
          for (const shard of shards()) {
            const [free, held] = deps.accounts.collateral(key.address, shard);
            reserved += held + free;
          }
          const free = deps.freeCollateral(key.address);
          return json({ balance: String(free + reserved), allowance: String(free) });
        }
        const place = deps.placeOf(asset.market.conditionId);
        const [free, reserved] = place === undefined ? [0, 0] : deps.accounts.shares(key.address, place.shard, place.market, asset.outcome);
        return json({ balance: String(free + reserved), allowance: String(free) });
      },
    }),
    route({
      method: 'GET', path: '/balance-allowance/update', limits: ['account'], accountLimits: ['account reads'],
      summary: 'Polymarket\'s updateBalanceAllowance, which re-reads the chain there: balances here are the exchange\'s own ledger, always current, so nothing is refreshed; 200 and no body, as Polymarket answers.',
      headers: L2_HEADER_NAMES, response: emptyAnswer('Done: no body. GET /balance-allowance reads the balance.'), query: balanceQuery,
      handler: (context): Reply => {
        authenticateRequest(deps, context);
        balanceOf(context.query);
        return EMPTY_ANSWER;
      },
    }),
    route({
      method: 'GET', path: '/data/order/:id', limits: ['account'], accountLimits: ['account reads'], summary: "One of the caller's orders, any status.", headers: L2_HEADER_NAMES,
      response: ok(ref('AccountOrderRead')),
      params: { id: string({ description: 'order id (0x hash)', maxLength: 128, required: true }) },
      handler: async (context): Promise<Reply> => {
        const key = authenticateRequest(deps, context);
        const found = await findOrder(context.params.id, key);
        const order = found === undefined ? undefined : accountOrder(found.view, found.shard, key, true);
        if (order === undefined) throw notFound('order not found');
        return json({ order });
      },
    }),
    route({
      method: 'GET', path: '/data/orders', limits: ['account'], accountLimits: ['account reads'], summary: "The caller's live orders (or one, by id), paged 500.", headers: L2_HEADER_NAMES,
      response: ok(ref('AccountOrderPage')),
      query: {
        id: string({ description: 'order id', maxLength: 128 }),
        market: string({ description: 'condition id', maxLength: 128 }),
        asset_id: string({ description: 'token id', maxLength: 100 }),
        next_cursor: string({ description: 'base64 offset; MA== starts', maxLength: 32 }),
      },
      handler: async (context): Promise<Reply> => {
        const key = authenticateRequest(deps, context);
        const { id, market, asset_id: assetId, next_cursor: cursor } = context.query;
        // The last page ends with "" (interface.md). A client that passes that "" back, as clients
        // paging until "LTE=" do (Polymarket's own), gets an empty page that ends with "LTE=".
        if (cursor === '') return json({ data: [], next_cursor: END_CURSOR, limit: ORDERS_PAGE, count: 0 });
        const offset = cursorOffset(cursor);
        if (id !== undefined) {
          // One order, any status, as when every order was listed and filtered (one row, or none).
          const found = await findOrder(id, key);
          const order = found === undefined ? undefined : accountOrder(found.view, found.shard, key, false);
          const rows = order === undefined || (market !== undefined && order['market'] !== market.toLowerCase() && order['market'] !== market)
            || (assetId !== undefined && order['assetId'] !== assetId) ? [] : [order];
          const page = rows.slice(offset, offset + ORDERS_PAGE);
          return json({ data: page, next_cursor: '', limit: ORDERS_PAGE, count: page.length });
        }
        await whenReadable();
        const { orders, more } = livePage(key, offset, market, assetId);
        const rows = orders.map((order) => accountOrder(order.view(), order.shard, key, false)!);
        const next = more ? cursorOf(offset + ORDERS_PAGE) : '';
        return json({ data: rows, next_cursor: next, limit: ORDERS_PAGE, count: rows.length });
      },
    }),
    route({
      method: 'GET', path: '/data/trades', limits: ['account'], accountLimits: ['account reads'], cost: { limits: ROWS_CAPS, of: () => TRADES_PAGE }, summary: "The caller's trades as taker or maker, newest first, paged 500.", headers: L2_HEADER_NAMES,
      response: ok(ref('AccountTradePage')),
      query: {
        id: string({ description: 'trade id', maxLength: 64 }),
        taker: string({ description: 'taker address', maxLength: 64 }),
        maker: string({ description: 'maker address', maxLength: 64 }),
        market: string({ description: 'condition id', maxLength: 128 }),
        // The names Polymarket's official clients send (their TradeParams).
        asset_id: string({ description: "token id: trades whose asset_id (the taker's token) is this one", maxLength: 100 }),
        maker_address: string({ description: 'address: trades in which it is the taker or the maker', maxLength: 64 }),
        before: string({ description: 'unix seconds, strictly before', maxLength: 16 }),
        after: string({ description: 'unix seconds, strictly after', maxLength: 16 }),
        next_cursor: string({ description: 'the previous page\'s next_cursor; MA== (or none) starts; LTE= is the end', maxLength: CURSOR_LENGTH_MAX }),
      },
      handler: async (context): Promise<Reply> => {
        const key = authenticateRequest(deps, context);
        const q = context.query;
        if (q.next_cursor === END_CURSOR) return json({ data: [], next_cursor: END_CURSOR, limit: TRADES_PAGE, count: 0 });
        const cursor = q.next_cursor === undefined || q.next_cursor === '' || q.next_cursor === START_CURSOR
          ? undefined : decodeCursor(q.next_cursor, 'next_cursor');
        const seconds = (value: string | undefined, name: string): number | undefined => {
          if (value === undefined) return undefined;
          if (!/^[0-9]{1,12}$/.test(value)) throw badRequest(`${name} must be unix seconds`);
          return Number(value);
        };
        const before = seconds(q.before, 'before');
        const afterS = seconds(q.after, 'after');
        const taker = q.taker?.toLowerCase();
        const maker = q.maker?.toLowerCase();
        const party = q.maker_address?.toLowerCase();
        const passes = (fill: StoredFill, shard: number): boolean => {
          if (q.id !== undefined && tradeId(shard, fill.seq, fill.fillIndex) !== q.id) return false;
          if (taker !== undefined && fill.takerAccount !== taker) return false;
          if (maker !== undefined && fill.makerAccount !== maker) return false;
          if (party !== undefined && fill.takerAccount !== party && fill.makerAccount !== party) return false;
          if (before !== undefined && !(fill.timeMs < before * 1000)) return false;
          if (afterS !== undefined && !(fill.timeMs >= (afterS + 1) * 1000)) return false;
          const market = marketOf(shard, fill.market);
          return market !== undefined && (q.market === undefined || market.conditionId === q.market)
            && (q.asset_id === undefined || market.tokenIds[fill.takerOutcome] === q.asset_id);
        };
        return longReads.run(async () => {
          // The page in slices, each made into JSON text as it comes (readSliced, feed_pages.ts).
          const parts: string[] = [];
          let count = 0;
          const at = await readSliced((want, from) => {
            const slice = deps.feeds.fillsOf(key.address, want, passes, from);
            return { items: slice.fills, next: slice.next };
          }, cursor, 0, TRADES_PAGE, (fills) => {
            parts.push(JSON.stringify(fills.map(({ fill, shard }) => trade(fill, shard, key)!)).slice(1, -1));
            count += fills.length;
          });
          const next = at === undefined ? END_CURSOR : encodeCursor(at);
          return { status: 200, body: `{"data":[${parts.join(',')}],"next_cursor":${JSON.stringify(next)},"limit":${TRADES_PAGE},"count":${count}}` };
        });
      },
    }),
  ];
}
