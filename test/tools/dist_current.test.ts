// `npm run load` rebuilds dist/ only when the sources changed since the last build
// (tools/dist_current.mjs), so it does not delete dist/ under a server started from the same
// checkout. Checked on a checkout of its own, whose build only records that it ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { withTemporaryDir } from '../support/temporary_dir.js';

const script = fileURLToPath(new URL('../../../tools/dist_current.mjs', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A checkout whose `npm run build` writes dist/, counts its runs in builds.log and stamps dist/ as the real build does. */
function checkout(root: string): void {
  for (const dir of ['engine', 'http', 'bench', 'test', 'tools']) mkdirSync(join(root, dir));
  writeFileSync(join(root, 'engine', 'book.ts'), 'export const x = 1;\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(join(root, 'build.mjs'), [
    "import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';",
    "rmSync('dist', { recursive: true, force: true });",
    "mkdirSync('dist/engine', { recursive: true });",
    "writeFileSync('dist/engine/book.js', 'export const x = 1;');",
    "appendFileSync('builds.log', 'built\\n');",
  ].join('\n'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({
    name: 'checkout', private: true, scripts: { build: `node build.mjs && node ${JSON.stringify(script)} --stamp --root .` },
  }));
}

function load(root: string): { builds: number; stderr: string } {
  const run = spawnSync(process.execPath, [script, '--root', root], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const log = join(root, 'builds.log');
  return { builds: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0, stderr: run.stderr };
}

/** Sets a path's times to now: after the last build. */
function touch(path: string): void {
  const now = new Date();
  utimesSync(path, now, now);
}

test('dist/ is built when it has no stamp, then not again until a source is newer than the stamp', () => withTemporaryDir((root) => {
  checkout(root);
  const first = load(root);
  assert.equal(first.builds, 1, first.stderr);
  assert.match(first.stderr, /no build stamp/);
  assert.ok(existsSync(join(root, 'dist', '.build-stamp')));
  const again = load(root);
  assert.equal(again.builds, 1, 'nothing changed: no build');
  assert.match(again.stderr, /current/);
  // Files the build does not read change nothing.
  writeFileSync(join(root, 'README.md'), 'notes\n');
  touch(join(root, 'README.md'));
  assert.equal(load(root).builds, 1);
  // A source saved after the build.
  touch(join(root, 'engine', 'book.ts'));
  const edited = load(root);
  assert.equal(edited.builds, 2, edited.stderr);
  assert.match(edited.stderr, /engine\/book\.ts changed/);
  assert.equal(load(root).builds, 2);
  // A source added (its directory's time changes too), and the compiler's settings.
  writeFileSync(join(root, 'test', 'new.test.ts'), '');
  touch(join(root, 'test', 'new.test.ts'));
  assert.equal(load(root).builds, 3);
  touch(join(root, 'tsconfig.json'));
  assert.equal(load(root).builds, 4);
}));

test("npm run load checks dist/ instead of rebuilding it, and the project's build writes the stamp", () => {
  const { scripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(scripts['preload'], 'node tools/dist_current.mjs');
  assert.match(scripts['build']!, /^node tools\/patch_uws\.mjs && rm -rf dist && tsc -p tsconfig\.json && .* && node tools\/dist_current\.mjs --stamp$/);
  // This very test runs from a dist/ that build made.
  assert.ok(existsSync(join(repoRoot, 'dist', '.build-stamp')));
});
