// Starts bench/support/server.js as a child process on free ports with a temporary DATA_DIR.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadIds } from '../../engine/shard/thread_times.js';
import { SERVER_NODE_FLAGS } from '../../http/node_flags.js';

/** The raw uWS hello-world route the bench server adds to every listener. */
export const helloPath = '/__bench/hello';
/** The bench server's order-flow counts (JSON), when it runs one. */
export const flowPath = '/__bench/flow';
/** Makes the bench server publish raw messages to a WebSocket topic (see server.ts). */
export const publishPath = '/__bench/publish';

export interface BenchServer {
  readonly urls: { readonly clob: string; readonly catalog: string; readonly data: string };
  /** The compatibility listener's URL, when the server was started with COMPAT_PORT. */
  readonly compatUrl: string | undefined;
  readonly pid: number;
  /** CPU seconds (user + system, all threads) the server process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const clockTicksPerSecond = 100;

/** utime + stime in seconds from a /proc stat file (a process's or one thread's). */
function statCpuSeconds(path: string): number {
  const stat = readFileSync(path, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
}

/**
 * Reads utime + stime of a process from /proc. Load generators on this 2-core machine share it
 * with the server, so a client can saturate first; dividing requests by the server's own CPU
 * time gives its capacity whoever the bottleneck is.
 */
export function processCpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of each thread of a process, by thread id (the main thread's id is the pid). Node
 * does not name its threads, so which one is a worker is told by the caller's own knowledge.
 */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of threadIds(pid)) {
    try {
      threads.set(tid, statCpuSeconds(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // The thread ended between the listing and the read: it has nothing left to count.
    }
  }
  return threads;
}

/**
 * The bench server every suite starts: this tree's, or another tree's built one named by
 * CLOBD_BENCH_SERVER (its dist/bench/support/server.js), so that a suite's own harness measures
 * an older server in the same way (an A/B of any suite: bench/README.md).
 */
const serverPath = process.env['CLOBD_BENCH_SERVER'] ?? fileURLToPath(new URL('./server.js', import.meta.url));
/** The start of every bench server's temporary DATA_DIR's name. */
export const BENCH_DATA_DIR_PREFIX = 'clobd-bench-';

/**
 * `nodeArgs` go to node before the script (e.g. --cpu-prof, which NODE_OPTIONS refuses). `script`:
 * another tree's bench server (an A/B baseline, bench/ab/baseline_tree.ts), built from the same
 * harness.
 */
export function spawnBenchServer(env: Readonly<Record<string, string>> = {}, nodeArgs: readonly string[] = [], script = serverPath): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), BENCH_DATA_DIR_PREFIX));
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, script], {
    // Load tests run without request caps unless the benchmark sets RATE_LIMITS itself, and
    // without the demo flow: what a benchmark measures is its own load, on books only it moves.
    env: { ...process.env, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMITS: 'off', DEMO_FLOW: 'off', ...env },
    // stdin stays open for the server's life: it stops when this process ends (bench/support/server.ts).
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // Held open, but not holding this process up: a benchmark that is done exits as before.
  (child.stdin as Socket | null)?.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code} before it was ready`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening clob=(\S+) catalog=(\S+) data=(\S+)( compat=(\S+))?\n/.exec(stdout);
      if (match === null) return;
      resolve({
        urls: { clob: match[1] ?? '', catalog: match[2] ?? '', data: match[3] ?? '' },
        compatUrl: match[5],
        pid: child.pid ?? 0,
        cpuSeconds: () => processCpuSeconds(child.pid ?? 0),
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
          rmSync(dataDir, { recursive: true, force: true });
        },
      });
    });
  });
}
