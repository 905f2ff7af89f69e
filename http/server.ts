// One process, three listeners, as Polymarket splits its hosts: CLOB ({base_url}/{clob_url}),
// catalog ({catalog_url}) and data ({data_url}). This file wires stores to route tables and
// route tables to uWS apps; it owns start-up and graceful shutdown.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { adminRoutes } from './admin/routes.js';
import { ApiKeyStore } from './auth/keys.js';
import { authRoutes } from './auth/routes.js';
import { makeVerifier, verifyThreadsEach, type SignatureVerifier } from './auth/verifier.js';
import { CatalogLive } from './catalog/live.js';
import { CatalogQueries } from './catalog/query.js';
import { catalogRoutes } from './catalog/routes.js';
import { CatalogSearch } from './catalog/search.js';
import { CatalogStore } from './catalog/store.js';
import { CatalogViews } from './catalog/views.js';
import { acceptBackup, checkBackupState } from './backup/accept.js';
import { startControl } from './backup/control.js';
import { Backups } from './backup/cut.js';
import { checkAgreement } from './data_dir/agreement.js';
import { openDataDir, type Inspection } from './data_dir/directory.js';
import { MAINNET_CHAIN_ID, type Config } from './config.js';
import type { ErrorStyle } from './errors.js';
import { LISTENER_SETTINGS, listenRefusal } from './exclusive.js';
import type { Logger } from './log.js';
import { RelayTrust } from './client_address.js';
import { startCompatThread } from './compat_thread.js';
import { ProfileStore } from './profiles.js';
import { bookRoutes, type TokenBook } from './market/book_routes.js';
import { feedRoutes } from './market/feed_routes.js';
import { historyRoutes } from './market/history.js';
import { tradingMarketRoutes } from './market/trading_markets.js';
import { followVersion } from './market/book_versions.js';
import type { Metrics } from './metrics.js';
import { openApiDocument, type OpenApiInput } from './openapi.js';
import { apiKeyMetrics, operatorMetrics } from './operator_metrics.js';
import { accountCharge, allocateBuckets, CANCEL_CAPS, PLACE_CAPS, RateLimiter } from './rate_limit.js';
import { ChannelCaps } from './ws/caps.js';
import { LiveChannels, type Publisher } from './ws/channels.js';
import { errorReply, json, Lifecycle } from './respond.js';
import { ResponseCache } from './response_cache.js';
import { ok, ref } from './response_schemas.js';
import { capIdsOf, mount, route, type CachePolicy, type Route } from './router.js';
import { accountRoutes } from './trading/account_routes.js';
import { polymarketRoutes } from './trading/polymarket_routes.js';
import { engineMarketState, syncCatalogFlags } from './trading/catalog_flags.js';
import { openDemo, seedDemo } from './trading/demo.js';
import { heartbeatRoutes, Heartbeats } from './trading/heartbeats.js';
import { cancelChecked, orderRoutes, placeChecked, type OrderRouteDeps } from './trading/order_routes.js';
import type { OrderDomains } from './trading/order_request.js';
import { engineOptionsOf, startTrading, type TradingRuntime } from './trading/runtime.js';
import { assertNativeUws, listenExclusive, listenShared, probeUnderscoreHeaderNames, uws, type TemplatedApp, type us_listen_socket } from './uws.js';
import { FrontEnds } from './front_end/hub.js';
import { Replication } from './replication/replication.js';
import { SnapshotSchedule } from './replication/snapshot_schedule.js';
import { LEASE_MS, type LeaseHolder } from './replication/lease.js';
import { ReplicatedRoutes } from './replication/routes.js';
import { ChangeFollower } from './replication/state_follower.js';

export type ListenerName = 'clob' | 'catalog' | 'data';

