// Configuration: contract §1 defaults, flags over environment, validation naming the setting.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, FRONT_ENDS_MAX, frontEndsDefault, loadConfig, parseArgv } from '../../http/config.js';
import { DEFAULT_CAPS } from '../../http/rate_limit.js';

const none = new Map<string, string>();

test('defaults are the contract §1 values', () => {
  const config = loadConfig({}, none);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.clobPort, 8080);
  assert.equal(config.catalogPort, 8081);
  assert.equal(config.dataPort, 8082);
  assert.equal(config.dataDir, resolve('./data'));
  assert.equal(config.adminToken, undefined);
  assert.equal(config.shards, Math.min(availableParallelism(), 64));
  assert.equal(config.heartbeatTimeoutMs, 10_000);
  assert.equal(config.authWindowS, 30);
  // Safe by default: Polygon Amoy and the V2 exchanges Polymarket's clients carry for it, so a
  // signature clobd accepts is worth nothing on Polymarket's real exchange (chain 137).
  assert.equal(config.chainId, 80002);
  assert.equal(config.orderDomainName, 'Polymarket CTF Exchange');
  assert.equal(config.exchangeAddress, '0xE111180000d2663C0091e4f400237545B87B996B');
  assert.equal(config.negRiskExchangeAddress, '0xe2222d279d744050d28e00520010520000310F59');
  assert.equal(config.feeAccount, '0x0000000000000000000000000000000000000000', 'fees accrue where they did before the signing defaults');
  assert.deepEqual(config.feedIpAllowlist, []);
  assert.deepEqual(config.rateLimits, DEFAULT_CAPS, 'the interface\'s caps by default');
  assert.equal(config.logLevel, 'info');
  assert.equal(config.seedDemo, true);
  assert.equal(config.demoFlowRate, 3, 'the demo flow: a few orders a second');
  assert.equal(config.demoFlowSeed, 1);
  assert.equal(config.keyCacheEntries, 16_384);
});

test('the configuration is frozen', () => {
  const config = loadConfig({}, none);
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.feedIpAllowlist));
});

test('every setting is read from the environment', () => {
  const config = loadConfig(
    {
      PORT: '0',
      CATALOG_PORT: '9001',
      DATA_PORT: '9002',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      ADMIN_TOKEN: 'tok',
      SHARDS: '3',
      HEARTBEAT_TIMEOUT_MS: '2500',
      AUTH_WINDOW_S: '5',
      CHAIN_ID: '80002',
      ORDER_DOMAIN_NAME: 'Test Exchange',
      EXCHANGE_ADDRESS: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
      NEG_RISK_EXCHANGE_ADDRESS: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
      FEED_IP_ALLOWLIST: ' 127.0.0.1, ::1 ,',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'debug',
      SEED_DEMO: '0',
      DEMO_FLOW_RATE: '0.5',
      DEMO_FLOW_SEED: '42',
      VERIFY_THREADS: '0',
      COMPAT_PORT: '9003',
      ORDER_HISTORY: '1000',
      ACCOUNT_ORDER_HISTORY: '0',
      KEY_CACHE_ENTRIES: '500',
      BACKUP_MB_PER_S: '50',
      FRONT_ENDS: '3',
      NATS: 'nats://n1:4222, nats://n2:4222',
      REPLICATION: 'async',
      NATS_REPLICAS: '3',
      NATS_STREAM: 'exchange-1',
      SNAPSHOT_INTERVAL_S: '600',
      NATS_USER: 'clobd',
      NATS_PASSWORD: 'pw',
      NATS_TLS_CA: '/dev/null',
      ADVERTISE_URL: 'https://clob.example/',
    },
    none,
  );
  assert.deepEqual(
    { ...config },
    {
      host: '0.0.0.0',
      clobPort: 0,
      catalogPort: 9001,
      dataPort: 9002,
      dataDir: '/tmp/x',
      adminToken: 'tok',
      shards: 3,
      heartbeatTimeoutMs: 2500,
      authWindowS: 5,
      chainId: 80002,
      orderDomainName: 'Test Exchange',
      exchangeAddress: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
      negRiskExchangeAddress: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
      feeAccount: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
      feedIpAllowlist: ['127.0.0.1', '::1'],
      rateLimits: [],
      logLevel: 'debug',
      seedDemo: false,
      demoFlowRate: 0.5,
      demoFlowSeed: 42,
      verifyThreads: 0,
      compatPort: 9003,
      wsSocketsPerIp: 64,
      bodyTimeoutMs: 5000,
      metrics: true,
      orderHistory: 1000,
      accountOrderHistory: 0,
      keyCacheEntries: 500,
      backupMbPerS: 50,
      frontEnds: 3,
      replication: { servers: ['nats://n1:4222', 'nats://n2:4222'], mode: 'async', replicas: 3, stream: 'exchange-1', snapshotIntervalS: 600,
        auth: { user: 'clobd', password: 'pw', tlsCaFile: '/dev/null' },
      },
      advertiseUrl: 'https://clob.example',
    },
  );
});

