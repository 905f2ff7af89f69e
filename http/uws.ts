// The one place that loads uWebSockets.js. The unofficial npm build silently falls back to a slow
// pure-JS imitation when its native binary fails to load; we refuse to run on that.
import uws from '@trufflesuite/uws-js-unofficial';

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

export { uws };