export interface Server {
  readonly ports: Readonly<Record<ListenerName, number>>;
  readonly urls: Readonly<Record<ListenerName, string>>;
  /** The compatibility listener's URL (COMPAT_PORT), or undefined when it is off. */
  readonly compatUrl: string | undefined;
  readonly trading: TradingRuntime;
  /** Publishes to the CLOB listener's WebSocket subscribers on every front end (a benchmark's raw publish). */
  publish(topic: string, message: string): void;
  /** Stops accepting, lets in-flight requests finish (bounded wait), flushes and closes stores. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /**
   * Lets a benchmark add raw uWS routes beside the real ones, served by the same process (with
   * FRONT_ENDS > 1 on the main thread's stand-in app too, so every thread's requests reach them).
   */
  readonly decorate?: (name: ListenerName, app: TemplatedApp) => void;
  readonly now?: () => number;
  /** The data directory as main.ts inspected it just before (and walked), so the start does not read every page again. */
  readonly inspection?: Inspection;
  /**
   * A read-only replica (`follow`, NATS set): its shards and stores apply what the primary
   * appends to the replicated journal; it serves every read and refuses every change, naming
   * the primary (http/replication/).
   */
  readonly following?: boolean;
}

const drainWaitMs = 5_000;
/** Polymarket's market trade events: served on the CLOB listener, as Polymarket serves them. */
const LIVE_ACTIVITY_PATH = '/markets/live-activity/:condition_id';
const responseCacheEntriesMax = 4_096;
const responseCacheBytesMax = 64 * 1024 * 1024;

/**
 * Binds without SO_REUSEPORT, so a port another process holds is refused, not shared
 * (exclusive.ts). With front-end threads (`shared`) the port must take SO_REUSEPORT, so it is
 * first bound without it and let go (a port another process holds is refused there, and port 0
 * becomes a free port), then bound with it by this thread and then the others.
 */
async function listen(app: TemplatedApp, host: string, port: number, name: ListenerName, shared: boolean): Promise<us_listen_socket> {
  const bind = (target: TemplatedApp, how: typeof listenExclusive, at: number): Promise<us_listen_socket> => new Promise((resolve, reject) => {
    how(target, host, at, (socket) => {
      if (socket === false) listenRefusal(host, at, LISTENER_SETTINGS[name] ?? name).then(reject, reject);
      else resolve(socket);
    });
  });
  if (!shared) return bind(app, listenExclusive, port);
  const probe = await bind(uws.App(), listenExclusive, port);
  const free = uws.us_socket_local_port(probe);
  uws.us_listen_socket_close(probe);
  return bind(app, listenShared, free);
}

/**
 * The public feeds: GET /trades on the CLOB and data listeners, GET /activity on the data
 * listener, GET /markets/live-activity/{condition_id} on the CLOB listener (LIVE_ACTIVITY_PATH).
 */
function publicFeeds(config: Config, store: CatalogStore, profiles: ProfileStore, trading: TradingRuntime): Route[] {
  return feedRoutes({
    feeds: trading.feeds, market: (conditionId) => store.marketOfCondition(conditionId),
    eventSlug: (market) => store.event(market.eventId)?.slug ?? '', profile: (address) => profiles.get(address),
    deposits: (address, count) => trading.treasury.depositsOf(address, count), allowlist: config.feedIpAllowlist,
  });
}

/** A token's market, outcome and live book; they never change once it has a book, so each is built once. */
function tokenBooks(trading: TradingRuntime): (tokenId: string) => TokenBook | undefined {
  const known = new Map<string, TokenBook>();
  return (tokenId) => {
    const found = known.get(tokenId);
    if (found !== undefined) return found;
    const place = trading.token(tokenId);
    const book = place === undefined ? undefined : trading.marketData.book(place.market.conditionId);
    if (place === undefined || book === undefined) return undefined;
    const made = { market: place.market, outcome: place.outcome, book };
    known.set(tokenId, made);
    return made;
  };
}

function marketDataRoutes(
  store: CatalogStore, trading: TradingRuntime, tokenBook: (tokenId: string) => TokenBook | undefined, now: () => number, liveCached: CachePolicy,
): Route[] {
  return [
    ...bookRoutes({ tokenBook, now }),
    ...historyRoutes({ feeds: trading.feeds, isToken: (tokenId) => trading.token(tokenId) !== undefined, now }),
    ...tradingMarketRoutes({
      store, book: (conditionId) => trading.marketData.book(conditionId), catalogVersion: followVersion(trading.marketData.versions, store), cached: liveCached,
    }),
  ];
}