test('replication: off without NATS (a companion setting alone is refused), sync by default, and checked values', () => {
  assert.equal(loadConfig({}, none).replication, undefined);
  assert.deepEqual(loadConfig({ NATS: 'nats://127.0.0.1:4222' }, none).replication, { servers: ['nats://127.0.0.1:4222'], mode: 'sync', replicas: undefined, stream: 'clobd', snapshotIntervalS: 3600, auth: {} });
  assert.throws(() => loadConfig({ NATS_TOKEN: 't' }, none), /NATS_TOKEN needs NATS/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', NATS_USER: 'u' }, none), /NATS_USER and NATS_PASSWORD go together/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', NATS_TOKEN: 't', NATS_CREDS: '/dev/null' }, none), /set one of them/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', NATS_TLS_CERT: '/dev/null' }, none), /NATS_TLS_CERT and NATS_TLS_KEY go together/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', NATS_CREDS: '/nonexistent/user.creds' }, none), /NATS_CREDS names \/nonexistent\/user.creds, which this process cannot read/);
  assert.throws(() => loadConfig({ SNAPSHOT_INTERVAL_S: '60' }, none), /SNAPSHOT_INTERVAL_S needs NATS/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', SNAPSHOT_INTERVAL_S: '1h' }, none), /SNAPSHOT_INTERVAL_S must be an integer/);
  assert.throws(() => loadConfig({ REPLICATION: 'sync' }, none), /REPLICATION needs NATS/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', REPLICATION: 'eventually' }, none), /REPLICATION must be sync or async/);
  assert.throws(() => loadConfig({ NATS: 'http://h:4222' }, none), /NATS must list nats:\/\/host:port URLs/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', NATS_REPLICAS: '7' }, none), /NATS_REPLICAS/);
  assert.throws(() => loadConfig({ NATS: 'nats://h:4222', NATS_STREAM: 'a.b' }, none), /NATS_STREAM/);
  assert.throws(() => loadConfig({ ADVERTISE_URL: 'clob.example' }, none), /ADVERTISE_URL/);
});

test('FRONT_ENDS defaults to one front end per four cores, at least one', () => {
  assert.equal(frontEndsDefault(1), 1);
  assert.equal(frontEndsDefault(2), 1);
  assert.equal(frontEndsDefault(8), 2);
  assert.equal(frontEndsDefault(16), 4);
  assert.equal(frontEndsDefault(1024), FRONT_ENDS_MAX);
  assert.throws(() => loadConfig({ FRONT_ENDS: '0' }, none), /FRONT_ENDS/);
});

test('DEMO_FLOW=off, like a DEMO_FLOW_RATE of 0, turns the demo flow off', () => {
  assert.equal(loadConfig({ DEMO_FLOW: 'off', DEMO_FLOW_RATE: '5' }, none).demoFlowRate, 0);
  assert.equal(loadConfig({ DEMO_FLOW_RATE: '0' }, none).demoFlowRate, 0);
  assert.equal(loadConfig({ DEMO_FLOW: 'on', DEMO_FLOW_RATE: '5' }, none).demoFlowRate, 5);
});

test('a command-line flag wins over the environment, in both spellings', () => {
  const { flags, positional } = parseArgv(['import', '--port', '9100', '--data-dir=/tmp/y', 'file.json']);
  assert.deepEqual(positional, ['import', 'file.json']);
  const config = loadConfig({ PORT: '1', DATA_DIR: '/tmp/z' }, flags);
  assert.equal(config.clobPort, 9100);
  assert.equal(config.dataDir, '/tmp/y');
});

test('invalid values are refused with the setting named', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: '65536' }, /^PORT must be an integer from 0 to 65535/],
    [{ CATALOG_PORT: '-1' }, /^CATALOG_PORT must be an integer/],
    [{ SHARDS: '0' }, /^SHARDS must be an integer from 1 to 64/],
    [{ HEARTBEAT_TIMEOUT_MS: '1.5' }, /^HEARTBEAT_TIMEOUT_MS must be an integer/],
    [{ ACCOUNT_ORDER_HISTORY: '-1' }, /^ACCOUNT_ORDER_HISTORY must be an integer from 0 to 16777216/],
    [{ EXCHANGE_ADDRESS: '0x123' }, /^EXCHANGE_ADDRESS must be a 0x-prefixed 20-byte hex address/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of debug, info, warn, error, silent/],
    [{ SEED_DEMO: 'yes' }, /^SEED_DEMO must be 1 or 0/],
    [{ DEMO_FLOW: 'maybe' }, /^DEMO_FLOW must be on or off/],
    [{ DEMO_FLOW_RATE: '-1' }, /^DEMO_FLOW_RATE must be a number of orders a second from 0 to 1000/],
    [{ DEMO_FLOW_RATE: '1e3' }, /^DEMO_FLOW_RATE must be a number/],
    [{ DEMO_FLOW_SEED: '4294967296' }, /^DEMO_FLOW_SEED must be an integer from 0 to 4294967295/],
    [{ HOST: '' }, /^HOST must not be empty/],
    [{ KEY_CACHE_ENTRIES: '0' }, /^KEY_CACHE_ENTRIES must be an integer from 1 to 16777216/],
    [{ RATE_LIMITS: '/nonexistent/caps.json' }, /^RATE_LIMITS: cannot read \/nonexistent\/caps.json/],
  ];
  for (const [env, message] of cases) assert.throws(() => loadConfig(env, none), (error: unknown) => error instanceof ConfigError && message.test(error.message));
});

test('unknown flags and flags without a value are refused', () => {
  assert.throws(() => parseArgv(['--prot', '1']), /unknown option --prot/);
  assert.throws(() => parseArgv(['--port']), /option --port needs a value/);
});
