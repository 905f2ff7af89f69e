// Configuration: every setting of contract §1, read once from the environment and the command
// line (a flag wins over the environment), validated with errors that name the setting, and
// frozen. Nothing else in the project reads process.env or process.argv for settings.
import { accessSync, constants, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ORDER_HISTORY_DEFAULT, ORDER_HISTORY_LIMIT } from '../engine/constants.js';
import { KEY_CACHE_ENTRIES_DEFAULT, KEY_CACHE_ENTRIES_LIMIT } from './auth/key_cache.js';
import { capsFrom, type Cap } from './rate_limit.js';
import { bodyTimeoutMsDefault } from './respond.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Config {
  readonly host: string;
  readonly clobPort: number;
  readonly catalogPort: number;
  readonly dataPort: number;
  readonly dataDir: string;
  /** Admin API is disabled when unset. */
  readonly adminToken: string | undefined;
  readonly shards: number;
  readonly heartbeatTimeoutMs: number;
  readonly authWindowS: number;
  /** The order signing domain's chain id: 80002 (Polygon Amoy, a testnet) unless CHAIN_ID says otherwise. */
  readonly chainId: number;
  readonly orderDomainName: string;
  /** The signing domain's verifying contracts: by default the V2 exchanges Polymarket's clients carry. */
  readonly exchangeAddress: string;
  readonly negRiskExchangeAddress: string;
  /**
   * The account taker fees accrue to: EXCHANGE_ADDRESS when it is set, else the zero address. It
   * is not the default exchange address, so a data directory made before that default existed
   * keeps its fee account (the engines replay their journals with it).
   */
  readonly feeAccount: string;
  /** Empty means the feeds are open to every client. */
  readonly feedIpAllowlist: readonly string[];
  /** The request caps in force (RATE_LIMITS: a JSON file of overrides, or `off` for none). */
  readonly rateLimits: readonly Cap[];
  readonly logLevel: LogLevel;
  readonly seedDemo: boolean;
  /** Orders a second the demo flow places on the demo's markets (DEMO_FLOW_RATE); 0 (or DEMO_FLOW=off): no flow. */
  readonly demoFlowRate: number;
  /** The seed of the demo flow's random choices (DEMO_FLOW_SEED). */
  readonly demoFlowSeed: number;
  /** clobd's own: piscina threads that check order signatures (with several front ends, divided among them, rounded up: auth/verifier.ts verifyThreadsEach); 0 checks them on the front ends. */
  readonly verifyThreads: number;
  /** clobd's own: the compatibility listener for underscore header names (see compat_proxy.ts); undefined = off. */
  readonly compatPort: number | undefined;
  /** clobd's own: open WebSocket connections one client address may hold. */
  readonly wsSocketsPerIp: number;
  /** clobd's own: a request body not in full within this many ms of its headers is answered 408. */
  readonly bodyTimeoutMs: number;
  /** GET /metrics and the per-request counters behind it (METRICS=off turns both off). */
  readonly metrics: boolean;
  /** clobd's own: finished orders each matching worker keeps in memory (the orders table keeps all). */
  readonly orderHistory: number;
  /** clobd's own: finished orders the front end's account read model keeps by id (the newest); 0 keeps none. */
  readonly accountOrderHistory: number;
  /** clobd's own: decoded API keys kept in memory for the L2 check, the least recently used evicted first. */
  readonly keyCacheEntries: number;
  /** clobd's own: the `backup` command's cap on the copy's pace (MB/s); 0: none. */
  readonly backupMbPerS: number;
  /** uWS front-end threads serving every listener (the main thread is the first; http/front_end/). */
  readonly frontEnds: number;
  /** clobd's own: the replicated journal on NATS JetStream (http/replication/); undefined: none. */
  readonly replication: ReplicationConfig | undefined;
  /** clobd's own: the CLOB URL clients reach this server at (a replica names it while this one is the primary); undefined: http://HOST:PORT. */
  readonly advertiseUrl: string | undefined;
}

/** REPLICATION's modes: an order is answered once its batch is in JetStream (sync) or once it is on the local disk (async). */
export type ReplicationMode = 'sync' | 'async';

