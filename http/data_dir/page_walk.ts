// The page walk of a data directory, run in a child process (walker.ts) because LMDB keeps no
// checksums: a damaged page can make the native code read outside the map, and the signal that
// follows (SIGSEGV, SIGBUS) would end the server with no word of why. In the child it ends the
// child; the walk's last report names the store and table it was reading, and the start stops
// with that as its message. main.ts runs it before the server opens any store, and the verify
// command runs it too; a start of the server in a test's own process (startServer) does not.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { problem, refuseIfAny, type Problem } from './damage.js';
import type { PageWalk } from './store_walk.js';
import { truncationHint } from './stores.js';

/** What the walker reports, one JSON line each: before reading a table, and each store's outcome. */
export type WalkLine =
  | { readonly store: string; readonly reading: string }
  | { readonly store: string; readonly walked: PageWalk }
  | { readonly store: string; readonly decoded: number }
  | { readonly store: string; readonly problem: string };

export interface WalkReport {
  readonly stores: number;
  readonly tables: number;
  readonly entries: number;
  readonly bytes: number;
  /** Records of the shards decoded (fills, finished orders, balance changes). */
  readonly records: number;
  readonly ms: number;
}

const walkerPath = fileURLToPath(new URL('./walker.js', import.meta.url));
/** The most of the walker's stderr a problem quotes (an uncaught error's message and stack). */
const STDERR_KEPT_BYTES = 4_096;

/** The problems the walk's lines and its end tell of. */
function walkProblems(dataDir: string, lines: readonly WalkLine[], code: number | null, signal: string | null, stderr: string): Problem[] {
  const found = lines.flatMap((line) => ('problem' in line ? [problem(line.store, line.problem)] : []));
  const last = lines.at(-1);
  if (signal !== null) {
    const store = last?.store ?? 'the first store';
    const reading = last !== undefined && 'reading' in last ? last.reading : 'its root';
    found.push(problem(store, `has damaged pages: reading ${reading} crashed the page walk (${signal})${truncationHint(dataDir, store)}`));
  } else if (code !== 0) {
    found.push(problem(last?.store ?? 'the data directory', `stopped the page walk (exit code ${code}): ${stderr.trim().split('\n')[0] ?? ''}`));
  }
  return found;
}

/**
 * Walks every page of the stores `names` of `dataDir` in a child process and decodes the
 * shards' records; resolves with what it read, or throws DataDirDamaged naming each store whose
 * pages or records are damaged.
 */
export async function walkStores(dataDir: string, names: readonly string[]): Promise<WalkReport> {
  if (names.length === 0) return { stores: 0, tables: 0, entries: 0, bytes: 0, records: 0, ms: 0 };
  const started = performance.now();
  const child = spawn(process.execPath, [walkerPath, dataDir, ...names], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: WalkLine[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part) as WalkLine);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < STDERR_KEPT_BYTES) stderr += chunk.slice(0, STDERR_KEPT_BYTES - stderr.length);
  });
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  refuseIfAny(dataDir, walkProblems(dataDir, lines, code, signal, stderr));
  let report = { stores: names.length, tables: 0, entries: 0, bytes: 0, records: 0, ms: 0 };
  for (const line of lines) {
    if ('walked' in line) report = { ...report, tables: report.tables + line.walked.tables, entries: report.entries + line.walked.entries, bytes: report.bytes + line.walked.bytes };
    if ('decoded' in line) report = { ...report, records: report.records + line.decoded };
  }
  return { ...report, ms: performance.now() - started };
}
