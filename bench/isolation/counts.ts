// What an attacker saw of the server during one phase of the isolation benchmark: what it sent,
// what was served, and every way it was refused. Kept by the attacker's flood clients in its
// worker thread and sent back to the benchmark whole when the phase ends.
import type { Socket } from 'node:net';

export interface AttackCounts {
  /** Requests written (HTTP) or operations sent (WebSocket: subscribes, unsubscribes, PINGs). */
  sent: number;
  /** HTTP 2xx answers; WebSocket operations the server got through (a PONG fences them). */
  ok: number;
  /** HTTP 429 answers, WebSocket upgrades included. */
  refused: number;
  /** Of `refused`, those that carried Retry-After. */
  retryAfter: number;
  /** Other refusals by what they were: an HTTP status ("400") or "ws error" (an error message on a socket). */
  readonly other: Record<string, number>;
  /** Connections or sockets the server closed (or that broke) while the attacker still used them. */
  closes: number;
  /** WebSocket close frames the server sent, by close code. */
  readonly closeCodes: Record<string, number>;
  /** Socket errors, connection refusals among them. */
  errors: number;
  /** Bytes the server sent the attacker. */
  bytesIn: number;
  /** Requests that must be sent once (fresh wallets' keys) were used up before the phase ended. */
  exhausted: boolean;
}

export function emptyCounts(): AttackCounts {
  return { sent: 0, ok: 0, refused: 0, retryAfter: 0, other: {}, closes: 0, closeCodes: {}, errors: 0, bytesIn: 0, exhausted: false };
}

export function countOther(counts: AttackCounts, what: string): void {
  counts.other[what] = (counts.other[what] ?? 0) + 1;
}

/** Where an attacker's connections come from: one address, or the next of many after each refusal or close. */
export class AddressRing {
  private next = 0;

  constructor(private readonly addresses: readonly string[], readonly hop: boolean) {
    if (addresses.length === 0) throw new Error('an attacker needs at least one address');
  }

  /** The address for connection `index`'s first connection. */
  first(index: number): string {
    this.next = Math.max(this.next, index + 1);
    return this.addresses[index % this.addresses.length]!;
  }

  /** The address a connection that was refused or closed moves to (its own, unless it hops). */
  after(current: string): string {
    return this.hop ? this.addresses[this.next++ % this.addresses.length]! : current;
  }
}

/** An attacker's clients, as its worker drives them. */
export interface Flood {
  /** Resolves once every connection has connected (or failed to) once. */
  readonly ready: Promise<void>;
  /** Starts sending. */
  go(): void;
  /** Stops sending and closes every socket and timer. */
  stop(): void;
}

/**
 * What both floods' connections share: the address they come from (the next of the ring after
 * each hop), the sending switch, the stop, and the reconnect after a close. A subclass opens its
 * socket (`open`) and sends while `sending` (`resume`).
 */
export abstract class FloodPeer {
  protected socket: Socket | undefined;
  protected address: string;
  protected sending = false;
  protected stopped = false;
  protected timer: NodeJS.Timeout | undefined;

  constructor(index: number, protected readonly ring: AddressRing, protected readonly counts: AttackCounts, protected readonly settled: () => void) {
    this.address = ring.first(index);
  }

  go(): void {
    this.sending = true;
    this.resume();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.destroy();
  }

  protected abstract open(): void;
  protected abstract resume(): void;

  /**
   * Counts the socket's errors; when the server closes the current socket (not one this peer left
   * by a hop or the stop), counts the close if it was up (`wasUp`), runs `closed`, and comes back
   * from the next address after `reconnectMs`.
   */
  protected watchEnd(socket: Socket, wasUp: () => boolean, reconnectMs: number, closed: () => void = () => undefined): void {
    socket.on('error', () => {
      this.counts.errors++;
      this.settled();
    });
    socket.once('close', () => {
      if (socket !== this.socket || this.stopped) return;
      if (wasUp()) this.counts.closes++;
      closed();
      this.hop(reconnectMs);
    });
  }

  /** From the ring's next address, after `delayMs` (at once with none). */
  protected hop(delayMs = 0): void {
    const again = (): void => {
      if (this.stopped) return;
      this.address = this.ring.after(this.address);
      this.open();
    };
    if (delayMs === 0) again();
    else this.timer = setTimeout(again, delayMs);
  }
}

/** `count` peers made by `make`, as one Flood: ready once each has settled (connected, or failed to) once. */
export function floodOf<T extends FloodPeer>(count: number, make: (index: number, settled: () => void) => T, stopToo: () => void = () => undefined): { flood: Flood; peers: T[] } {
  let waiting = count;
  let resolveReady = (): void => undefined;
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  const peers = Array.from({ length: count }, (_, index) => {
    let settled = false;
    return make(index, () => {
      if (settled) return;
      settled = true;
      if (--waiting === 0) resolveReady();
    });
  });
  return {
    peers,
    flood: {
      ready,
      go: () => {
        for (const peer of peers) peer.go();
      },
      stop: () => {
        stopToo();
        for (const peer of peers) peer.stop();
      },
    },
  };
}

