// Where a backup or a restore may write: a directory that does not exist yet, or an empty one
// (no server can be running on it), whose parent exists, apart from the data directory. What
// they write goes first into a sibling under a temporary name, renamed to the target at the end.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';

/** Whether `inner` is `outer` or lies inside it. */
function within(inner: string, outer: string): boolean {
  const path = relative(outer, inner);
  return path === '' || (!path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path));
}

/**
 * What keeps `target` (absolute) from being written, or undefined: it exists and is not an empty
 * directory, its parent does not exist, or it and `dataDir` (the live one) overlap.
 */
export function targetProblem(target: string, dataDir: string | undefined): string | undefined {
  if (!isAbsolute(target)) return `${target} is not an absolute path`;
  if (dataDir !== undefined && (within(target, dataDir) || within(dataDir, target))) return `${target} overlaps DATA_DIR ${dataDir}`;
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) return `${target} exists and is not a directory`;
    if (readdirSync(target).length > 0) return `${target} exists and is not empty`;
    return undefined;
  }
  if (!existsSync(dirname(target))) return `the directory ${dirname(target)} (where ${target} would be made) does not exist`;
  return undefined;
}

/** The temporary name a backup or restore of `target` fills before it is renamed to `target`. */
export function partialName(target: string): string {
  return `${target}.partial-${randomBytes(4).toString('hex')}`;
}

