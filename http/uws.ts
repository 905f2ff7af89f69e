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

/**
 * Whether this build hands JavaScript a request whose header names contain '_'. The native v20.30
 * build drops such a request before any handler sees it (the main listener's test in
 * test/http/compat_proxy.test.ts holds it to that; compat_proxy.ts relays those clients), so a
 * handler's reads of underscore names can never find anything. A build that passes them must
 * set this, or the underscore spellings of the credential headers go unread.
 */
export const PASSES_UNDERSCORE_HEADER_NAMES = false;

export { uws };