export interface ReplicationConfig {
  /** NATS server URLs (NATS, comma-separated). */
  readonly servers: readonly string[];
  readonly mode: ReplicationMode;
  /** The stream's replicas (NATS_REPLICAS); undefined: 3 when the server is in a cluster, 1 when it is alone. */
  readonly replicas: number | undefined;
  /** The stream's name and its subjects' first token (NATS_STREAM). */
  readonly stream: string;
  /** How often the primary puts a snapshot on NATS for new replicas to start from (SNAPSHOT_INTERVAL_S; 0: never by itself). */
  readonly snapshotIntervalS: number;
  readonly auth: NatsAuth;
}

/**
 * How clobd proves itself to NATS, and checks NATS: at most one of a user and password
 * (NATS_USER, NATS_PASSWORD), a token (NATS_TOKEN) or a credentials file (NATS_CREDS: a user's
 * JWT and nkey seed, NATS's decentralized accounts); and TLS (NATS_TLS_CA: the CA that signed
 * the servers' certificates; NATS_TLS_CERT and NATS_TLS_KEY: a client certificate, for servers
 * that verify one). Unset fields: none of it.
 */
export interface NatsAuth {
  readonly user?: string;
  readonly password?: string;
  readonly token?: string;
  readonly credsFile?: string;
  readonly tlsCaFile?: string;
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
}

/** Most replicas JetStream keeps of a stream. */
export const NATS_REPLICAS_MAX = 5;
/** SNAPSHOT_INTERVAL_S: an hour by default (a new replica reads at most about an hour of the stream), a week at most. */
const SNAPSHOT_INTERVAL_S_DEFAULT = 3_600;
const SNAPSHOT_INTERVAL_S_MAX = 7 * 24 * 3_600;

export class ConfigError extends Error {}

const zeroAddress = '0x0000000000000000000000000000000000000000';
/**
 * The signing domain's defaults: chain 80002 (Polygon Amoy) and the CLOB V2 exchange contracts
 * Polymarket's official clients carry for it. An unchanged client configured with chain 80002
 * signs orders clobd accepts, and those signatures are worthless on Polymarket's real exchange
 * (chain 137), so a bot pointing real keys at clobd never hands anyone an order valid on mainnet.
 */
export const SIGNING_DEFAULTS = {
  chainId: 80002,
  exchangeAddress: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeAddress: '0xe2222d279d744050d28e00520010520000310F59',
} as const;
/** Polygon mainnet, where Polymarket's exchange settles: signatures for it are worth money. */
export const MAINNET_CHAIN_ID = 137;
/**
 * Finished orders the account read model keeps by id: ~24 MB (about 360 bytes each), and at the
 * order path's peak (~8 000 orders a second here) the last ~8 s of finished orders, when a bot
 * most often asks how its order ended. Older ones are read from the workers' stored orders.
 */
const accountOrderHistoryDefault = 1 << 16;
/** The demo flow's pace: a few orders a second, enough to move the books without loading anyone. */
export const DEMO_FLOW_RATE_DEFAULT = 3;
const DEMO_FLOW_RATE_MAX = 1000;
const shardsMax = 64;
/** The most front-end threads (FRONT_ENDS): each holds 8 MiB of rings to the main thread. */
export const FRONT_ENDS_MAX = 32;
/**
 * FRONT_ENDS's default: one front end per four cores, at least one (with more than one, that many
 * threads take the connections and the main thread keeps the state: front_end/hub.ts). A front end is worth a core
 * only where the matching workers and the signature pool have theirs: on the 2-core development
 * machine a second front end can only take time from them (bench/README.md, front ends).
 */
export function frontEndsDefault(cores = availableParallelism()): number {
  return Math.max(1, Math.min(FRONT_ENDS_MAX, Math.floor(cores / 4)));
}

interface Setting {
  readonly env: string;
  readonly flag: string;
}

function setting(env: string): Setting {
  return { env, flag: '--' + env.toLowerCase().replaceAll('_', '-') };
}

