// A benchmark run in a child process for its --json report (bench/support/child.ts): the report
// is its last {"suite": ...} line whatever else it printed, a failed run is an error, and an
// aborted run ends with everything it started and what they wrote to their TMPDIR, so nothing of
// it takes CPU or disk from the next run.
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

test('a script\'s report comes back, and its TMPDIR is gone; a script that fails is an error', async () => {
  const good = script('good.mjs', `
    import { tmpdir } from 'node:os';
    console.log('a log line');
    console.log(JSON.stringify({ suite: 't', args: process.argv.slice(2), tmp: tmpdir() }));
  `);
  const report = (await runScriptForReport({ script: good, args: ['--json'], nodeFlags: ['--v8-pool-size=1'] })) as { args: string[]; tmp: string };
  assert.deepEqual(report.args, ['--json']);
  assert.notEqual(report.tmp, tmpdir(), 'a TMPDIR of its own');
  assert.equal(existsSync(report.tmp), false, 'removed after the run');
  const bad = script('bad.mjs', 'console.log(JSON.stringify({ suite: "t" })); process.exit(3);');
  await assert.rejects(runScriptForReport({ script: bad, args: [], nodeFlags: [] }), /exited with 3/);
});

test('an aborted run ends, and so does what it started, and what they wrote is gone', async () => {
  const pidFile = join(dir, 'grandchild.json');
  const waiting = script('waiting.mjs', `
    import { spawn } from 'node:child_process';
    import { mkdtempSync, writeFileSync } from 'node:fs';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    const dataDir = mkdtempSync(join(tmpdir(), 'data-'));
    writeFileSync(join(dataDir, 'file'), 'written');
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    writeFileSync(${JSON.stringify(pidFile)}, JSON.stringify({ pid: grandchild.pid, dataDir }));
    setInterval(() => {}, 1000);
  `);
  const stop = new AbortController();
  const run = runScriptForReport({ script: waiting, args: [], nodeFlags: [], signal: stop.signal });
  const deadline = Date.now() + 10_000;
  while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const { pid, dataDir } = JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number; dataDir: string };
  assert.equal(existsSync(dataDir), true);
  stop.abort('test');
  await assert.rejects(run, /stopped: test/);
  assert.equal(await endsWithin(pid, 5_000), true, 'the grandchild ended with its process group');
  assert.equal(existsSync(dataDir), false, 'its TMPDIR is gone');
});
