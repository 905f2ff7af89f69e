// What an attacker saw of the server during one phase of the isolation benchmark: what it sent,
// what was served, and every way it was refused. Kept by the attacker's flood clients in its
// worker thread and sent back to the benchmark whole when the phase ends.

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
