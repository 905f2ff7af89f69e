// The demo, from seeding to its flow. On the first start of an empty data directory (SEED_DEMO,
// on by default) the demo catalog is loaded, dated from that day, and DATA_DIR/demo.json is made
// with new random keys for the demo market maker and the flow's accounts (demo_state.ts). Every
// start then funds a demo account that never was (once), rests the maker's quotes when it is
// funded, and runs the demo flow (demo_flow.ts) unless DEMO_FLOW=off or DEMO_FLOW_RATE=0.
//
// A data directory seeded by a version whose demo market maker had the public key (no demo.json,
// an API key for that maker's address) is rotated at its first start here: the old maker's open
// orders are cancelled and its free collateral withdrawn, so its key, which anyone can derive,
// controls nothing but the shares it already held; with SEED_DEMO on, a new demo.json with random
// keys takes over the demo's markets (those of the catalog's first events, which the old demo
// made with fixed creation dates), a new maker is funded and quotes them, and the flow trades them.
import { readEvent } from '../catalog/ingest.js';
import { DEMO_EVENT_COUNT, demoAnchorOf, demoEvents, LEGACY_DEMO_CREATED_MS } from '../catalog/demo.js';
import type { CatalogStore } from '../catalog/store.js';
import type { ApiKeyStore } from '../auth/keys.js';
import type { ApiKeyRecord } from '../auth/l2.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { DemoFlow } from './demo_flow.js';
import { seedDemoQuotes, type DemoSigner } from './demo_quotes.js';
import { legacyDemoMaker, newDemoState, readDemoState, writeDemoState, type DemoAccount, type DemoState } from './demo_state.js';
import type { TradingRuntime } from './runtime.js';

/** The market maker's funding: 1,000,000.00 of collateral. */
const MAKER_DEPOSIT_MICROS = 1_000_000 * 1_000_000;
/** Each flow account's funding: 100,000.00, far more than its bounded orders and positions need. */
const TRADER_DEPOSIT_MICROS = 100_000 * 1_000_000;
const DAY_MS = 86_400_000;

/**
 * Before any other store opens: the demo's state as DATA_DIR holds it; on an empty catalog, the
 * demo catalog loaded (dated from `nowMs`'s day) and a new state with random keys written.
 * Undefined when the directory has no demo (a catalog of its own, or a legacy demo: openDemo).
 */
export function seedDemo(store: CatalogStore, dataDir: string, nowMs: number, log: Logger): DemoState | undefined {
  const existing = readDemoState(dataDir, log);
  if (existing !== undefined || !store.isEmpty()) return existing;
  const anchorMs = demoAnchorOf(nowMs);
  const markets: string[] = [];
  const bodies = demoEvents(anchorMs);
  for (const body of bodies) {
    const event = store.createEvent(readEvent(body, '', 'create', nowMs));
    for (const id of event.marketIds) {
      const market = store.market(id);
      if (market?.enableOrderBook === true) markets.push(market.conditionId);
    }
  }
  const state = newDemoState(anchorMs, markets);
  writeDemoState(dataDir, state);
  log.info('demo_catalog_loaded', { events: bodies.length, markets: markets.length, anchor: new Date(anchorMs).toISOString() });
  return state;
}

/**
 * The markets of a catalog the legacy demo seeded: those of its first events, in id order, as
 * long as each carries the creation date the legacy demo gave the event at its place.
 */
function legacyDemoMarkets(store: CatalogStore): string[] {
  const events = store.allEvents().sort((a, b) => a.id - b.id).slice(0, DEMO_EVENT_COUNT);
  const markets: string[] = [];
  for (const [index, event] of events.entries()) {
    if (event.createdAtMs !== LEGACY_DEMO_CREATED_MS + index * DAY_MS) break;
    for (const id of event.marketIds) {
      const market = store.market(id);
      if (market?.enableOrderBook === true) markets.push(market.conditionId);
    }
  }
  return markets;
}

export interface DemoDeps {
  readonly config: Config;
  readonly store: CatalogStore;
  readonly keys: ApiKeyStore;
  readonly trading: TradingRuntime;
  readonly now: () => number;
  readonly log: Logger;
}

/** The demo of a started server: its accounts, and its flow to start once the server listens. */
export interface Demo {
  readonly state: DemoState;
  /** Starts the flow (undefined when DEMO_FLOW is off or its rate 0); stop it before the trading runtime. */
  startFlow(): Promise<DemoFlow | undefined>;
}