const settings = {
  port: setting('PORT'),
  catalogPort: setting('CATALOG_PORT'),
  dataPort: setting('DATA_PORT'),
  host: setting('HOST'),
  dataDir: setting('DATA_DIR'),
  adminToken: setting('ADMIN_TOKEN'),
  shards: setting('SHARDS'),
  heartbeatTimeoutMs: setting('HEARTBEAT_TIMEOUT_MS'),
  authWindowS: setting('AUTH_WINDOW_S'),
  chainId: setting('CHAIN_ID'),
  orderDomainName: setting('ORDER_DOMAIN_NAME'),
  exchangeAddress: setting('EXCHANGE_ADDRESS'),
  negRiskExchangeAddress: setting('NEG_RISK_EXCHANGE_ADDRESS'),
  feedIpAllowlist: setting('FEED_IP_ALLOWLIST'),
  rateLimits: setting('RATE_LIMITS'),
  logLevel: setting('LOG_LEVEL'),
  seedDemo: setting('SEED_DEMO'),
  demoFlow: setting('DEMO_FLOW'),
  demoFlowRate: setting('DEMO_FLOW_RATE'),
  demoFlowSeed: setting('DEMO_FLOW_SEED'),
  verifyThreads: setting('VERIFY_THREADS'),
  compatPort: setting('COMPAT_PORT'),
  wsSocketsPerIp: setting('WS_SOCKETS_PER_IP'),
  bodyTimeoutMs: setting('BODY_TIMEOUT_MS'),
  metrics: setting('METRICS'),
  orderHistory: setting('ORDER_HISTORY'),
  accountOrderHistory: setting('ACCOUNT_ORDER_HISTORY'),
  keyCacheEntries: setting('KEY_CACHE_ENTRIES'),
  backupMbPerS: setting('BACKUP_MB_PER_S'),
  frontEnds: setting('FRONT_ENDS'),
  nats: setting('NATS'),
  replication: setting('REPLICATION'),
  natsReplicas: setting('NATS_REPLICAS'),
  natsStream: setting('NATS_STREAM'),
  advertiseUrl: setting('ADVERTISE_URL'),
  snapshotIntervalS: setting('SNAPSHOT_INTERVAL_S'),
  natsUser: setting('NATS_USER'),
  natsPassword: setting('NATS_PASSWORD'),
  natsToken: setting('NATS_TOKEN'),
  natsCreds: setting('NATS_CREDS'),
  natsTlsCa: setting('NATS_TLS_CA'),
  natsTlsCert: setting('NATS_TLS_CERT'),
  natsTlsKey: setting('NATS_TLS_KEY'),
} as const;

/** The settings of NatsAuth, by its fields. */
const NATS_AUTH_SETTINGS = {
  user: settings.natsUser, password: settings.natsPassword, token: settings.natsToken, credsFile: settings.natsCreds,
  tlsCaFile: settings.natsTlsCa, tlsCertFile: settings.natsTlsCert, tlsKeyFile: settings.natsTlsKey,
} as const satisfies Record<keyof NatsAuth, Setting>;
/** The settings of NatsAuth that name files. */
const NATS_AUTH_FILES = ['credsFile', 'tlsCaFile', 'tlsCertFile', 'tlsKeyFile'] as const;

const knownFlags = new Set(Object.values(settings).map((s) => s.flag));

/** Splits `--name value` and `--name=value` flags out of argv; other words are positional. */
export function parseArgv(argv: readonly string[]): { flags: Map<string, string>; positional: string[] } {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!word.startsWith('--')) {
      positional.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const name = equals === -1 ? word : word.slice(0, equals);
    if (!knownFlags.has(name)) throw new ConfigError(`unknown option ${name}`);
    let value: string | undefined;
    if (equals !== -1) {
      value = word.slice(equals + 1);
    } else {
      value = argv[index + 1];
      index++;
    }
    if (value === undefined) throw new ConfigError(`option ${name} needs a value`);
    flags.set(name, value);
  }
  return { flags, positional };
}

type Source = (s: Setting) => string | undefined;

