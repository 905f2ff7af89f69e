// Routes are data: method, path, parameter schemas, body kind, handler. `route()` compiles one
// declaration at boot into a uWS callback that validates everything at the edge, so a handler
// receives typed values and returns a reply (or a promise of one). `mount()` also answers 405
// for a known path with the wrong method and 404 for everything else.
import { clientKey, clientText, RELAYED_FOR_HEADER, type RelayTrust } from './client_address.js';
import { badRequest, type ErrorStyle } from './errors.js';
import type { Logger } from './log.js';
import { applySchema, parseQuery, type ParamSchema, type ParamsOf } from './params.js';
import { bodyBytesMax, errorReply, Pending, readBody, write, type Lifecycle, type Reply } from './respond.js';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Metrics, RouteMetrics } from './metrics.js';
import { accountCharge, ALL_CLIENTS, type RateLimiter } from './rate_limit.js';
import type { Validity } from './market/book_versions.js';
import type { ResponseCache } from './response_cache.js';
import type { JsonSchema, Responses } from './response_schemas.js';
import { uwsHeaderName, type HttpRequest, type HttpResponse, type TemplatedApp } from './uws.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** `json`: a JSON body is required; `optional-json`: an empty body is allowed (body undefined). */
export type BodyKind = 'json' | 'optional-json';

export interface Context<Q, P> {
  readonly method: Method;
  /** The request's path for routes that declare headers (L2 signs it); the route's pattern otherwise. */
  readonly path: string;
  readonly query: Q;
  readonly params: P;
  /**
   * The headers the route declared, lower-case names; '' when absent, and undefined for a name
   * with '_' that was not read because a spelling without one was present (see headerReads).
   */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, for routes that declare one. */
  readonly body: unknown;
  /** The exact body bytes (empty when none), for signatures over the body. */
  readonly rawBody: Buffer;
  /**
   * The client's address, for routes that declare `clientIp` ('' otherwise: reading it costs):
   * through the compatibility relay, the relay's client (client_address.ts).
   */
  readonly ip: string;
  /** The request's id: the client's X-Request-Id when it sent a valid one, else one made here. */
  readonly requestId: string;
  /**
   * Charges the route's per-account caps to the account the request's credentials name; throws
   * the 429 the edge answers when one refuses. Authentication calls it (auth/l2.ts), so every
   * authenticated request is counted against its account, whichever of its keys signed it.
   */
  readonly chargeAccount: (address: string) => void;
  /**
   * What the front-end thread that took the request worked out for it before handing it over
   * (FRONT_ENDS > 1; the order routes' PreparedOrders, trading/order_request.ts); undefined for a
   * request the main thread took itself.
   */
  readonly prepared: unknown;
  /** How far a front-end thread charged the request's caps before handing it over (CHARGED). */
  readonly charged: number;
}

/** Lets a route serve serialized responses from a cache while the data version is unchanged. */
export interface CachePolicy {
  readonly cache: ResponseCache;
  version(): number;
}

/**
 * A route reads a body or not; one that does declares what it accepts (request_schemas.ts), so a
 * body route without a request schema does not compile.
 */
export type BodySpec =
  | { readonly body?: undefined; readonly request?: undefined }
  | {
    readonly body: BodyKind;
    /** The body's JSON Schema: what the handler's parser accepts (the OpenAPI document's request body). */
    readonly request: JsonSchema;
  };

export type RouteSpec<Q extends ParamSchema, P extends ParamSchema> = BodySpec & {
  readonly method: Method;
  readonly path: string;
  readonly summary: string;
  readonly params?: P;
  readonly query?: Q;
  readonly headers?: readonly string[];
  /** The handler reads `context.ip`. */
  readonly clientIp?: boolean;
  /** Per-client-address caps this route is charged to (names of rate_limit.ts caps), besides its listener's. */
  readonly limits?: readonly string[];
  /**
   * Per-account caps the handler charges once the API key is known, to the key's account, one
   * token per order or id (documented only: the handler charges them, rate_limit.ts accountCharge).
   */
  readonly keyLimits?: readonly string[];
  /** Per-account caps charged, one token a request, when the request authenticates (context.chargeAccount). */
  readonly accountLimits?: readonly string[];
  /**
   * What a request costs beyond being one, in rows it may read, charged once its query is read
   * (before the handler runs) to `limits`: per client address, and once for every client
   * together for caps of scope `all`. A list read charges what its page and offset may read.
   */
  readonly cost?: { readonly limits: readonly string[]; readonly of: (query: ParamsOf<Q>) => number };
  /** `reject`: a query parameter outside the schema is 400 `unknown_field: <name>` (the feeds). Default: ignored. */
  readonly unknownQuery?: 'ignore' | 'reject';
  readonly cached?: CachePolicy;
  /**
   * What the route answers (response_schemas.ts): its success body's schema, and every status it
   * answers besides the generic ones of every route (400, 429, 500, 503; 401 when it reads
   * credentials, 404 when its path has parameters, 408/413 when it reads a body).
   */
  readonly response: Responses;
  readonly handler: (context: Context<ParamsOf<Q>, ParamsOf<P>>) => Reply | Promise<Reply>;
};

