// The server's Node options: `npm start` runs with exactly SERVER_NODE_FLAGS (the benchmarks give
// the servers they start the same list), and this Node accepts them. The script execs node, so
// the signals npm forwards reach the server (test/http/signals.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SERVER_NODE_FLAGS } from '../../http/node_flags.js';

test('npm start passes the server\'s Node options, and this Node accepts them', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(manifest.scripts['start'], `exec node ${SERVER_NODE_FLAGS.join(' ')} dist/http/main.js`);
  const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.stdout.write(process.execArgv.join(" "))'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.split(' -e ')[0], SERVER_NODE_FLAGS.join(' '), 'the options reach the process');
});