function integer(read: Source, s: Setting, fallback: number, min: number, max: number): number {
  const raw = read(s);
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${s.env} must be an integer from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${s.env} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function address(read: Source, s: Setting, fallback: string): string {
  const raw = read(s);
  if (raw === undefined || raw === '') return fallback;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new ConfigError(`${s.env} must be a 0x-prefixed 20-byte hex address`);
  return raw;
}

function logLevel(read: Source): LogLevel {
  const raw = read(settings.logLevel) ?? 'info';
  const levels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
  const found = levels.find((level) => level === raw);
  if (found === undefined) throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}, got "${raw}"`);
  return found;
}

function seedDemo(read: Source): boolean {
  const raw = read(settings.seedDemo) ?? '1';
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new ConfigError(`SEED_DEMO must be 1 or 0, got "${raw}"`);
}

/** Orders a second of the demo flow: DEMO_FLOW=off or a rate of 0 turns it off. */
function demoFlowRate(read: Source): number {
  if (!onOff(read, settings.demoFlow)) return 0;
  const raw = read(settings.demoFlowRate) ?? '';
  if (raw === '') return DEMO_FLOW_RATE_DEFAULT;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value > DEMO_FLOW_RATE_MAX) {
    throw new ConfigError(`DEMO_FLOW_RATE must be a number of orders a second from 0 to ${DEMO_FLOW_RATE_MAX}, got "${raw}"`);
  }
  return value;
}

function advertiseUrl(read: Source): string | undefined {
  const raw = read(settings.advertiseUrl) ?? '';
  if (raw === '') return undefined;
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(raw)) throw new ConfigError(`ADVERTISE_URL must be an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/$/, '');
}

/** NATS and its companions; without NATS, any of the others is a mistake worth saying. */
function replication(read: Source): ReplicationConfig | undefined {
  const servers = (read(settings.nats) ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (servers.length === 0) {
    for (const companion of [settings.replication, settings.natsReplicas, settings.natsStream, settings.snapshotIntervalS, ...Object.values(NATS_AUTH_SETTINGS)]) {
      if ((read(companion) ?? '') !== '') throw new ConfigError(`${companion.env} needs NATS (the NATS servers' URLs)`);
    }
    return undefined;
  }
  for (const server of servers) {
    if (!/^(nats|tls):\/\/[^\s/]+$|^[^\s/:]+:\d+$/.test(server)) throw new ConfigError(`NATS must list nats://host:port URLs, comma-separated, got "${server}"`);
  }
  const mode = read(settings.replication) || 'sync';
  if (mode !== 'sync' && mode !== 'async') throw new ConfigError(`REPLICATION must be sync or async, got "${mode}"`);
  const replicas = (read(settings.natsReplicas) ?? '') === '' ? undefined : integer(read, settings.natsReplicas, 1, 1, NATS_REPLICAS_MAX);
  const stream = read(settings.natsStream) || 'clobd';
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(stream)) throw new ConfigError(`NATS_STREAM must be 1 to 32 letters, digits, _ or -, got "${stream}"`);
  const snapshotIntervalS = integer(read, settings.snapshotIntervalS, SNAPSHOT_INTERVAL_S_DEFAULT, 0, SNAPSHOT_INTERVAL_S_MAX);
  return { servers, mode, replicas, stream, snapshotIntervalS, auth: natsAuth(read) };
}

/**
 * The environment that gives another clobd process (the snapshot command the primary runs)
 * these NATS settings, whether they came from the environment or from flags.
 */
export function replicationEnv(replication: ReplicationConfig): Record<string, string> {
  const env: Record<string, string> = { [settings.nats.env]: replication.servers.join(','), [settings.natsStream.env]: replication.stream };
  for (const [field, source] of Object.entries(NATS_AUTH_SETTINGS)) {
    const value = replication.auth[field as keyof NatsAuth];
    if (value !== undefined) env[source.env] = value;
  }
  return env;
}

function natsAuth(read: Source): NatsAuth {
  const auth: Record<string, string> = {};
  for (const [field, source] of Object.entries(NATS_AUTH_SETTINGS)) {
    const value = read(source) ?? '';
    if (value !== '') auth[field] = value;
  }
  const { user, password, token, credsFile, tlsCertFile, tlsKeyFile } = auth as NatsAuth;
  if ((user === undefined) !== (password === undefined)) throw new ConfigError('NATS_USER and NATS_PASSWORD go together');
  const ways = [user, token, credsFile].filter((way) => way !== undefined).length;
  if (ways > 1) throw new ConfigError('NATS_USER and NATS_PASSWORD, NATS_TOKEN and NATS_CREDS are three ways to authenticate to NATS: set one of them');
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) throw new ConfigError('NATS_TLS_CERT and NATS_TLS_KEY go together (a client certificate and its key)');
  for (const field of NATS_AUTH_FILES) {
    const path = auth[field];
    if (path === undefined) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch {
      throw new ConfigError(`${NATS_AUTH_SETTINGS[field].env} names ${path}, which this process cannot read`);
    }
  }
  return auth;
}

