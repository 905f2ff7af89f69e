// A benchmark run in a child process for its --json report (bench/support/child.ts): the report
// is its last {"suite": ...} line whatever else it printed, a failed run is an error, and an
// aborted run ends with everything it started, so nothing of it takes CPU from the next run.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { reportOf, runScriptForReport } from '../../bench/support/child.js';
import { endsWithin } from '../support/process_end.js';

const dir = mkdtempSync(join(tmpdir(), 'clobd-test-child-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('the report is the last {"suite": ...} line of stdout', () => {
  assert.deepEqual(reportOf('starting\n{"suite":"a","n":1}\n{"level":"warn"}\n{"suite":"a","n":2}\n'), { suite: 'a', n: 2 });
  assert.throws(() => reportOf('no report here\n'), /no \{"suite": \.\.\.\} report/);
});

test('a script\'s report comes back; a script that fails is an error', async () => {
  const good = script('good.mjs', 'console.log("a log line"); console.log(JSON.stringify({ suite: "t", args: process.argv.slice(2) }));');
  assert.deepEqual(await runScriptForReport({ script: good, args: ['--json'], nodeFlags: ['--v8-pool-size=1'] }), { suite: 't', args: ['--json'] });
  const bad = script('bad.mjs', 'console.log(JSON.stringify({ suite: "t" })); process.exit(3);');
  await assert.rejects(runScriptForReport({ script: bad, args: [], nodeFlags: [] }), /exited with 3/);
});

test('an aborted run ends, and so does what it started', async () => {
  const pidFile = join(dir, 'grandchild.pid');
  const waiting = script('waiting.mjs', `
    import { spawn } from 'node:child_process';
    import { writeFileSync } from 'node:fs';
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    writeFileSync(${JSON.stringify(pidFile)}, String(grandchild.pid));
    setInterval(() => {}, 1000);
  `);
  const stop = new AbortController();
  const run = runScriptForReport({ script: waiting, args: [], nodeFlags: [], signal: stop.signal });
  const deadline = Date.now() + 10_000;
  while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const grandchild = Number(readFileSync(pidFile, 'utf8'));
  stop.abort('test');
  await assert.rejects(run, /stopped: test/);
  assert.equal(await endsWithin(grandchild, 5_000), true, 'the grandchild ended with its process group');
});
