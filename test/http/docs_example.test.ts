// The bot guide's runnable example (docs/examples/place_order.mjs) keeps working: run unchanged
// against the real server, it gets credentials, a deposit and an accepted order.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeDataDir, startServer } from '../support/server.js';

const example = fileURLToPath(new URL('../../../docs/examples/place_order.mjs', import.meta.url));

test('docs/examples/place_order.mjs places an order on a fresh exchange', async () => {
  const server = await startServer({ env: { ADMIN_TOKEN: 'example-token' } });
  try {
    const run = spawnSync(process.execPath, [example, server.urls.clob, 'example-token'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    const last = run.stdout.trim().split('\n').at(-1)!;
    assert.match(last, /^200 /);
    const answer = JSON.parse(last.slice(4)) as { success: boolean; status: string; orderID: string };
    assert.deepEqual([answer.success, answer.status], [true, 'live']);
    assert.match(answer.orderID, /^0x[0-9a-f]{64}$/);
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});