function onOff(read: Source, source: Setting): boolean {
  const raw = read(source) ?? 'on';
  if (raw === 'on' || raw === '1' || raw === 'true') return true;
  if (raw === 'off' || raw === '0' || raw === 'false') return false;
  throw new ConfigError(`${source.env} must be on or off, got "${raw}"`);
}

function allowlist(read: Source): string[] {
  const raw = read(settings.feedIpAllowlist) ?? '';
  return raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

function caps(setting: string | undefined): Cap[] {
  try {
    return capsFrom(setting, (path) => readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

/** Builds the frozen configuration from an environment and parsed command-line flags. */
export function loadConfig(env: NodeJS.ProcessEnv, flags: ReadonlyMap<string, string>): Config {
  const read: Source = (s) => flags.get(s.flag) ?? env[s.env];
  const host = read(settings.host) ?? '127.0.0.1';
  if (host === '') throw new ConfigError('HOST must not be empty');
  const adminToken = read(settings.adminToken);
  const rateLimits = read(settings.rateLimits);
  const config: Config = {
    host,
    clobPort: integer(read, settings.port, 8080, 0, 65535),
    catalogPort: integer(read, settings.catalogPort, 8081, 0, 65535),
    dataPort: integer(read, settings.dataPort, 8082, 0, 65535),
    dataDir: resolve(read(settings.dataDir) ?? './data'),
    adminToken: adminToken === '' ? undefined : adminToken,
    shards: integer(read, settings.shards, Math.min(availableParallelism(), shardsMax), 1, shardsMax),
    heartbeatTimeoutMs: integer(read, settings.heartbeatTimeoutMs, 10_000, 100, 86_400_000),
    authWindowS: integer(read, settings.authWindowS, 30, 1, 86_400),
    chainId: integer(read, settings.chainId, SIGNING_DEFAULTS.chainId, 1, Number.MAX_SAFE_INTEGER),
    orderDomainName: read(settings.orderDomainName) ?? 'Polymarket CTF Exchange',
    exchangeAddress: address(read, settings.exchangeAddress, SIGNING_DEFAULTS.exchangeAddress),
    negRiskExchangeAddress: address(read, settings.negRiskExchangeAddress, SIGNING_DEFAULTS.negRiskExchangeAddress),
    feeAccount: address(read, settings.exchangeAddress, zeroAddress),
    feedIpAllowlist: Object.freeze(allowlist(read)),
    rateLimits: Object.freeze(caps(rateLimits === '' ? undefined : rateLimits)),
    logLevel: logLevel(read),
    seedDemo: seedDemo(read),
    demoFlowRate: demoFlowRate(read),
    demoFlowSeed: integer(read, settings.demoFlowSeed, 1, 0, 0xffff_ffff),
    verifyThreads: integer(read, settings.verifyThreads, availableParallelism(), 0, 64),
    compatPort: (read(settings.compatPort) ?? '') === '' ? undefined : integer(read, settings.compatPort, 0, 0, 65535),
    wsSocketsPerIp: integer(read, settings.wsSocketsPerIp, 64, 1, 1_000_000),
    bodyTimeoutMs: integer(read, settings.bodyTimeoutMs, bodyTimeoutMsDefault, 100, 600_000),
    metrics: onOff(read, settings.metrics),
    orderHistory: integer(read, settings.orderHistory, ORDER_HISTORY_DEFAULT, 1, ORDER_HISTORY_LIMIT),
    accountOrderHistory: integer(read, settings.accountOrderHistory, accountOrderHistoryDefault, 0, ORDER_HISTORY_LIMIT),
    keyCacheEntries: integer(read, settings.keyCacheEntries, KEY_CACHE_ENTRIES_DEFAULT, 1, KEY_CACHE_ENTRIES_LIMIT),
    backupMbPerS: integer(read, settings.backupMbPerS, 0, 0, 1_000_000),
    frontEnds: integer(read, settings.frontEnds, frontEndsDefault(), 1, FRONT_ENDS_MAX),
    replication: replication(read),
    advertiseUrl: advertiseUrl(read),
  };
  return Object.freeze(config);
}
