// The A side of an A/B run: a git ref checked out into a temporary worktree outside the
// repository's tree, with the repository's node_modules linked in and this tree's benchmark
// harness copied over its own, then built with `npm run build` as the current tree is.
//
// Why this tree's harness on both sides: the two sides must run the same flows at the same sizes
// through the same measuring code, so that only the code under test differs; and the ref may
// lack what the harness needs (`--json`, `--smoke`). The harness is compiled against the ref's
// engine and server by the ref's strict build, so an interface it relies on that the ref lacks
// fails the build instead of measuring something else.
import { cpSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

/** The benchmarks' own code: the durable and engine benchmarks and what they share. */
export const HARNESS_PATHS: readonly string[] = ['bench/durable.ts', 'bench/durable', 'bench/engine', 'bench/support'];

/** Runs a command to its end; its output when it succeeds, else an error that carries it. */
export function runTool(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed with ${String(result.status ?? result.signal)}:\n${result.stdout}${result.stderr}`);
  }
  return result.stdout.trim();
}

export interface BaselineTree {
  readonly root: string;
  /** The ref's full commit hash. */
  readonly commit: string;
  /** Removes the worktree and its directory; safe to call more than once, and from an 'exit' handler. */
  remove(): void;
}

/** Checks `ref` out into a new temporary worktree of the repository at `repoRoot`. */
export function addBaselineTree(repoRoot: string, ref: string): BaselineTree {
  const commit = runTool('git', ['rev-parse', '--verify', `${ref}^{commit}`], repoRoot);
  const root = mkdtempSync(join(tmpdir(), 'clobd-ab-'));
  try {
    runTool('git', ['worktree', 'add', '--quiet', '--detach', root, commit], repoRoot);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  let removed = false;
  return {
    root, commit,
    remove() {
      if (removed) return;
      removed = true;
      // The link goes first, so that nothing below can ever walk into the shared node_modules.
      rmSync(join(root, 'node_modules'), { force: true });
      const result = spawnSync('git', ['worktree', 'remove', '--force', root], { cwd: repoRoot, stdio: 'ignore' });
      if (result.status !== 0) {
        rmSync(root, { recursive: true, force: true });
        spawnSync('git', ['worktree', 'prune'], { cwd: repoRoot, stdio: 'ignore' });
      }
    },
  };
}

/** Links the repository's node_modules into the tree and copies this tree's harness over the ref's. */
export function prepareBaselineTree(repoRoot: string, tree: BaselineTree): void {
  symlinkSync(realpathSync(join(repoRoot, 'node_modules')), join(tree.root, 'node_modules'), 'dir');
  for (const path of HARNESS_PATHS) {
    rmSync(join(tree.root, path), { recursive: true, force: true });
    cpSync(join(repoRoot, path), join(tree.root, path), { recursive: true });
  }
  runTool('npm', ['run', 'build'], tree.root);
}

/** Files of the harness in which this tree differs from `commit` (changed, added or untracked). */
export function harnessChanges(repoRoot: string, commit: string): string[] {
  const changed = runTool('git', ['diff', '--name-only', commit, '--', ...HARNESS_PATHS], repoRoot);
  const untracked = runTool('git', ['ls-files', '--others', '--exclude-standard', '--', ...HARNESS_PATHS], repoRoot);
  return [...changed.split('\n'), ...untracked.split('\n')].filter((path) => path !== '');
}
