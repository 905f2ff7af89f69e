// The primary's lease, held in a JetStream key-value bucket (`<stream>-lease`, key "primary"),
// run on the replication thread so that a busy front end cannot miss a renewal.
//
// - Acquiring is an atomic create: it succeeds only while no one holds the key. The create's
//   revision (a sequence number of the bucket's stream, so it only grows) is the holder's term.
// - The holder renews every third of the lease with an update that expects its last revision.
//   The bucket keeps an entry for LEASE_MS only (its max age): a holder that stops renewing
//   (killed, paused, cut off) loses the key LEASE_MS after its last renewal, and a standby's
//   create then succeeds.
// - A holder that cannot renew (someone else holds the key now, or LEASE_MS passed without a
//   renewal) has lost: it says so at once, naming who holds the key when someone does. It takes
//   the lease again once it is free (a NATS outage that no standby used): its subjects are still
//   its own then.
// Fencing is the journal's (publisher.ts): every append carries its writer's term, and a new
// term's first append to each subject refuses every later append of an older one.
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';

/** How long a lease lasts without a renewal. */
export const LEASE_MS = 2_000;
const RENEW_EVERY_MS = Math.floor(LEASE_MS / 3);
/** How often a standby looks whether the lease is free. */
const WATCH_EVERY_MS = 250;
const KEY = 'primary';

/** What the lease's key holds: who holds it and where trading goes. */
export interface LeaseHolder {
  readonly id: string;
  /** Set once the server listens (ADVERTISE_URL, or its CLOB listener's URL). */
  url: string;
}

/** What the holder is told: it lost the lease (with who holds it now), or took it again. */
export interface LeaseEvents {
  lost(holder: LeaseHolder | undefined): void;
  regained(term: number): void;
}

export class Lease {
  private revision = 0;
  private renewedAtMs = 0;
  private renewing: NodeJS.Timeout | undefined;
  private watching: NodeJS.Timeout | undefined;
  private held = false;
  private abandoned = false;

  private constructor(private readonly kv: KV, private holder: LeaseHolder, private readonly events: LeaseEvents) {}

  static async open(nc: NatsConnection, stream: string, replicas: number, holder: LeaseHolder, events: LeaseEvents): Promise<Lease> {
    const kv = await new Kvm(nc).create(`${stream}-lease`, { ttl: LEASE_MS, history: 1, replicas });
    return new Lease(kv, holder, events);
  }

  /** Takes the lease if no one holds it: its term, or undefined (with who holds it) when someone does. */
  async acquire(): Promise<{ term: number } | { holder: LeaseHolder | undefined }> {
    if (this.abandoned) return { holder: await this.current() };
    try {
      this.revision = await this.kv.create(KEY, JSON.stringify(this.holder));
    } catch {
      return { holder: await this.current() };
    }
    this.held = true;
    this.renewedAtMs = Date.now();
    this.renewing = setInterval(() => void this.renew(), RENEW_EVERY_MS);
    return { term: this.revision };
  }

  /** Names the holder anew (where it listens): written with the next renewal. */
  name(holder: LeaseHolder): void {
    this.holder = holder;
  }

  /** Who holds the lease now (undefined: no one). */
  async current(): Promise<LeaseHolder | undefined> {
    const entry = await this.kv.get(KEY);
    if (entry === null || entry.operation !== 'PUT' || entry.length === 0) return undefined;
    return JSON.parse(entry.string()) as LeaseHolder;
  }

  /** A standby: calls `vacant` (once) when no one holds the lease. */
  watch(vacant: () => void, taken: (holder: LeaseHolder) => void = () => undefined): void {
    let told = '';
    const look = async (): Promise<void> => {
      this.watching = undefined;
      let holder: LeaseHolder | undefined | null = null;
      try {
        holder = await this.current();
      } catch {
        // NATS unreachable: no one can take the lease either; look again.
      }
      if (holder === undefined) return vacant();
      if (holder !== null && holder.id !== this.holder.id && holder.id !== told) {
        told = holder.id;
        taken(holder);
      }
      this.watching = setTimeout(() => void look(), WATCH_EVERY_MS);
    };
    this.watching = setTimeout(() => void look(), WATCH_EVERY_MS);
  }

  /** Lets the lease go now (a clean stop): a standby takes over at once instead of after LEASE_MS. */
  async release(): Promise<void> {
    this.stop();
    if (!this.held) return;
    this.held = false;
    try {
      await this.kv.delete(KEY, { previousSeq: this.revision });
    } catch {
      // Someone else holds it already, or NATS is gone: it lapses by itself.
    }
  }

  /**
   * Gives the lease up for good (a subject of this server's was claimed by a later term: it is
   * not the primary and cannot become it again without starting anew).
   */
  abandon(): void {
    this.abandoned = true;
    this.held = false;
    this.stop();
  }

  stop(): void {
    clearInterval(this.renewing);
    clearTimeout(this.watching);
    this.renewing = undefined;
    this.watching = undefined;
  }

  private async renew(): Promise<void> {
    if (!this.held) return;
    try {
      this.revision = await this.kv.update(KEY, JSON.stringify(this.holder), this.revision);
      this.renewedAtMs = Date.now();
      return;
    } catch (error) {
      // An update refused for its revision: someone else holds the key (or it lapsed).
      const refused = error instanceof Error && /wrong last sequence|key not found|10071/i.test(error.message);
      if (!refused && Date.now() - this.renewedAtMs < LEASE_MS) return;
    }
    this.held = false;
    this.stop();
    let holder: LeaseHolder | undefined;
    try {
      holder = await this.current();
    } catch {
      holder = undefined;
    }
    this.events.lost(holder);
    // Lost to a NATS outage with no one to take over, it is taken again once free: the subjects
    // are still this server's unless a new primary claimed them (then its appends are refused).
    // One that another server takes meanwhile is told so.
    this.watch(() => void this.regain(), (taker) => this.events.lost(taker));
  }

  private async regain(): Promise<void> {
    if (this.abandoned) return;
    const acquired = await this.acquire();
    if ('term' in acquired) this.events.regained(acquired.term);
    else this.watch(() => void this.regain(), (taker) => this.events.lost(taker));
  }
}