/** The account's API key (nonce 0), made when it has none. */
async function keyOf(keys: ApiKeyStore, account: DemoAccount, nowMs: number): Promise<ApiKeyRecord> {
  const credentials = (await keys.create(account.address, '0', nowMs)) ?? keys.derive(account.address, '0');
  const key = credentials === undefined ? undefined : keys.lookup(credentials.apiKey);
  if (key === undefined) throw new Error(`demo account ${account.address} has no API key`);
  return key;
}

/** Funds each account that never had a deposit; returns those it funded. */
function fund(deps: DemoDeps, accounts: readonly (readonly [DemoAccount, number])[]): DemoAccount[] {
  const unfunded = accounts.filter(([account]) => deps.trading.treasury.depositsOf(account.address, 1).length === 0);
  if (unfunded.length === 0) return [];
  if (!deps.trading.client.depositMany(unfunded.map(([account, micros]) => [account.address, micros]))) throw new Error('the demo accounts\' funding passes the collateral cap');
  return unfunded.map(([account]) => account);
}

/**
 * The legacy maker (public key) loses what it could still be used for: its open orders are
 * cancelled and its free collateral withdrawn (a warning says so when there was any). Returns
 * whether the directory has that maker at all (it has an API key).
 */
async function retireLegacyMaker(deps: DemoDeps): Promise<boolean> {
  const legacy = legacyDemoMaker();
  if (deps.keys.list(legacy.address).length === 0) return false;
  const cancelled = (await deps.trading.client.cancelAll(legacy.address)).events.filter((event) => event.kind === 'ORDER_CANCELLED').length;
  const free = deps.trading.treasury.freeOf(legacy.address);
  if (free > 0 && !deps.trading.client.withdraw(legacy.address, free)) throw new Error('the legacy demo market maker\'s collateral could not be withdrawn');
  if (cancelled > 0 || free > 0) {
    deps.log.warn('demo_legacy_maker_retired', {
      address: legacy.address, ordersCancelled: cancelled, collateralWithdrawnMicros: free,
      detail: 'this data directory was seeded by a clobd whose demo market maker had a public key (anyone can derive it): its open orders are cancelled and its free collateral withdrawn (shares it holds stay its own); the demo now uses random keys kept in DATA_DIR/demo.json',
    });
  }
  return true;
}

/**
 * After the data directory's record is written: retires a legacy maker, then, with SEED_DEMO on
 * and a demo in the directory, counts this start in demo.json, gives each demo account its API
 * key, funds the maker when it never was and rests its quotes. Undefined without a demo.
 */
export async function openDemo(deps: DemoDeps, seeded: DemoState | undefined): Promise<Demo | undefined> {
  const { config, store, keys, trading, now, log } = deps;
  const legacy = await retireLegacyMaker(deps);
  if (!config.seedDemo) return undefined;
  let state = seeded;
  const legacyMarkets = state === undefined && legacy ? legacyDemoMarkets(store) : [];
  if (legacyMarkets.length > 0) {
    state = newDemoState(undefined, legacyMarkets);
    log.warn('demo_rekeyed', { markets: legacyMarkets.length, maker: state.maker.address, detail: 'the legacy demo\'s markets are now the demo of DATA_DIR/demo.json, with random keys' });
  }
  if (state === undefined) return undefined;
  state = { ...state, starts: state.starts + 1 };
  writeDemoState(config.dataDir, state);
  const signer: DemoSigner = { config, token: trading.token, now };
  const makerKey = await keyOf(keys, state.maker, now());
  if (fund(deps, [[state.maker, MAKER_DEPOSIT_MICROS]]).length > 0) {
    const markets = state.markets.map((conditionId) => store.marketOfCondition(conditionId)).filter((market) => market !== undefined);
    await seedDemoQuotes(state.maker, makerKey, markets, trading.client, signer, log);
  }
  const demo = state;
  return {
    state: demo,
    async startFlow() {
      if (config.demoFlowRate <= 0) return undefined;
      const accounts = [];
      for (const trader of demo.traders) accounts.push({ account: trader, key: await keyOf(keys, trader, now()) });
      fund(deps, demo.traders.map((trader) => [trader, TRADER_DEPOSIT_MICROS] as const));
      const flow = new DemoFlow({
        accounts, demoAddresses: [demo.maker.address, ...demo.traders.map((trader) => trader.address)], markets: demo.markets,
        store, trading, signer, ratePerSecond: config.demoFlowRate, seed: config.demoFlowSeed, start: demo.starts, log,
      });
      await flow.start();
      return flow;
    },
  };
}
