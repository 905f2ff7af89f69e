// The A/B harness's baseline checkout (bench/ab/baseline_tree.ts): a worktree of a ref outside
// the repository's tree, and its removal, which takes the directory and git's record of it and
// never follows the node_modules link into the repository's own packages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { addBaselineTree, runTool } from '../../bench/ab/baseline_tree.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const isCheckout = spawnSync('git', ['rev-parse', '--verify', 'HEAD'], { cwd: repoRoot, stdio: 'ignore' }).status === 0;

test('a baseline tree is a checkout of the ref outside the repository, and its removal leaves linked packages alone', { skip: !isCheckout && 'not a git checkout' }, () => {
  const tree = addBaselineTree(repoRoot, 'HEAD');
  const packages = mkdtempSync(join(tmpdir(), 'clobd-test-packages-'));
  try {
    assert.ok(relative(repoRoot, tree.root).startsWith('..'), 'outside the repository');
    assert.equal(tree.commit, runTool('git', ['rev-parse', 'HEAD'], repoRoot));
    assert.equal(readFileSync(join(tree.root, 'package.json'), 'utf8'), runTool('git', ['show', 'HEAD:package.json'], repoRoot) + '\n');
    assert.ok(runTool('git', ['worktree', 'list', '--porcelain'], repoRoot).includes(tree.root));
    writeFileSync(join(packages, 'kept'), 'a package');
    symlinkSync(packages, join(tree.root, 'node_modules'), 'dir');
    tree.remove();
    tree.remove();
    assert.equal(existsSync(tree.root), false, 'the directory is gone');
    assert.ok(!runTool('git', ['worktree', 'list', '--porcelain'], repoRoot).includes(tree.root), 'git forgot it');
    assert.equal(readFileSync(join(packages, 'kept'), 'utf8'), 'a package', 'the linked packages are untouched');
  } finally {
    tree.remove();
    rmSync(packages, { recursive: true, force: true });
  }
});

test('a ref that does not exist is refused before anything is made', { skip: !isCheckout && 'not a git checkout' }, () => {
  assert.throws(() => addBaselineTree(repoRoot, 'no-such-ref-anywhere'), /rev-parse/);
});
