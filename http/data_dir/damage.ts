// What a check of the data directory found wrong. Each problem names the store it is in and says
// what is wrong with it; the error that stops a start (or the verify command) carries every
// problem found, in one line, and main.ts exits with code 2 on it, as on a configuration error:
// the operator has to act, and restarting the same way would only fail again.

export interface Problem {
  /** The store's directory under DATA_DIR (catalog, auth, shard-0 …), or the record's file name. */
  readonly store: string;
  /** The whole phrase, starting with the store's name: "shard-1 is missing (…)". */
  readonly text: string;
}

export function problem(store: string, what: string): Problem {
  return { store, text: `${store} ${what}` };
}

export class DataDirDamaged extends Error {
  constructor(readonly dataDir: string, readonly problems: readonly Problem[]) {
    super(`data directory ${dataDir} is damaged: ${problems.map((found) => found.text).join('; ')}`);
    this.name = 'DataDirDamaged';
  }
}

/** Throws DataDirDamaged when `problems` holds any. */
export function refuseIfAny(dataDir: string, problems: readonly Problem[]): void {
  if (problems.length > 0) throw new DataDirDamaged(dataDir, problems);
}

/**
 * The most characters of an error's message a problem quotes: a decoder's message can carry the
 * whole value it could not read (msgpackr's does), and the refusal must stay one readable line.
 */
const QUOTED_CHARS_MAX = 240;

/** The text of a caught value, for a problem's phrase: on one line, cut at QUOTED_CHARS_MAX. */
export function messageOf(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replaceAll('\n', ' ');
  return text.length <= QUOTED_CHARS_MAX ? text : `${text.slice(0, QUOTED_CHARS_MAX)}…`;
}
