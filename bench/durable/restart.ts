// Restart time with many resting orders: a child process fills a DATA_DIR (SHARDS=1) and either
// stops cleanly (a snapshot is written at stop) or is killed with SIGKILL after its last answer
// (the newest snapshot plus a journal tail). This process then starts the server on that
// DATA_DIR and times it: startServer end to end, and the shard's own recovery figures (snapshot
// load and restore, journal replay). The recovered state hash must equal the child's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { RecoveryFigures } from '../../engine/shard/protocol.js';
import type { FillReport } from './fill_child.js';
import { startRuntime } from './runtime.js';

export interface RestartFigures {
  readonly mode: 'stop' | 'kill';
  readonly fill: FillReport;
  readonly startSeconds: number;
  readonly recovery: RecoveryFigures;
  readonly ordersLive: number;
  readonly hashEqual: boolean;
}

const childPath = fileURLToPath(new URL('./fill_child.js', import.meta.url));

/** Runs the fill child; in 'kill' mode kills it with SIGKILL once it reported. */
function fill(dataDir: string, orders: number, accounts: number, mode: 'stop' | 'kill'): Promise<FillReport> {
  const child = spawn(process.execPath, [childPath, dataDir, String(orders), String(accounts), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((text) => text.startsWith('{'));
      if (line === undefined || !stdout.includes('\n')) return;
      const report = JSON.parse(line) as FillReport;
      if (mode === 'kill') child.kill('SIGKILL');
      void exited.then(() => resolve(report));
    });
    void exited.then((code) => {
      if (!stdout.includes('{')) reject(new Error(`fill child exited with ${String(code)} before reporting`));
    });
  });
}

export async function measureRestart(orders: number, accounts: number, mode: 'stop' | 'kill'): Promise<RestartFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), `clobd-bench-restart-${mode}-`));
  try {
    const report = await fill(dataDir, orders, accounts, mode);
    const started = performance.now();
    const runtime = await startRuntime(1, dataDir);
    const startSeconds = (performance.now() - started) / 1000;
    const pool = runtime.server.trading.pool;
    const [status] = await runtime.server.trading.client.statuses();
    const recovery = pool.recovery(0)!;
    await runtime.server.stop();
    return {
      mode, fill: report, startSeconds, recovery, ordersLive: status!.stats['ordersLive'] ?? 0,
      hashEqual: status!.stateHash === report.stateHash,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
