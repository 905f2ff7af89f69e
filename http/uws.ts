// The one place that loads uWebSockets.js. The unofficial npm build silently falls back to a slow
// pure-JS imitation when its native binary fails to load; we refuse to run on that.
import { connect } from 'node:net';
import uws, { type TemplatedApp, type us_listen_socket } from '@trufflesuite/uws-js-unofficial';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

/** True when `uws.App` is the native addon's function rather than the JS fallback. */
export function isNativeUws(): boolean {
  return Function.prototype.toString.call(uws.App).includes('[native code]');
}

export function assertNativeUws(): void {
  if (!isNativeUws()) {
    throw new Error(
      'uWebSockets.js native binary did not load (running on the JS fallback); ' +
        `node ${process.version} abi ${process.versions.modules} ${process.platform}-${process.arch} is unsupported`,
    );
  }
}

/**
 * The name under which a handler finds request header `name` (lower-case). The binary is patched
 * at install (tools/patch_uws.mjs) to take '_' in header names, which its parser lower-cases with
 * `| 0x20` to 0x7f: POLY_ADDRESS arrives as "poly\x7faddress".
 */
export function uwsHeaderName(name: string): string {
  return name.replaceAll('_', '\x7f');
}

/**
 * app.listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, cb): a bind without SO_REUSEPORT, which
 * uWS sets otherwise, so that a port another process holds fails here instead of being shared
 * with it (exclusive.ts). The native listen takes the options after the port whether or not a
 * host comes first; the typings only declare the form without a host.
 */
export function listenExclusive(app: TemplatedApp, host: string, port: number, done: (socket: us_listen_socket | false) => void): void {
  (app.listen as unknown as (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => TemplatedApp)
    .call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, done);
}

/** uSockets' option (ListenOptions in the typings, a plain number to the native code). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
/** uSockets' default: SO_REUSEPORT, so the front-end threads share a port (http/front_end/). */
const LIBUS_LISTEN_DEFAULT = 0;

/** app.listen(host, port, cb) with SO_REUSEPORT: threads of this process share the port (exclusive.ts says who else may not). */
export function listenShared(app: TemplatedApp, host: string, port: number, done: (socket: us_listen_socket | false) => void): void {
  (app.listen as unknown as (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => TemplatedApp)
    .call(app, host, port, LIBUS_LISTEN_DEFAULT, done);
}

/** An unpatched parser never answers; a loopback answer takes well under a millisecond. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * Whether the binary that loaded answers a request whose header names contain '_' (the unpatched
 * v20.30 parser never does: see tools/patch_uws.mjs). Asks a throwaway app on a free loopback
 * port, so it tests the code that actually runs, not a file on disk.
 */
export async function probeUnderscoreHeaderNames(): Promise<boolean> {
  const app = uws.App().get('/*', (res, req) => {
    res.end(req.getHeader(uwsHeaderName('x_clobd_probe')));
  });
  const listenSocket = await new Promise<us_listen_socket | false>((resolve) => {
    app.listen('127.0.0.1', 0, resolve);
  });
  if (listenSocket === false) return false;
  try {
    const port = uws.us_socket_local_port(listenSocket);
    return await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      const finish = (accepted: boolean): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve(accepted);
      };
      const timer = setTimeout(() => finish(false), PROBE_TIMEOUT_MS);
      socket.on('error', () => finish(false));
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
        if (answer.endsWith('\r\n\r\nyes')) finish(true);
      });
      socket.write('GET / HTTP/1.1\r\nHost: probe\r\nX_Clobd_Probe: yes\r\nConnection: close\r\n\r\n');
    });
  } finally {
    uws.us_listen_socket_close(listenSocket);
  }
}

export { uws };
