// The compatibility relay (compat_proxy.ts) on a thread of its own. The relay handles every byte
// of its clients' traffic in JavaScript; on the front end's thread, a flood through it took that
// thread from every other client, the relay's own included. Here it costs the front end only the
// requests it forwards, each charged to its real client's caps like any other.
//
// The thread is given the relay's secret (client_address.ts) once, in its workerData: it never
// travels on a socket. It answers `{port}` once it listens (or `{error}`), and on `close` stops
// listening, ends every connection and answers `closed` before it exits.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { RelayTrust } from './client_address.js';
import { startCompatProxy, type CompatProxy } from './compat_proxy.js';

interface RelaySetup {
  readonly host: string;
  readonly port: number;
  readonly targetPort: number;
  readonly secret: Uint8Array;
}

type FromRelay = { readonly port: number } | { readonly error: string } | 'closed';

/** Starts the relay on its own thread; resolves once it listens. */
export function startCompatThread(host: string, port: number, targetPort: number, trust: RelayTrust): Promise<CompatProxy> {
  const setup: RelaySetup = { host, port, targetPort, secret: trust.secret };
  const worker = new Worker(new URL(import.meta.url), { workerData: setup });
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => reject(error);
    worker.once('error', failed);
    worker.once('message', (message: FromRelay) => {
      worker.off('error', failed);
      if (typeof message === 'object' && 'error' in message) {
        void worker.terminate();
        reject(new Error(message.error));
        return;
      }
      if (message === 'closed') return;
      resolve({
        port: message.port,
        close: () => new Promise<void>((done) => {
          worker.once('exit', () => done());
          worker.once('message', () => void worker.terminate());
          worker.postMessage('close');
        }),
      });
    });
  });
}

if (!isMainThread && parentPort !== null && (workerData as Partial<RelaySetup> | undefined)?.secret !== undefined) {
  const port = parentPort;
  const setup = workerData as RelaySetup;
  startCompatProxy(setup.host, setup.port, setup.targetPort, new RelayTrust(Buffer.from(setup.secret))).then((proxy) => {
    port.postMessage({ port: proxy.port } satisfies FromRelay);
    port.on('message', () => {
      void proxy.close().then(() => {
        port.postMessage('closed' satisfies FromRelay);
        port.close();
      });
    });
  }, (error: unknown) => {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies FromRelay);
  });
}