/** Shared by every route of a listener. */
export interface Listener {
  readonly name: string;
  readonly style: ErrorStyle;
  /** Counts every answer by route and status, and its latency; undefined when metrics are off. */
  readonly metrics?: Metrics;
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
  /** Request caps: every route of the listener is charged to `caps` per client address. */
  readonly limits?: { readonly limiter: RateLimiter; readonly caps: readonly string[] };
  /** Set on the listener the compatibility relay fronts: its requests' address is the relay's client. */
  readonly relay?: RelayTrust;
  /** With a replicated journal (http/replication/routes.ts): what a replica refuses, and what a primary answers only once replicated. */
  readonly replicated?: ReplicatedRouting;
}

/** How a route answers on a server with a replicated journal. */
export interface ReplicatedRouting {
  /** For a route a replica may refuse: what it answers instead of serving it now (undefined: it serves it). */
  refusal(method: Method, path: string): (() => Reply | undefined) | undefined;
  /** What a primary waits for before it answers the route (undefined: nothing). */
  settle(method: Method, path: string): (() => Promise<void> | undefined) | undefined;
}

export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly summary: string;
  readonly params: ParamSchema;
  readonly query: ParamSchema;
  readonly body: BodyKind | undefined;
  /** The body's schema; defined exactly when `body` is. */
  readonly request: JsonSchema | undefined;
  /** Headers the route reads (credentials among them). */
  readonly headers: readonly string[];
  /** Per-address caps the route is charged to, besides its listener's. */
  readonly limits: readonly string[];
  /** Per-account caps its handler charges per order or id (to the account of the request's API key). */
  readonly keyLimits: readonly string[];
  /** Per-account caps charged a token per authenticated request. */
  readonly accountLimits: readonly string[];
  /** Caps charged the rows a request may read. */
  readonly costLimits: readonly string[];
  readonly unknownQuery: 'ignore' | 'reject';
  readonly response: Responses;
  readonly serve: (listener: Listener) => (res: HttpResponse, req: HttpRequest) => void;
}

/**
 * The ids of the caps named that a request is charged on arrival: per client address, and for all
 * clients together. Names not configured (limits off, or overridden away) are left out; per-account
 * caps are charged once credentials name the account (accountLimits).
 */
export function capIdsOf(limiter: RateLimiter | undefined, names: readonly string[]): { perClient: number[]; shared: number[] } {
  const ids = { perClient: [] as number[], shared: [] as number[] };
  if (limiter === undefined) return ids;
  for (const name of names) {
    const id = limiter.capId(name);
    if (id === undefined) continue;
    const scope = limiter.caps[id]!.scope;
    if (scope === 'ip') ids.perClient.push(id);
    else if (scope === 'all') ids.shared.push(id);
  }
  return ids;
}

const noCharge = (): void => undefined;

/** The response to a request another front-end thread took (http/front_end/hub.ts). */
export interface ThreadResponse {
  /**
   * Keeps a read's answer for the thread to serve the same request again while the answer's
   * validity holds, charging the same caps and counting it under the same route.
   */
  keep(validity: Validity, perClientCaps: readonly number[], sharedCaps: readonly number[], metricsId: number): void;
  /** What the thread worked out for the request before handing it over (Context.prepared). */
  readonly prepared: unknown;
  /** The caps the thread charged before it handed the request over (CHARGED). */
  readonly charged: number;
}

