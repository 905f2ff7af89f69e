// A benchmark that dies without stopping its server must not leave the server running: an
// orphaned server keeps taking CPU from every later measurement on the machine. The bench server
// stops when the pipe to its parent closes, and removes the temporary DATA_DIR it was given.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { endsWithin } from '../support/process_end.js';

const spawnModule = new URL('../../bench/support/spawn.js', import.meta.url).href;
const GONE_WITHIN_MS = 20_000;

test('a bench server whose benchmark dies (uncaught exception) stops and removes its DATA_DIR', async () => {
  // The benchmark: starts a server, prints its pid and data dir, then throws.
  const script = `
    import { spawnBenchServer } from ${JSON.stringify(spawnModule)};
    const server = await spawnBenchServer({ SEED_DEMO: '0', SHARDS: '1' });
    const dataDir = (await import('node:fs')).readFileSync('/proc/' + server.pid + '/environ', 'latin1').split('\\0').find((v) => v.startsWith('DATA_DIR='));
    console.log(JSON.stringify({ pid: server.pid, dataDir: dataDir.slice('DATA_DIR='.length) }));
    throw new Error('the benchmark failed');
  `;
  // No pipe the server could inherit and hold open: only the benchmark's stdout is read.
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.notEqual(code, 0, 'the benchmark itself failed');
  const { pid, dataDir } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { pid: number; dataDir: string };
  assert.ok(pid > 0 && dataDir.length > 0);
  const stopped = await endsWithin(pid, GONE_WITHIN_MS);
  if (!stopped) rmSync(dataDir, { recursive: true, force: true });
  assert.equal(stopped, true, 'the orphaned bench server stopped');
  assert.equal(existsSync(dataDir), false, 'its DATA_DIR is gone');
});