/** The domains orders are signed in, as the order routes and the front-end threads take them. */
function orderDomainsOf(config: Config): OrderDomains {
  return { chainId: config.chainId, domainName: config.orderDomainName, exchangeAddress: config.exchangeAddress, negRiskExchangeAddress: config.negRiskExchangeAddress };
}

/** What the order routes use, and what orders a front-end thread checked in full are placed with (front_end/hub.ts). */
function orderDeps(config: Config, keys: ApiKeyStore, trading: TradingRuntime, verifier: SignatureVerifier, limiter: RateLimiter, now: () => number): OrderRouteDeps {
  return {
    client: trading.client, keys, authWindowS: config.authWindowS, domains: orderDomainsOf(config), token: trading.token, verifier, now,
    chargePlace: accountCharge(limiter, PLACE_CAPS),
    chargeCancel: accountCharge(limiter, CANCEL_CAPS),
  };
}

function clobRoutes(
  config: Config, store: CatalogStore, views: CatalogViews, keys: ApiKeyStore, profiles: ProfileStore, trading: TradingRuntime, heartbeats: Heartbeats,
  tokenBook: (tokenId: string) => TokenBook | undefined, now: () => number, orders: OrderRouteDeps, liveCached: CachePolicy,
): Route[] {
  const { authWindowS, chainId } = config;
  return [
    ...marketDataRoutes(store, trading, tokenBook, now, liveCached),
    ...publicFeeds(config, store, profiles, trading).filter((entry) => entry.path === '/trades' || entry.path === LIVE_ACTIVITY_PATH),
    ...heartbeatRoutes({ keys, authWindowS, now, heartbeats }),
    route({
      method: 'GET', path: '/', limits: ['GET /'], summary: 'Health check: the JSON string "OK".', response: ok({ const: 'OK' }), handler: () => json('OK'),
    }),
    route({
      method: 'GET', path: '/ok', limits: ['GET /'], summary: 'GET / at the path Polymarket\'s V2 clients ask (getOk, get_ok): the JSON string "OK".',
      response: ok({ const: 'OK' }), handler: () => json('OK'),
    }),
    route({
      method: 'GET', path: '/version', limits: ['service'], summary: "The order version the exchange verifies: {version: 2}, the CTF Exchange's second Order type (timestamp, metadata, builder; Polymarket's V2 client asks it before signing).",
      response: ok(ref('Version')), handler: () => json({ version: 2 }),
    }),
    route({
      method: 'GET', path: '/health', limits: ['service'], summary: 'Liveness for orchestrators: 200 while the process serves.', response: ok(ref('StatusOk')),
      handler: () => json({ status: 'ok' }),
    }),
    route({
      method: 'GET', path: '/ready', limits: ['service'], summary: 'Readiness: 200 when every matching worker has recovered and the read models are loaded, else 503.',
      response: { ...ok(ref('Ready')), 503: { description: 'Not ready yet: which workers are, and the read models.', schema: ref('NotReady'), headers: ['retry-after'] } },
      handler: () => {
        const { pool } = trading;
        const shards = Array.from({ length: pool.count }, (_, shard) => pool.isReady(shard));
        if (shards.every(Boolean) && trading.marketData.loaded() && trading.accountData.loaded()) return json({ status: 'ready', shards: shards.length });
        return json({
          error: 'not ready',
          shards: shards.map((ready, shard) => {
            const failure = pool.storageFailure(shard);
            return failure === undefined ? { shard, ready } : { shard, ready, storageError: failure.message, storageErrorSince: new Date(failure.sinceMs).toISOString() };
          }),
          marketData: trading.marketData.loaded(),
          accountData: trading.accountData.loaded(),
        }, 503, [['retry-after', '1']]);
      },
    }),
    ...authRoutes({ keys, chainId, authWindowS, now }),
    ...polymarketRoutes({ keys, authWindowS, now }),
    ...orderRoutes(orders),
    ...accountRoutes({
      keys, authWindowS, now, pool: trading.pool, accounts: trading.accountData, placeOf: (key) => trading.client.placeOf(key),
      feeds: trading.feeds, token: trading.token,
      freeCollateral: (address) => trading.treasury.freeOf(address),
      market: (conditionId) => store.marketOfCondition(conditionId),
    }),
    ...adminRoutes({
      adminToken: config.adminToken, store, views, now, openMarkets: trading.openMarkets,
      deposit: (address, micros) => trading.client.deposit(address, micros), profiles,
      trading: {
        setAccepting: (conditionId, accepting) => trading.client.setAccepting(conditionId, accepting),
        resolveMarket: (conditionId, winner) => trading.client.resolveMarket(conditionId, winner),
        statuses: () => trading.client.statuses(),
        marketState: (conditionId) => engineMarketState(trading, conditionId),
      },
    }),
  ];
}

