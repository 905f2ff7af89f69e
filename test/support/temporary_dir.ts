// Temporary directories for tests: a DATA_DIR for a server, or an LMDB environment of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function temporaryDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'clobd-test-'));
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}

/** Runs `body` with a fresh temporary directory, removed afterwards whether it passed or threw. */
export async function withTemporaryDir<T>(body: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = temporaryDataDir();
  try {
    return await body(dir);
  } finally {
    removeDataDir(dir);
  }
}