/**
 * How far a front-end thread charged a request's caps before handing it over, in the order the
 * router and the route charge them: none; the per-client caps; those and the shared caps; and
 * the route's own per-key caps as well (an order the thread checked in full: edge.ts).
 */
export const CHARGED = { none: 0, client: 1, shared: 2, all: 3 } as const;

/** What a request gets once the server stops accepting (a front-end thread's too: http/front_end/edge.ts). */
export const SHUTTING_DOWN: Reply = { status: 503, body: '{"error":"server is shutting down"}', headers: [['retry-after', '1']] };
const tooManyBody = '{"error":"Too Many Requests"}';

// Request ids: a client's own X-Request-Id (1–64 of [A-Za-z0-9._-]) is echoed; otherwise this
// process's prefix and a counter.
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const REQUEST_ID_PREFIX = randomBytes(4).toString('hex');
let requestCounter = 0;

export function requestIdOf(req: HttpRequest): string {
  const given = req.getHeader('x-request-id');
  if (given !== '' && REQUEST_ID_PATTERN.test(given)) return given;
  requestCounter = requestCounter === Number.MAX_SAFE_INTEGER ? 1 : requestCounter + 1;
  return `${REQUEST_ID_PREFIX}-${requestCounter.toString(36)}`;
}
/**
 * A refused request is answered after this long, not at once: a client that floods without
 * honouring Retry-After then sends a request per connection per REFUSAL_DELAY_MS instead of as
 * many as the front end can refuse (answering 429s at full speed took the thread from everyone
 * else). A client that waits Retry-After (at least 1 s) never notices. At most REFUSALS_WAITING_MAX
 * wait at once; past that, refusals are answered at once.
 */
export const REFUSAL_DELAY_MS = 200;
const REFUSALS_WAITING_MAX = 10_000;
let refusalsWaiting = 0;

/** 429 answers by Retry-After seconds, made once each. */
const tooMany: Reply[] = [];

export function tooManyRequests(retryAfterS: number): Reply {
  return (tooMany[retryAfterS] ??= { status: 429, body: tooManyBody, headers: [['retry-after', String(retryAfterS)]] });
}
const noParams: ParamSchema = {};
/** The parameters, query or headers of a route that declares none (frozen: shared by every request). */
const noValues = Object.freeze({});
const emptyBody = Buffer.alloc(0);

function pathNames(path: string): string[] {
  return path.split('/').filter((part) => part.startsWith(':')).map((part) => part.slice(1));
}

function decodeSegment(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest(`malformed path parameter: ${name}`);
  }
}

function parseBody(kind: BodyKind, raw: Buffer): unknown {
  if (raw.length === 0) {
    if (kind === 'optional-json') return undefined;
    throw badRequest('request body is required');
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('invalid JSON body');
  }
}

/** A context as captured: a route with a body fills `body` and `rawBody` in once it has read it. */
type Captured<Q, P> = { -readonly [K in keyof Context<Q, P>]: Context<Q, P>[K] };

