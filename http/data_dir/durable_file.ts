// Writing a small file of a data directory so that a crash leaves the old file or the new one,
// never a torn one: a temporary beside it, synced, renamed over it, and the directory synced.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Syncs a directory, so the renames and new names in it survive a crash. */
export function syncDirectory(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `text` atomically and durably. With `mode`, the file has it whatever a
 * temporary file a crash left behind had.
 */
export function writeFileDurably(file: string, text: string, mode?: number): void {
  const temporary = `${file}.tmp`;
  const fd = mode === undefined ? openSync(temporary, 'w') : openSync(temporary, 'w', mode);
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  syncDirectory(dirname(file));
}
