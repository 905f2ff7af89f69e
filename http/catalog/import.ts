// The `import <file>` command: loads a JSON array of events shaped as Gamma's GET /events returns
// them (nested markets, tags, series), keeping their ids. Everything is validated before the one
// write transaction, so a bad file changes nothing.
import { readFile } from 'node:fs/promises';
import { HttpError } from '../errors.js';
import { readEvent } from './ingest.js';
import type { CatalogStore, WriteSummary } from './store.js';

/** Caps one import so a file cannot make an unbounded transaction. */
export const importEventsMax = 100_000;

export async function importFile(store: CatalogStore, path: string, nowMs: number): Promise<WriteSummary> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${path} as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${path} must hold a JSON array of events`);
  if (parsed.length > importEventsMax) throw new Error(`${path} holds ${parsed.length} events; split it into files of at most ${importEventsMax}`);
  try {
    return store.importEvents(parsed.map((event, index) => readEvent(event, `[${index}]`, 'import', nowMs)));
  } catch (error) {
    if (error instanceof HttpError) throw new Error(`${path}: ${error.message}`);
    throw error;
  }
}