export function route<Q extends ParamSchema = Record<never, never>, P extends ParamSchema = Record<never, never>>(spec: RouteSpec<Q, P>): Route {
  const paramSchema: ParamSchema = spec.params ?? noParams;
  const querySchema: ParamSchema = spec.query ?? noParams;
  const names = pathNames(spec.path);
  if (names.join(',') !== Object.keys(paramSchema).join(',')) throw new Error(`route ${spec.path}: params schema must list ${names.join(', ')}`);
  if ((spec.body === undefined) !== (spec.request === undefined)) throw new Error(`route ${spec.path}: a body kind and a request schema go together`);
  const queryNames = Object.keys(querySchema);
  const declaredHeaders = spec.headers ?? [];
  const reads = headerReads(declaredHeaders);
  const cached = spec.cached;
  const rejectUnknown = spec.unknownQuery === 'reject';
  const clientIp = spec.clientIp === true;

  // Everything the handler needs is copied out of `req` here: it is invalid after any await.
  // A route without path parameters, headers, or a query to read or refuse gets the one empty
  // object for each instead of a parsed query and schema passes per request (POST /order reads
  // no query and no path).
  const readsQuery = queryNames.length > 0 || rejectUnknown;
  const capture = (req: HttpRequest, rawQuery: string, requestId: string, ip: string): Captured<ParamsOf<Q>, ParamsOf<P>> => {
    const params = names.length === 0 ? noValues : applySchema(paramSchema, names, (name) => [decodeSegment(req.getParameter(names.indexOf(name)), name)]);
    let query: unknown = noValues;
    if (readsQuery) {
      const values = parseQuery(rawQuery);
      if (rejectUnknown) {
        for (const name of values.keys()) if (!Object.hasOwn(querySchema, name)) throw badRequest(`unknown_field: ${name}`);
      }
      query = applySchema(querySchema, queryNames, (name) => values.get(name));
    }
    let headers: Record<string, string> = noValues;
    if (declaredHeaders.length > 0) {
      headers = {};
      let found = false;
      for (const name of reads.plain) {
        const value = req.getHeader(name);
        headers[name] = value;
        if (value !== '') found = true;
      }
      if (!found) for (let at = 0; at < reads.underscored.length; at++) headers[reads.underscored[at]!] = req.getHeader(reads.underscoredInUws[at]!);
    }
    return {
      method: spec.method, path: declaredHeaders.length > 0 ? req.getUrl() : spec.path, query: query as ParamsOf<Q>, params: params as ParamsOf<P>, headers,
      body: undefined, rawBody: emptyBody, ip, requestId, chargeAccount: noCharge, prepared: undefined, charged: CHARGED.none,
    };
  };

  const serve = (listener: Listener) => {
    const fail = (error: unknown, requestId = ''): Reply => errorReply(listener.style, error, listener.log, spec.path, requestId);
    const limiter = listener.limits?.limiter;
    const entry = capIdsOf(limiter, [...(listener.limits?.caps ?? []), ...(spec.limits ?? [])]);
    const capIds = entry.perClient;
    const sharedIds = entry.shared;
    const costIds = capIdsOf(limiter, spec.cost?.limits ?? []);
    const costOf = spec.cost?.of;
    // A request may cost more than a cap holds (an operator's lower cap): it then needs the full
    // bucket, instead of never being admitted.
    const costCeiling = (ids: readonly number[]): number => Math.min(...ids.map((id) => limiter!.caps[id]!.requests));
    const clientCostMax = costIds.perClient.length === 0 ? 0 : costCeiling(costIds.perClient);
    const sharedCostMax = costIds.shared.length === 0 ? 0 : costCeiling(costIds.shared);
    /** Charges the route's per-account caps to an account, a token a request; a refusal is the 429 the edge answers. */
    const charge = accountCharge(limiter, spec.accountLimits ?? []);
    const chargeAccount = (address: string): void => charge({ address }, 1);
    // A front-end thread may answer a read again itself only when nothing but the route's own
    // per-request caps decides its answer: no credentials, no address, no cost per row. A POST's
    // answer (a batch read) is kept for the same body only.
    const keepable = declaredHeaders.length === 0 && !clientIp && costOf === undefined && (spec.body === undefined || spec.method === 'POST') &&
      (spec.accountLimits ?? []).length === 0;
    const metrics = listener.metrics?.route(listener.name, spec.method, spec.path);
    /** Tells the front-end thread that took the request (if one did) it may answer it again itself while `validity` holds. */
    const keepOn = (res: HttpResponse, validity: Validity): void => (res as Partial<ThreadResponse>).keep?.(validity, capIds, sharedIds, metrics?.id ?? -1);
    const trust = listener.relay;
    // The relay's header is read only on the listener the relay fronts, and there only by routes
    // that use an address: one lookup a request at most.
    const readsRelay = trust !== undefined && (capIds.length > 0 || costIds.perClient.length > 0 || clientIp);
    /** Writes an answer at once and counts it. */
    const answer = (res: HttpResponse, reply: Reply, startedMs: number, requestId: string): void => {
      write(res, reply, false, requestId);
      metrics?.record(reply.status, startedMs);
    };
    /** Answers a refusal after REFUSAL_DELAY_MS (at once when too many already wait). */
    const refuse = (res: HttpResponse, reply: Reply, startedMs: number, requestId: string, pending?: Pending): void => {
      if (refusalsWaiting >= REFUSALS_WAITING_MAX) {
        if (pending === undefined) answer(res, reply, startedMs, requestId);
        else pending.reply(reply);
        return;
      }
      refusalsWaiting++;
      const later = pending ?? new Pending(res, listener.lifecycle, metrics, startedMs, requestId);
      later.work();
      setTimeout(() => {
        refusalsWaiting--;
        later.reply(reply);
      }, REFUSAL_DELAY_MS);
    };

    const refusal = listener.replicated?.refusal(spec.method, spec.path);
    const settle = listener.replicated?.settle(spec.method, spec.path);
    const finish = (
      res: HttpResponse, pending: Pending | undefined, context: Context<ParamsOf<Q>, ParamsOf<P>>, cacheKey: string, version: number, startedMs: number,
    ): void => {
      let result: Reply | Promise<Reply>;
      const requestId = context.requestId;
      try {
        result = spec.handler(context);
      } catch (error) {
        result = fail(error, requestId);
      }
      // A change a synchronous primary made is answered once the replicated journal holds it.
      if (settle !== undefined) {
        result = Promise.resolve(result).then(async (reply) => {
          await settle();
          return reply;
        });
      }
      if (result instanceof Promise) {
        const later = pending ?? new Pending(res, listener.lifecycle, metrics, startedMs, requestId);
        later.work();
        result.catch((error: unknown) => fail(error, requestId))
          .then((reply) => (reply.status === 429 ? refuse(res, reply, startedMs, requestId, later) : later.reply(reply)));
        return;
      }
      if (cached !== undefined && result.status === 200) cached.cache.set(cacheKey, version, Buffer.from(result.body), keepable ? result.validity : undefined);
      if (result.validity !== undefined && keepable) keepOn(res, result.validity);
      // A cap the handler charges (an account's, an order's) refuses like the edge's.
      if (result.status === 429) refuse(res, result, startedMs, requestId, pending);
      else if (pending === undefined) answer(res, result, startedMs, requestId);
      else pending.reply(result);
    };

    return (res: HttpResponse, req: HttpRequest): void => {
      const startedMs = metrics === undefined ? 0 : performance.now();
      const requestId = requestIdOf(req);
      if (listener.lifecycle.draining) return answer(res, SHUTTING_DOWN, startedMs, requestId);
      const refused = refusal?.();
      if (refused !== undefined) return answer(res, refused, startedMs, requestId);
      const relayed = readsRelay ? req.getHeader(RELAYED_FOR_HEADER) : '';
      let address: Int32Array | undefined;
      // What a front-end thread charged before it handed the request over is not charged again.
      const charged = (res as Partial<ThreadResponse>).charged ?? CHARGED.none;
      if (limiter !== undefined && capIds.length > 0 && charged < CHARGED.client) {
        // Charged before anything else is read or done: a refused request costs a lookup.
        address = clientKey(res, relayed, trust);
        const retryAfterS = limiter.charge(capIds, address);
        if (retryAfterS > 0) return refuse(res, tooManyRequests(retryAfterS), startedMs, requestId);
      }
      if (limiter !== undefined && sharedIds.length > 0 && charged < CHARGED.shared) {
        const retryAfterS = limiter.charge(sharedIds, ALL_CLIENTS);
        if (retryAfterS > 0) return refuse(res, tooManyRequests(retryAfterS), startedMs, requestId);
      }
      const rawQuery = req.getQuery() ?? '';
      let cacheKey = '';
      let version = 0;
      if (cached !== undefined) {
        // The listener too: two listeners may serve the same path (the CLOB's /markets and Gamma's) from one cache.
        cacheKey = listener.name + ' ' + req.getUrl() + '?' + rawQuery;
        version = cached.version();
        const hit = cached.cache.get(cacheKey, version);
        if (hit !== undefined) {
          // As the answer it was built as: a front-end thread may keep it too.
          if (hit.validity !== undefined) keepOn(res, hit.validity);
          return answer(res, { status: 200, body: hit.body }, startedMs, requestId);
        }
      }
      let captured: Captured<ParamsOf<Q>, ParamsOf<P>>;
      try {
        captured = capture(req, rawQuery, requestId, clientIp ? clientText(res, relayed, trust) : '');
      } catch (error) {
        return answer(res, fail(error, requestId), startedMs, requestId);
      }
      captured.chargeAccount = chargeAccount;
      captured.prepared = (res as Partial<ThreadResponse>).prepared;
      captured.charged = charged;
      if (costOf !== undefined && limiter !== undefined) {
        // What the request may read, once its query says: the client's share, then everyone's.
        const cost = costOf(captured.query);
        if (cost > 0 && costIds.perClient.length > 0) {
          const retryAfterS = limiter.charge(costIds.perClient, address ?? clientKey(res, relayed, trust), Math.min(cost, clientCostMax));
          if (retryAfterS > 0) return refuse(res, tooManyRequests(retryAfterS), startedMs, requestId);
        }
        if (cost > 0 && costIds.shared.length > 0) {
          const retryAfterS = limiter.charge(costIds.shared, ALL_CLIENTS, Math.min(cost, sharedCostMax));
          if (retryAfterS > 0) return refuse(res, tooManyRequests(retryAfterS), startedMs, requestId);
        }
      }
      const bodyKind = spec.body;
      if (bodyKind === undefined) return finish(res, undefined, captured, cacheKey, version, startedMs);
      const pending = new Pending(res, listener.lifecycle, metrics, startedMs, requestId);
      readBody(res, pending, req.getHeader('content-length'), bodyBytesMax, (rawBody) => {
        let body: unknown;
        try {
          body = parseBody(bodyKind, rawBody);
        } catch (error) {
          return pending.reply(fail(error, requestId));
        }
        captured.body = body;
        captured.rawBody = rawBody;
        finish(res, pending, captured, cacheKey, version, startedMs);
      });
    };
  };

  return {
    method: spec.method, path: spec.path, summary: spec.summary, params: paramSchema, query: querySchema, body: spec.body, request: spec.request,
    headers: declaredHeaders, limits: spec.limits ?? [], keyLimits: spec.keyLimits ?? [], accountLimits: spec.accountLimits ?? [],
    costLimits: spec.cost?.limits ?? [], unknownQuery: spec.unknownQuery ?? 'ignore', response: spec.response, serve,
  };
}

