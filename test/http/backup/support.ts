// What the backup tests share: an order flow from two signed traders against a real server,
// each order with the times it was sent and acknowledged, and `main.js` commands run as child
// processes whose output can be waited on line by line.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mainPath, request, type Finished } from '../../support/server.js';
import { ADMIN_TOKEN, type PlainMarket, type Trader } from '../orders/trader.js';

export const SHARDS = '2';
/** Settings of every server these tests start: admin on, two shards, no demo (so no demo flow moves the books). */
export const SERVER_ENV = { ADMIN_TOKEN, SHARDS, SEED_DEMO: '0' } as const;
/** Enough collateral for the flows below many times over. */
export const DEPOSIT_MICROS = 100_000_000_000;
/** A command that hangs is a failure. */
export const COMMAND_TIMEOUT_MS = 90_000;
/**
 * Slack between the server's clock at the cut and the test's at a send or acknowledgement (both
 * the system clock, read in different processes).
 */
const CLOCK_SLACK_MS = 50;

export interface Placed {
  readonly trader: Trader;
  readonly orderId: string;
  /** Date.now() before the request went, and once its 200 was in. */
  readonly sentAt: number;
  readonly ackedAt: number;
}

export interface OrderFlow {
  readonly placed: readonly Placed[];
  /** Resolves once `count` more orders were acknowledged. */
  more(count: number): Promise<void>;
  /** Stops after the order in flight; rejects with the flow's failure, if it failed. */
  stop(): Promise<void>;
}

/**
 * Orders one after another until stopped: `maker` bids for YES on each market in turn and
 * `taker` buys NO against the bid (a MINT fill), so books, positions and fills all change.
 */
export function startFlow(maker: Trader, taker: Trader, markets: readonly PlainMarket[]): OrderFlow {
  const placed: Placed[] = [];
  let stopping = false;
  const waiters: { count: number; resolve: () => void }[] = [];
  const record = (trader: Trader, orderId: string, sentAt: number, status: number, text: string): void => {
    if (status !== 200) throw new Error(`order refused: ${status} ${text}`);
    placed.push({ trader, orderId, sentAt, ackedAt: Date.now() });
    for (const waiter of waiters.splice(0)) {
      if (placed.length >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  };
  const run = (async () => {
    for (let index = 0; !stopping; index++) {
      const market = markets[index % markets.length]!;
      const priceUnits = 3000 + 100 * (index % 20);
      let sentAt = Date.now();
      const bid = await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits, sizeMicros: 10_000_000 });
      record(maker, bid.orderId, sentAt, bid.status, bid.text);
      sentAt = Date.now();
      const hit = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 10_000 - priceUnits, sizeMicros: 5_000_000, orderType: 'FOK' });
      record(taker, hit.orderId, sentAt, hit.status, hit.text);
    }
  })();
  let failure: unknown;
  run.catch((error: unknown) => {
    failure = error;
    for (const waiter of waiters.splice(0)) waiter.resolve();
  });
  return {
    placed,
    more: async (count) => {
      const target = placed.length + count;
      await new Promise<void>((resolve) => waiters.push({ count: target, resolve }));
      if (failure !== undefined) throw failure;
    },
    stop: async () => {
      stopping = true;
      await run;
    },
  };
}

/** The record of a backup, as the test reads it. */
export interface BackupRecord {
  readonly shards: number;
  readonly backup?: {
    readonly state: string;
    readonly cutAt: string;
    readonly pauseMs: number;
    readonly shards: readonly { batch: number; seq: number; stateHash: string }[];
  };
}

export function readBackupRecord(dir: string): BackupRecord {
  return JSON.parse(readFileSync(join(dir, 'clobd.json'), 'utf8')) as BackupRecord;
}

/**
 * Checks the directory a server at `clobUrl` started on against the backup's cut: every order
 * acknowledged before the cut is there, none sent after it is, and each shard's state hash is
 * the one the backup recorded. Returns how many orders fell on each side.
 */
export async function assertTheCut(clobUrl: string, placed: readonly Placed[], record: BackupRecord): Promise<{ before: number; after: number }> {
  const backup = record.backup;
  assert.ok(backup !== undefined && backup.state === 'complete', 'a complete backup');
  const status = await request<{ shards: { stateHash: string }[] }>(`${clobUrl}/admin/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.body.shards.map((shard) => shard.stateHash), backup.shards.map((shard) => shard.stateHash), 'the state hashes recorded at the backup');
  const cutMs = Date.parse(backup.cutAt);
  let before = 0;
  let after = 0;
  for (const { trader, orderId, sentAt, ackedAt } of placed) {
    const inBackup = ackedAt < cutMs - CLOCK_SLACK_MS;
    const notInBackup = sentAt > cutMs + CLOCK_SLACK_MS;
    if (!inBackup && !notInBackup) continue;
    trader.clobUrl = clobUrl;
    const read = await trader.send('GET', `/data/order/${orderId}`);
    if (inBackup) {
      before++;
      assert.equal(read.status, 200, `order ${orderId} acknowledged ${cutMs - ackedAt} ms before the cut: ${read.text}`);
    } else {
      after++;
      assert.equal(read.status, 404, `order ${orderId} sent ${sentAt - cutMs} ms after the cut: ${read.text}`);
    }
  }
  return { before, after };
}

export interface RunningCommand {
  readonly child: ChildProcess;
  /** Resolves once a line of stdout matches. */
  waitFor(pattern: RegExp): Promise<void>;
  readonly finished: Promise<Finished>;
}

/** Runs `node dist/http/main.js <args>` on DATA_DIR `dataDir`, its output readable as it comes. */
export function command(dataDir: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): RunningCommand {
  const child = spawn(process.execPath, [mainPath, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, SHARDS, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const watcher of watchers.splice(0)) {
      if (watcher.pattern.test(stdout)) watcher.resolve();
      else watchers.push(watcher);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
  const finished = new Promise<Finished>((resolve) => child.once('close', (code, signal) => {
    clearTimeout(timer);
    resolve({ code, signal, stdout, stderr });
  }));
  return {
    child,
    finished,
    waitFor: (pattern) => new Promise<void>((resolve, reject) => {
      if (pattern.test(stdout)) return resolve();
      watchers.push({ pattern, resolve });
      void finished.then((end) => reject(new Error(`the command ended (${end.code}) before printing ${pattern}: ${end.stdout}${end.stderr}`)));
    }),
  };
}

/** Runs a command to its end. */
export function run(dataDir: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<Finished> {
  return command(dataDir, args, env).finished;
}
