// What the load CLI says when it cannot do its job: one line that names the option to give or
// the server setting that refused it, never a stack trace. `LoadError` is such a line; `call`
// is the CLI's HTTP request for setting up (markets, keys, deposits), which turns a refusal into
// one, and waits out a 429 during the setup when the server says how long (Retry-After).

/** A failure the CLI reports as its one line (after "load: "), exiting with `exitCode`. */
export class LoadError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'LoadError';
  }
}

/** The first line of any error's message, for a failure that is not a LoadError. */
export function oneLine(error: unknown): string {
  if (error instanceof LoadError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `unexpected failure: ${message.split('\n')[0]} (LOAD_STACK=1 prints where)`;
}

/** Why a request could not be sent: the connection's error code, or the message. */
function unreachable(url: string, error: unknown): LoadError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new LoadError(`cannot reach ${new URL(url).origin}: ${why} (is the server running, and is --url its CLOB listener?)`);
}

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly retryAfterS: number | undefined;
}

/** Sends one request; an answer of any status, or a LoadError when the server cannot be reached. */
export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw unreachable(url, error);
  }
  const text = await response.text();
  const retryAfter = response.headers.get('retry-after');
  return { status: response.status, text, retryAfterS: retryAfter === null ? undefined : Number(retryAfter) };
}

/** The start of an answer's body, on one line, for a message. */
export function brief(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** How long a setup step waits out 429s in all before it gives up, naming RATE_LIMITS. */
const SETUP_WAIT_MAX_S = 60;

/** What a setup step's requests were refused for, and how long it has waited so far. */
export class SetupWaits {
  waitedS = 0;
  private told = false;

  constructor(private readonly note: (line: string) => void) {}

  /** Waits out a 429 whose Retry-After fits what is left; a LoadError naming RATE_LIMITS otherwise. */
  async tooMany(what: string, answer: Answer): Promise<void> {
    const waitS = Math.max(1, answer.retryAfterS ?? 1);
    if (this.waitedS + waitS > SETUP_WAIT_MAX_S) {
      throw new LoadError(`the server's RATE_LIMITS refused ${what} (429, retry after ${waitS} s, after ${this.waitedS} s of waiting): `
        + 'raise that cap in its RATE_LIMITS file, or use fewer --accounts');
    }
    if (!this.told) this.note(`the server's RATE_LIMITS refused ${what} (429): waiting ${waitS} s as it asks`);
    this.told = true;
    this.waitedS += waitS;
    await new Promise((resolve) => setTimeout(resolve, waitS * 1000));
  }
}

/** A GET of JSON during setup: the parsed body, a LoadError for any other answer. */
export async function getJson<T>(url: string, what: string): Promise<T> {
  const answer = await send(url);
  if (answer.status === 429) throw new LoadError(`the server's RATE_LIMITS refused ${what} (429 ${brief(answer.text)}): raise its caps, or run it with RATE_LIMITS=off`);
  if (answer.status !== 200) throw new LoadError(`${what}: ${answer.status} ${brief(answer.text)} (is --url the CLOB listener of a clobd exchange?)`);
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new LoadError(`${what}: not JSON (is --url the CLOB listener of a clobd exchange?)`);
  }
}