const notFound: Reply = { status: 404, body: '{"error":"not found"}' };

const register: Record<Method, (app: TemplatedApp, path: string, handler: (res: HttpResponse, req: HttpRequest) => void) => void> = {
  GET: (app, path, handler) => app.get(path, handler),
  POST: (app, path, handler) => app.post(path, handler),
  PUT: (app, path, handler) => app.put(path, handler),
  DELETE: (app, path, handler) => app.del(path, handler),
};

/** Registers a listener's routes, the 405 answer for known paths, and the 404 fallback. */
export function mount(app: TemplatedApp, routes: readonly Route[], listener: Listener): void {
  const methodsByPath = new Map<string, Method[]>();
  for (const entry of routes) {
    const methods = methodsByPath.get(entry.path) ?? [];
    if (methods.includes(entry.method)) throw new Error(`duplicate route ${entry.method} ${entry.path}`);
    methods.push(entry.method);
    methodsByPath.set(entry.path, methods);
    register[entry.method](app, entry.path, entry.serve(listener));
  }
  // Answers no route takes are counted too (method "*"): a wrong method under its path, anything
  // else as "(unmatched)", so a scan of unknown paths shows in the metrics.
  const counted = (metrics: RouteMetrics | undefined, reply: Reply) => (res: HttpResponse, req: HttpRequest): void => {
    const startedMs = metrics === undefined ? 0 : performance.now();
    write(res, reply, false, requestIdOf(req));
    metrics?.record(reply.status, startedMs);
  };
  for (const [path, methods] of methodsByPath) {
    const wrongMethod: Reply = { status: 405, body: '{"error":"method not allowed"}', headers: [['allow', methods.join(', ')]] };
    app.any(path, counted(listener.metrics?.route(listener.name, '*', path), wrongMethod));
  }
  app.any('/*', counted(listener.metrics?.route(listener.name, '*', '(unmatched)'), notFound));
}

/**
 * How a route reads its declared headers. Each read is a call into the addon (the 24 spellings of
 * the credential headers took ~6-7 µs a request, their 12 with a hyphen ~2-5 µs), so the names
 * spelled with '_' (POLY_ADDRESS, as Polymarket's official clients send them) are read only when
 * none of the others is present: a client that sends the hyphen spellings pays nothing for them,
 * and one that sends underscores pays the second set of reads.
 */
function headerReads(declared: readonly string[]): { plain: string[]; underscored: string[]; underscoredInUws: string[] } {
  const plain = declared.filter((name) => !name.includes('_'));
  const underscored = declared.filter((name) => name.includes('_'));
  return { plain, underscored, underscoredInUws: underscored.map(uwsHeaderName) };
}
