// The docs stand alone: a user of the repository has nothing outside it, so no page cites the
// specification files clobd was built from (their names, their section numbers), and every
// relative link of every page leads to a file or folder inside the repository that exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'data']);

/** Every Markdown page of the repository (the README, docs/, bench/ and any other folder's). */
function pages(dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED_DIRS.has(name) || name.startsWith('dist-') ? [] : pages(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** What only a reader of the specification could follow. */
const OUTSIDE_CITATIONS = [/shared\/spec/i, /\binterface\.md\b/i, /\bcontract\.md\b/i, /\bcontract §/i, /\.\.\/shared\b/, /\bSTYLE\.md\b/];

test('no page cites the specification files or their sections', () => {
  const found = pages().flatMap((page) => readFileSync(page, 'utf8').split('\n').flatMap((line, index) =>
    OUTSIDE_CITATIONS.some((pattern) => pattern.test(line)) ? [`${relative(root, page)}:${index + 1}: ${line.trim().slice(0, 120)}`] : []));
  assert.deepEqual(found, []);
});

test('every relative link leads to something inside the repository that exists', () => {
  const broken: string[] = [];
  for (const page of pages()) {
    const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const path = resolve(dirname(page), decodeURIComponent(target.split('#')[0]!));
      if (!path.startsWith(root.endsWith(sep) ? root : root + sep)) broken.push(`${relative(root, page)}: ${target} (outside the repository)`);
      else if (!existsSync(path)) broken.push(`${relative(root, page)}: ${target} (no such file)`);
    }
  }
  assert.deepEqual(broken, []);
});