/** The listener's OpenAPI document, made from its route table (this route included) on first use. */
function openApiRoute(input: OpenApiInput): Route {
  let body: string | undefined;
  return route({
    method: 'GET', path: '/openapi.json', limits: ['service'], summary: "This listener's OpenAPI 3.1 document, made from its route table.", response: ok(ref('OpenApiDocument')),
    handler: () => ({ status: 200, body: (body ??= JSON.stringify(openApiDocument(input))) }),
  });
}

const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';

function metricsRoute(metrics: Metrics): Route {
  return route({
    method: 'GET', path: '/metrics', limits: ['service'], summary: 'Operator metrics in the Prometheus text format.',
    response: { 200: { description: 'The Prometheus text exposition.', schema: { type: 'string' }, contentType: METRICS_CONTENT_TYPE } },
    handler: async () => ({ status: 200, body: await metrics.render(), contentType: METRICS_CONTENT_TYPE }),
  });
}

/** What a start has opened so far, closed in reverse order on stop or on a failed start. */
class Resources {
  private readonly closers: (() => void | Promise<void>)[] = [];

  add<T>(resource: T, close: (resource: T) => void | Promise<void>): T {
    this.closers.push(() => close(resource));
    return resource;
  }

  async closeAll(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
  }

  /** Runs `step`; if it throws, closes everything opened so far and rethrows. */
  async guard<T>(step: () => T | Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      await this.closeAll();
      throw error;
    }
  }
}

