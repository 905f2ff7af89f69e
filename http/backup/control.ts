// The server's control socket, DATA_DIR/control.sock: how `node dist/http/main.js backup DIR`
// reaches the server running on the same DATA_DIR. A Unix socket, not an HTTP route: a backup
// writes files on the server's own machine, so whoever asks must be there too, and whoever can
// open a socket in DATA_DIR (mode 0600: the server's user) can read the stores anyway; no token
// or port is needed, and nothing of it is reachable over the network.
//
// One request per connection, one JSON line: {"op": "backup", "target": "/abs/dir", "mbPerS": 0}
// (mbPerS: the copy's pace, 0 for none). The server
// answers JSON lines: progress ({"event": "cut" …}, {"event": "copied" …}), then one of
// {"event": "done", "copy": …}, {"event": "refused", "error": …} or {"event": "failed", "error": …}.
// A client that goes away stops its backup (the copy under its temporary name is removed, also
// when the copy was just done).
//
// A socket file left by a server that was killed is removed by the next start; one that answers
// belongs to a server still running on this DATA_DIR, and the start stops (exit 2).
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from '../config.js';
import type { Logger } from '../log.js';
import { BackupRefused, type Backups, type Progress, type ServerCopy } from './cut.js';

export const CONTROL_SOCKET = 'control.sock';
/** Longest socket path Linux takes (sun_path: 108 bytes with the NUL; macOS: 104). */
const SOCKET_PATH_MAX = 103;
/** Longest request line, and how long a connection may take to send it. */
const REQUEST_BYTES_MAX = 8_192;
const REQUEST_WAIT_MS = 10_000;
/** Connections at once (one backup runs at a time; the others are answered at once). */
const CONNECTIONS_MAX = 8;

export type ControlAnswer =
  | Progress
  | { readonly event: 'done'; readonly copy: ServerCopy }
  | { readonly event: 'refused'; readonly error: string }
  | { readonly event: 'failed'; readonly error: string };

export interface ControlServer {
  /** Stops taking requests, stops a backup that is running and waits for it to end. */
  close(): Promise<void>;
}

export function controlSocketPath(dataDir: string): string {
  return join(dataDir, CONTROL_SOCKET);
}

/** Whether something answers on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Listens on DATA_DIR/control.sock (see the file comment). */
export async function startControl(dataDir: string, backups: Backups, log: Logger): Promise<ControlServer> {
  const path = controlSocketPath(dataDir);
  if (path.length > SOCKET_PATH_MAX) {
    log.warn('control_socket_unavailable', { path, detail: `the path is longer than a Unix socket's ${SOCKET_PATH_MAX} bytes: backups of this server are refused; use a shorter DATA_DIR` });
    return { close: () => Promise.resolve() };
  }
  if (existsSync(path)) {
    if (await answers(path)) throw new ConfigError(`another clobd is running on DATA_DIR ${dataDir} (its control socket ${path} answers)`);
    rmSync(path, { force: true });
  }
  let stopping = false;
  const running = new Set<Promise<void>>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setTimeout(REQUEST_WAIT_MS, () => socket.destroy());
    let request = '';
    const onData = (chunk: Buffer): void => {
      request += chunk.toString('utf8');
      const end = request.indexOf('\n');
      if (end === -1 && request.length <= REQUEST_BYTES_MAX) return;
      socket.off('data', onData);
      socket.setTimeout(0);
      const done = serve(request.slice(0, end === -1 ? REQUEST_BYTES_MAX : end), socket).finally(() => running.delete(done));
      running.add(done);
    };
    socket.on('data', onData);
  });

  const send = (socket: Socket, answer: ControlAnswer): void => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(answer)}\n`);
  };

  async function serve(line: string, socket: Socket): Promise<void> {
    let request: { op?: unknown; target?: unknown; mbPerS?: unknown };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      request = {};
    }
    const { mbPerS = 0 } = request;
    if (request.op !== 'backup' || typeof request.target !== 'string' || typeof mbPerS !== 'number' || !(mbPerS >= 0)) {
      send(socket, { event: 'refused', error: 'expected {"op": "backup", "target": "/absolute/dir", "mbPerS": 0}' });
      socket.end();
      return;
    }
    let gone: string | undefined;
    socket.once('close', () => (gone ??= 'the backup command went away'));
    const aborted = (): string | undefined => (stopping ? 'the server is stopping' : gone);
    try {
      const copy = await backups.take(request.target, mbPerS, aborted, (report) => send(socket, report));
      // No one is left to check and name the copy: it would only be left behind.
      if (gone !== undefined) rmSync(copy.partial, { recursive: true, force: true });
      else send(socket, { event: 'done', copy });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      send(socket, error instanceof BackupRefused ? { event: 'refused', error: message } : { event: 'failed', error: message });
    }
    socket.end();
  }

  server.maxConnections = CONNECTIONS_MAX;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    async close() {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(running);
      for (const socket of sockets) socket.destroy();
      await closed;
      rmSync(path, { force: true });
    },
  };
}

/**
 * Asks the server on `dataDir` to back itself up into `target`; `progress` sees each report
 * before the end. Resolves with the server's copy; throws BackupRefused for a refusal (and when
 * no server answers on the socket), Error for a failure.
 */
export function requestBackup(dataDir: string, target: string, mbPerS: number, progress: (report: Progress) => void): Promise<ServerCopy> {
  const path = controlSocketPath(dataDir);
  if (path.length > SOCKET_PATH_MAX) {
    return Promise.reject(new BackupRefused(`the control socket's path ${path} is longer than a Unix socket's ${SOCKET_PATH_MAX} bytes: a server on this DATA_DIR takes no backups (use a shorter DATA_DIR)`));
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      outcome();
    };
    const socket = createConnection(path);
    socket.once('connect', () => socket.write(`${JSON.stringify({ op: 'backup', target, mbPerS })}\n`));
    socket.once('error', (error: NodeJS.ErrnoException) => settle(() => reject(
      error.code === 'ENOENT' || error.code === 'ECONNREFUSED'
        ? new BackupRefused(`no server is running on DATA_DIR ${dataDir} (nothing answers on ${path}): a backup is taken by the running server; with it stopped, copy DATA_DIR as a whole`)
        : error,
    )));
    let buffered = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        let answer: ControlAnswer;
        try {
          answer = JSON.parse(buffered.slice(0, end)) as ControlAnswer;
        } catch {
          settle(() => reject(new Error(`${path} answered something that is not a clobd control answer`)));
          socket.destroy();
          return;
        }
        buffered = buffered.slice(end + 1);
        switch (answer.event) {
          case 'done': settle(() => resolve(answer.copy)); break;
          case 'refused': settle(() => reject(new BackupRefused(answer.error))); break;
          case 'failed': settle(() => reject(new Error(`the server could not take the backup: ${answer.error}`))); break;
          default: progress(answer);
        }
      }
    });
    socket.once('close', () => settle(() => reject(new Error('the server closed the control socket before the backup ended (did it stop?)'))));
  });
}
