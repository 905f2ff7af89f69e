// Starts the real server as a child process (`node dist/http/main.js`) on free ports with a
// temporary DATA_DIR, exactly as a user would, and talks HTTP to it. Crash tests use kill().
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertDocumented } from './api_document.js';
import { removeDataDir, temporaryDataDir } from './temporary_dir.js';

export { removeDataDir, temporaryDataDir };

export const mainPath = fileURLToPath(new URL('../../http/main.js', import.meta.url));
const readyPattern = /^listening clob=(\S+) catalog=(\S+) data=(\S+)$/m;
/** Generous: a loaded 2-core machine has taken over 15 s to start the shards and load the demo catalog. */
const readyTimeoutMs = 40_000;

export interface Urls {
  readonly clob: string;
  readonly catalog: string;
  readonly data: string;
}

export interface RunningServer {
  readonly urls: Urls;
  readonly dataDir: string;
  readonly process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Sends a signal and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  readonly dataDir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
}

/** Spawns the server and resolves once it printed its ready line. */
export function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? temporaryDataDir();
  const child = spawn(process.execPath, [mainPath, ...(options.args ?? [])], {
    // Request caps are off unless a test turns them on: the suites send far more than a client may.
    // So is the demo flow: the suites count what rests and trades on the demo's books.
    env: { ...process.env, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMITS: 'off', DEMO_FLOW: 'off', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server not ready within ${readyTimeoutMs} ms\n${stderr}`));
    }, readyTimeoutMs);
    const onData = (): void => {
      const match = readyPattern.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve({
        urls: { clob: match[1] ?? '', catalog: match[2] ?? '', data: match[3] ?? '' },
        dataDir,
        process: child,
        output: () => ({ stdout, stderr }),
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready\n${stderr}`));
    });
  });
}

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node dist/http/main.js` with `args` until it exits by itself (a command, or a start that
 * fails); one still running after `timeoutMs` (a server that started) is killed, and the result
 * then shows SIGKILL.
 */
export function runMain(options: StartOptions & { readonly timeoutMs: number }): Promise<Finished> {
  const child = spawn(process.execPath, [mainPath, ...(options.args ?? [])], {
    env: { ...process.env, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: options.dataDir ?? temporaryDataDir(), LOG_LEVEL: 'warn', DEMO_FLOW: 'off', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  return new Promise((resolve) => child.once('close', (code, signal) => {
    clearTimeout(timer);
    resolve({ code, signal, stdout, stderr });
  }));
}

export interface Response<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

export interface RequestOptions {
  /**
   * Hold the answer to the listener's OpenAPI document (api_document.ts); on by default for the
   * whole suite. Turn it off only for answers no route of the document gives: a request to
   * something that is not one of the three listeners (the compat proxy's own refusals), or a
   * server that is going away. Unknown paths and wrong methods are checked against the document's
   * RouteNotFound and MethodNotAllowed, so they need no opt-out.
   */
  readonly documented?: boolean;
}

/** The text of a request body given as a string or bytes; undefined for none (or a stream, which is not read back). */
function bodyText(body: RequestInit['body']): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return undefined;
}

/**
 * One HTTP request, its answer held to the document (and a body the server took to the
 * operation's request schema); the answer's body is parsed as JSON when it is JSON.
 */
export async function request<T = unknown>(url: string, init: RequestInit = {}, options: RequestOptions = {}): Promise<Response<T>> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (options.documented !== false) {
    await assertDocumented({ method: init.method ?? 'GET', url, status: response.status, headers: response.headers, text, requestBody: bodyText(init.body) });
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text is the body.
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}