export async function startServer(config: Config, log: Logger, options: ServerOptions = {}): Promise<Server> {
  assertNativeUws();
  await warnAboutSigning(config, log);
  const now = options.now ?? Date.now;
  const resources = new Resources();
  // The directory is checked (and a new one made) before any store opens; the check of every
  // page runs in a child process before this, where the process starts (main.ts).
  const checkStarted = performance.now();
  const dataDir = await openDataDir(config.dataDir, config.shards, options.inspection);
  const storesMs = performance.now() - checkStarted;
  const adopting = dataDir.state === 'adopting';
  const following = options.following === true;
  // The replicated journal first: every change the stores commit from here on goes to it (a
  // primary's), or comes from it (a replica's). Closed last: what the stores committed while
  // stopping is appended.
  const replicationConfig = config.replication;
  const replication = replicationConfig === undefined ? undefined
    : resources.add(await resources.guard(() => Replication.start(replicationConfig, config.shards, log)), (r) => r.stop());
  // A primary holds the lease (waiting out one a primary that just died still holds) before its
  // shards append anything; a standby watches it, and takes it when it lapses (promote, below).
  const holder: LeaseHolder = { id: randomUUID(), url: config.advertiseUrl ?? '' };
  if (replication !== undefined && !following) await resources.guard(() => replication.acquireLease(holder, 2 * LEASE_MS + 1_000));
  let changes = replication === undefined || following ? undefined : await resources.guard(() => replication.recordChanges());
  // A primary's stores send what their outboxes hold as they open, before they take any change
  // (replication/outbox.ts): what a primary that died on this data directory committed and the
  // stream never took.
  const store = resources.add(CatalogStore.open(config.dataDir), (r) => r.close());
  store.outbox.attach(changes);
  // A replica's catalog is the primary's: it seeds nothing of its own.
  const demoState = config.seedDemo && !following ? await resources.guard(() => seedDemo(store, config.dataDir, now(), log)) : undefined;
  const keys = resources.add(await resources.guard(() => new ApiKeyStore(config.dataDir, { adopting, cacheEntries: config.keyCacheEntries })), (r) => r.close());
  keys.outbox.attach(changes);
  const profiles = resources.add(new ProfileStore(config.dataDir), (r) => r.close());
  profiles.outbox.attach(changes);
  const trading = resources.add(await resources.guard(() => startTrading(
    config, log, store.allMarkets(), now, adopting, (pool) => checkBackupState(config.dataDir, pool, engineOptionsOf(config)),
    { replication, changes, following },
  )), (r) => r.stop());
  if (following) {
    for (const outbox of [store.outbox, keys.outbox, profiles.outbox, trading.treasury.outbox]) await resources.guard(() => outbox.discard());
  }
  // Before anything is served: the shards, the treasury and the key store agree. Only then is
  // a new or adopted directory recorded. (A replica's stores follow the primary's one change at
  // a time, and may stand between two that belong together.)
  const agreementStarted = performance.now();
  if (!following) await resources.guard(() => checkAgreement(config.dataDir, trading, keys));
  if (adopting) {
    trading.treasury.stampChecksums();
    keys.stampChecksums();
  }
  dataDir.writeRecord();
  acceptBackup(config.dataDir, log);
  log.info('data_dir_checked', { state: dataDir.state, storesMs, agreementMs: performance.now() - agreementStarted });
  const demo = following ? undefined : await resources.guard(() => openDemo({ config, store, keys, trading, now, log }, demoState));
  if (!following) syncCatalogFlags(store, trading, now(), log);
  // A replica applies the primary's own changes as they come, and learns from them where the primary is.
  const replicated = replication === undefined ? undefined : new ReplicatedRoutes(following ? 'replica' : 'primary', replication);
  const follower = following && replication !== undefined
    ? resources.add(new ChangeFollower(replication.followChanges(), { catalog: store, keys, treasury: trading.treasury, profiles }, {
      catalogChanged: () => trading.openMarkets(store.allMarkets()),
      primary: (url) => {
        if (replicated !== undefined) replicated.primaryUrl = url;
      },
    }, log), (f) => f.stop())
    : undefined;
  follower?.start();
  // A primary whose lease another server took (it was paused or cut off past it) takes no more
  // changes, naming the new primary; its shards' appends are refused already (the new primary
  // claimed every subject). One that lost it to a NATS outage no one used takes it again.
  replication?.onLease((current) => {
    // Lost to a NATS outage with no one else holding it, it goes on taking orders: the subjects'
    // fencing, not the lease, keeps a replaced primary from acknowledging (a NATS node that
    // fails over must change nothing for clients).
    if (replicated === undefined || current === undefined || current.id === holder.id) return;
    replicated.role = 'deposed';
    replicated.primaryUrl = current.url;
  }, () => {
    if (replicated === undefined) return;
    replicated.role = 'primary';
    replicated.primaryUrl = holder.url;
  });
  const verifier: SignatureVerifier = resources.add(
    // With front-end threads the main thread takes no connections: the threads recover their
    // orders' signatures, and what reaches it whole (the relay's, a thread's hand-over) is recovered here.
    makeVerifier(config.frontEnds > 1 ? 0 : config.verifyThreads), (r) => r.close(),
  );
  const heartbeats = resources.add(new Heartbeats(config.heartbeatTimeoutMs, now, (address) => trading.client.cancelAll(address), log), (r) => r.stop());
  const lifecycle = new Lifecycle(config.bodyTimeoutMs);
  const responseCache = new ResponseCache(responseCacheEntriesMax, responseCacheBytesMax);
  const cached = { cache: responseCache, version: () => store.version };
  // The catalog's live fields (prices, quotes, volumes, liquidity) from the books' read model and
  // the clock; answers that show them are cached until those change too (both versions only grow).
  const live = new CatalogLive((conditionId) => trading.marketData.book(conditionId), now);
  trading.marketData.listen(live);
  const views = new CatalogViews(store, live);
  const liveCached = { cache: responseCache, version: () => store.version + live.version() };
  // One table of buckets for every thread that serves requests (contract §7).
  const buckets = allocateBuckets();
  const limiter = new RateLimiter(buckets, config.rateLimits, now);
  const tokenBook = tokenBooks(trading);
  // The compatibility relay's secret, made at every start and held only here: with it the relay
  // names its clients' addresses to the CLOB listener (client_address.ts).
  const relay = config.compatPort === undefined ? undefined : new RelayTrust();
  const channels = resources.add(new LiveChannels({
    tokenBook, market: (conditionId) => store.marketOfCondition(conditionId), keys,
    bookAt: (shard, index) => trading.marketData.bookAt(shard, index), socketsPerIp: config.wsSocketsPerIp,
    ...(relay === undefined ? {} : { relay }),
    caps: new ChannelCaps(limiter),
  }), (c) => c.close());
  trading.marketData.listen(channels);
  // FRONT_ENDS > 1: the other threads' requests run on the same routes here (front_end/hub.ts).
  const frontEnds = config.frontEnds > 1
    ? resources.add(new FrontEnds({ count: config.frontEnds, host: config.host, bodyTimeoutMs: config.bodyTimeoutMs, log, buckets, caps: config.rateLimits,
      // The read model shares its books' versions exactly when FRONT_ENDS > 1 (runtime.ts).
      dropped: (socket) => channels.dropped(socket), bookVersions: trading.marketData.versions!.buffer,
      verifyThreads: verifyThreadsEach(config.verifyThreads, config.frontEnds),
      orderDomains: orderDomainsOf(config),
      ...(relay === undefined ? {} : { relaySecret: relay.secret }),
    }), (f) => f.stop())
    : undefined;
  const metrics = config.metrics ? resources.add(operatorMetrics(trading, channels, limiter, verifier, frontEnds), (m) => m.close()) : undefined;
  if (frontEnds !== undefined && metrics !== undefined) {
    frontEnds.metrics = metrics;
    metrics.beforeRender = () => frontEnds.flushServed();
  }
  if (metrics !== undefined) apiKeyMetrics(metrics, keys);
  const orders = orderDeps(config, keys, trading, verifier, limiter, now);
  const tables: Record<ListenerName, { style: ErrorStyle; routes: Route[]; caps: string[] }> = {
    clob: { style: 'clob', routes: [
      ...clobRoutes(config, store, views, keys, profiles, trading, heartbeats, tokenBook, now, orders, liveCached),
      ...(metrics === undefined ? [] : [metricsRoute(metrics)]),
    ], caps: ['trading'] },
    catalog: {
      style: 'catalog',
      routes: catalogRoutes({ store, queries: new CatalogQueries(store, views), search: new CatalogSearch(store, views), views, cached, liveCached }),
      caps: ['catalog'],
    },
    data: { style: 'clob', routes: publicFeeds(config, store, profiles, trading).filter((entry) => entry.path !== LIVE_ACTIVITY_PATH), caps: ['data'] },
  };
  for (const name of ['clob', 'catalog', 'data'] as const) {
    const table = tables[name];
    table.routes.push(openApiRoute({ title: `clobd ${name} API`, listener: name, routes: table.routes, style: table.style, listenerCaps: table.caps, caps: config.rateLimits }));
  }
  // The threads check a POST /order and a DELETE /order in full themselves, on the process's clock
  // only (a server started on another clock, in tests of time, checks every one here). A replica's
  // hand each to this thread, which refuses it as a replica, until it is promoted.
  if (frontEnds !== undefined && options.now === undefined) {
    const capsOf = (method: string): { perClientCaps: number[]; sharedCaps: number[] } => {
      const found = tables.clob.routes.find((entry) => entry.method === method && entry.path === '/order')!;
      const ids = capIdsOf(limiter, [...tables.clob.caps, ...found.limits]);
      return { perClientCaps: ids.perClient, sharedCaps: ids.shared };
    };
    frontEnds.checking = {
      authWindowS: config.authWindowS, routes: { place: capsOf('POST'), cancel: capsOf('DELETE') },
      place: (checked) => {
        const refused = replicated?.refusal('POST', '/order')?.();
        return refused === undefined ? placeChecked(orders, checked) : Promise.resolve(refused);
      },
      cancel: (checked) => {
        const refused = replicated?.refusal('DELETE', '/order')?.();
        return refused === undefined ? cancelChecked(orders, checked) : Promise.resolve(refused);
      },
      token: trading.token,
      metrics: { place: metrics?.route('clob', 'POST', '/order'), cancel: metrics?.route('clob', 'DELETE', '/order') },
      fail: (error, requestId) => errorReply(tables.clob.style, error, log, '/order', requestId), lifecycle,
    };
  }
  const wanted: Record<ListenerName, number> = { clob: config.clobPort, catalog: config.catalogPort, data: config.dataPort };
  const sockets: us_listen_socket[] = [];
  resources.add(sockets, (open) => {
    for (const socket of open.splice(0)) uws.us_listen_socket_close(socket);
  });
  const ports = { clob: 0, catalog: 0, data: 0 };
  /** The main thread's listeners on the public ports: with front-end threads, held only until they listen too. */
  const publicSockets: us_listen_socket[] = [];
  let publisher: Publisher | undefined;
  /** Where the compatibility relay connects: the CLOB listener's port, or with several front ends the main thread's own (below). */
  let relayTarget = 0;
  await resources.guard(async () => {
    for (const name of ['clob', 'catalog', 'data'] as const) {
      const app = uws.App();
      options.decorate?.(name, app);
      if (name === 'clob') {
        publisher = frontEnds?.publisher(app) ?? app;
        channels.mount(app, publisher);
        if (frontEnds !== undefined) channels.mount(frontEnds.appFor(name), publisher);
      }
      const listener = {
        name, style: tables[name].style, log, lifecycle, ...(metrics === undefined ? {} : { metrics }), limits: { limiter, caps: tables[name].caps },
        ...(name === 'clob' && relay !== undefined ? { relay } : {}),
        ...(replicated === undefined ? {} : { replicated }),
      };
      mount(app, tables[name].routes, listener);
      if (frontEnds !== undefined) {
        options.decorate?.(name, frontEnds.appFor(name));
        mount(frontEnds.appFor(name), tables[name].routes, listener);
      }
      const socket = await listen(app, config.host, wanted[name], name, frontEnds !== undefined);
      sockets.push(socket);
      publicSockets.push(socket);
      ports[name] = uws.us_socket_local_port(socket);
      if (name === 'clob') relayTarget = ports.clob;
      if (name === 'clob' && frontEnds !== undefined && relay !== undefined) {
        // The relay pipelines what its clients pipeline, and only the main thread answers a
        // pipelined read (docs/runtime.md, Front ends): its connections go to a port of the main
        // thread's CLOB app alone, on a free port no one else is told of.
        const own = await listen(app, config.host, 0, name, false);
        sockets.push(own);
        relayTarget = uws.us_socket_local_port(own);
      }
    }
    if (frontEnds !== undefined) {
      await frontEnds.start(ports);
      // The threads take every connection from now on: the main thread keeps the state and
      // answers what they hand over (and the relay's connections, on its own port).
      for (const socket of publicSockets) {
        uws.us_listen_socket_close(socket);
        sockets.splice(sockets.indexOf(socket), 1);
      }
    }
  });
  // DATA_DIR/control.sock: how `main.js backup` reaches this server (http/backup/control.ts).
  resources.add(await resources.guard(() => startControl(config.dataDir, new Backups({
    dataDir: config.dataDir, pool: trading.pool, keys, engine: engineOptionsOf(config), log,
    changesAt: () => (replicated?.role === 'primary' ? replication?.changes : undefined),
  }), log)), (control) => control.close());
  // The primary's snapshots on NATS, where new replicas start (a standby's begin once it is promoted).
  if (replicationConfig !== undefined && replicationConfig.snapshotIntervalS > 0) {
    resources.add(new SnapshotSchedule(config, replicationConfig, () => replicated?.role === 'primary', log), (schedule) => schedule.stop());
  }
  const url = (port: number) => `http://${config.host}:${port}`;
  let compatUrl: string | undefined;
  if (config.compatPort !== undefined && relay !== undefined) {
    const compatPort = config.compatPort;
    const proxy = resources.add(await resources.guard(() => startCompatThread(config.host, compatPort, relayTarget, relay).catch(
      async (error: unknown) => { throw await listenRefusal(config.host, compatPort, LISTENER_SETTINGS['compat'] ?? 'COMPAT_PORT', error); },
    )), (p) => p.close());
    compatUrl = url(proxy.port);
    log.info('compat_listening', { url: compatUrl });
  }
  // Where trading goes: replicas name it to clients they refuse.
  holder.url = config.advertiseUrl ?? url(ports.clob);
  changes?.record({ kind: 'primary', url: holder.url });
  if (!following) replication?.advertise(holder);
  // A standby takes over once the primary's lease lapses: it claims every subject of the stream
  // for its term (the old primary can append nothing more), applies what it had not yet, stops
  // following, and its shards and stores take changes from there. Clients get 503 with
  // Retry-After until then.
  if (replication !== undefined && replicated !== undefined && follower !== undefined) {
    const promote = async (): Promise<void> => {
      const startedMs = performance.now();
      let term: number;
      try {
        term = await replication.acquireLease(holder, 0);
      } catch {
        replication.watchLease(holder, () => void promote());
        return;
      }
      const batches = await replication.claim();
      await replication.appliedThrough(batches);
      follower.stop();
      changes = await replication.recordChanges();
      // Its stores record their changes from here on (their outboxes were emptied at its start).
      for (const outbox of [store.outbox, keys.outbox, profiles.outbox, trading.treasury.outbox]) outbox.attach(changes);
      await trading.promote();
      replicated.role = 'primary';
      replicated.primaryUrl = holder.url;
      changes.record({ kind: 'primary', url: holder.url });
      log.info('promoted to primary', { term, batches: batches.join(','), ms: Math.round(performance.now() - startedMs) });
    };
    replication.watchLease(holder, () => {
      promote().catch((error: unknown) => log.error('promotion failed', { error: error instanceof Error ? error.message : String(error) }));
    });
  }
  // Last, so it stops first: the flow's step in flight is answered before anything closes.
  const demoFlow = await resources.guard(() => demo?.startFlow());
  if (demoFlow !== undefined) resources.add(demoFlow, (flow) => flow.stop());

  const stop = async (): Promise<void> => {
    lifecycle.draining = true;
    for (const socket of sockets.splice(0)) uws.us_listen_socket_close(socket);
    // The other front ends stop accepting and wait for the answers of what they took, which this
    // thread still gives.
    await frontEnds?.stop();
    const deadline = now() + drainWaitMs;
    while (lifecycle.inFlight > 0 && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await resources.closeAll();
  };

  return {
    ports, urls: { clob: url(ports.clob), catalog: url(ports.catalog), data: url(ports.data) }, compatUrl, trading, stop,
    publish: (topic, message) => void publisher?.publish(topic, message),
  };
}

/**
 * What an operator must know before clients sign anything: a mainnet signing domain, and a uWS
 * binary that leaves Polymarket's clients (POLY_ADDRESS, ...) unanswered.
 */
async function warnAboutSigning(config: Config, log: Logger): Promise<void> {
  if (config.chainId === MAINNET_CHAIN_ID) {
    log.warn('mainnet_signing_domain', {
      chainId: config.chainId,
      detail: 'CHAIN_ID=137: the orders clobd accepts carry signatures that are valid on Polymarket\'s real exchange (Polygon mainnet); the default 80002 (Polygon Amoy) makes them worthless there',
    });
  }
  if (!(await probeUnderscoreHeaderNames())) {
    log.warn('underscore_header_names_unanswered', {
      detail: 'this uWebSockets.js binary never answers a request whose header names contain "_" (POLY_ADDRESS, as Polymarket\'s clients send): run `node tools/patch_uws.mjs` (npm install does), or serve such clients through COMPAT_PORT',
    });
  }
}
