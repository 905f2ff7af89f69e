// Builds dist/ only when the sources changed since it was built, so that `npm run load` does not
// delete and rewrite dist/ under a server started from the same checkout (the build begins with
// rm -rf dist).
//
//   node tools/dist_current.mjs          runs `npm run build` when dist/ is older than the sources
//   node tools/dist_current.mjs --stamp  records that dist/ was just built: the build's last step
//   --root DIR                           the checkout (default: the one this file is in)
//
// The stamp is dist/.build-stamp. Its modification time is that of the oldest file in dist/, so a
// source saved while the compiler was still writing counts as newer. dist/ is out of date when
// it has no stamp, or when anything the build reads is newer than the stamp: a .ts file under
// engine/, http/, bench/, test/ or tools/, one of those directories themselves (a file added,
// removed or renamed changes its directory's time), tsconfig.json or package.json.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIRS = ['engine', 'http', 'bench', 'test', 'tools'];
const SOURCE_FILES = ['tsconfig.json', 'package.json'];
const STAMP = '.build-stamp';

function argument(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const root = argument('--root') ?? dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');

/** Calls `visit(path, stats)` for every file and directory under `dir` (itself included). */
function walk(dir, visit) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  visit(dir, statSync(dir));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, visit);
    else if (entry.isFile()) visit(path, statSync(path));
  }
}

/** The newest source (path and time in ms) the build reads. */
function newestSource() {
  let newest = { path: '', mtimeMs: 0 };
  const consider = (path, stats) => {
    if (stats.mtimeMs > newest.mtimeMs) newest = { path, mtimeMs: stats.mtimeMs };
  };
  for (const dir of SOURCE_DIRS) {
    walk(join(root, dir), (path, stats) => {
      if (stats.isDirectory() || path.endsWith('.ts')) consider(path, stats);
    });
  }
  for (const file of SOURCE_FILES) {
    try {
      consider(join(root, file), statSync(join(root, file)));
    } catch {
      // Not there: nothing to compare.
    }
  }
  return newest;
}

function stamp() {
  let oldestMs = Date.now();
  walk(dist, (path, stats) => {
    if (stats.isFile()) oldestMs = Math.min(oldestMs, stats.mtimeMs);
  });
  const path = join(dist, STAMP);
  writeFileSync(path, `dist/ built from the sources as they were at ${new Date(oldestMs).toISOString()}\n`);
  const at = new Date(oldestMs);
  utimesSync(path, at, at);
}

/** Why dist/ must be built, or undefined when it is current. */
function staleness() {
  let stampMs;
  try {
    stampMs = statSync(join(dist, STAMP)).mtimeMs;
  } catch {
    return 'dist/ has no build stamp';
  }
  const newest = newestSource();
  if (newest.mtimeMs > stampMs) return `${newest.path.slice(root.length + 1) || '.'} changed since dist/ was built`;
  return undefined;
}

if (process.argv.includes('--stamp')) {
  stamp();
} else {
  const why = staleness();
  if (why === undefined) {
    process.stderr.write('dist/ is current: not rebuilding\n');
  } else {
    process.stderr.write(`${why}: npm run build\n`);
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    process.exit(build.status ?? 1);
  }
}
