// What a shard does with one command frame, without any I/O: the same code runs live and when
// recovery replays the journal, so both reach the same state.
//
// Collateral. An address's collateral lives in the front end's treasury (one thread, so no
// race); a shard holds only what its open BUY orders reserve. A BUY frame carries the exact
// collateral the order may reserve (`fundMicros`, debited from the treasury when the frame was
// written); the shard deposits it into the engine, runs the order, and then sweeps every free
// collateral balance the command left back out (Withdraw), answering the swept amounts so the
// treasury credits them. So after each frame a shard's engine holds collateral only as order
// reserves, fees aside: the operator's fees are swept like anything else. Per address the shard
// keeps `netFunding` = funded − swept, persisted with every batch; the treasury's free balance of
// an address is its external deposits − withdrawals − Σ over shards of netFunding, which is how
// it is rebuilt after a crash, whatever was in flight.
//
// Markets: the front end names a market by its key (condition id) in AddMarket; the shard gives
// it the next engine index and answers it. Other frames name the engine index.
import { Command, CommandKind } from '../command.js';
import { Engine } from '../engine.js';
import { eventsToObjects, type EngineEvent } from '../event_objects.js';
import type { EngineSnapshot } from '../snapshot.js';
import type { EngineOptions } from '../state.js';
import type { Frame } from './frame.js';

/**
 * What resolving a market paid one holder: its shares of each outcome as they stood before the
 * resolution (free + reserved), so the payout is `sharesMicros[winner]`.
 */
export interface Redemption {
  readonly seq: number;
  readonly account: string;
  readonly market: number;
  readonly winner: number;
  readonly sharesMicros: readonly [number, number];
}

/** One frame's answer to the front end. */
export interface FrameResult {
  readonly requestId: number;
  /** The command's time (ms): when its fills happened. */
  readonly timeMs: number;
  /** Why the runtime refused the frame before the engine saw it ('' when it did not). */
  readonly error: string;
  /** The engine's events for the frame (the internal fund deposit and sweeps included). */
  readonly events: EngineEvent[];
  /** Collateral swept back to the treasury: [address, micros] pairs. */
  readonly credits: [string, number][];
  /** AddMarket: the market's engine index. */
  readonly market: number;
  /** ResolveMarket: every holder's shares as the market resolved. */
  readonly redemptions: Redemption[];
}

/** What recovery and snapshots need besides the engine. */
export interface CoreState {
  readonly seq: number;
  readonly marketKeys: string[];
  readonly netFunding: [string, number][];
}

/** Frame kinds the front end may send; collateral moves only through the funding protocol. */
function isFrontEndKind(kind: number): boolean {
  return kind !== CommandKind.Deposit && kind !== CommandKind.Withdraw;
}

/** An answer that changed nothing: a refusal (`error`) or an AddMarket of a known key. */
export function emptyResult(requestId: number, timeMs: number, error: string, market = -1): FrameResult {
  return { requestId, timeMs, error, events: [], credits: [], market, redemptions: [] };
}

export class ShardCore {
  readonly engine: Engine;
  readonly marketKeys: string[];
  private readonly marketByKey = new Map<string, number>();
  /** Last sequence number given to an engine command. */
  seq: number;
  /** funded − swept per address; zero entries are dropped. */
  readonly netFunding: Map<string, number>;
  private readonly internal: Command;

  constructor(options: EngineOptions, snapshot?: { engine: EngineSnapshot; core: CoreState }) {
    this.engine = snapshot === undefined
      ? new Engine(options)
      : Engine.restore(snapshot.engine, { verify: options.verify ?? false, orderHistory: options.orderHistory });
    this.seq = snapshot?.core.seq ?? 0;
    this.marketKeys = [...(snapshot?.core.marketKeys ?? [])];
    this.marketKeys.forEach((key, index) => this.marketByKey.set(key, index));
    this.netFunding = new Map(snapshot?.core.netFunding ?? []);
    this.internal = new Command();
  }

  coreState(): CoreState {
    return { seq: this.seq, marketKeys: [...this.marketKeys], netFunding: [...this.netFunding] };
  }

  marketOf(key: string): number {
    return this.marketByKey.get(key) ?? -1;
  }

  /**
   * Applies one frame; `frame.command` is consumed (its seq is overwritten). Events are read
   * from and then cleared out of the engine's buffer.
   */
  apply(frame: Frame): FrameResult {
    const command = frame.command;
    const events = this.engine.events;
    events.clear();
    if (!isFrontEndKind(command.kind) || !(frame.fundMicros >= 0 && Number.isSafeInteger(frame.fundMicros))) {
      return emptyResult(frame.requestId, command.timeMs, 'the front end may not send this frame');
    }
    let market = -1;
    if (command.kind === CommandKind.AddMarket) {
      const known = this.marketByKey.get(frame.marketKey);
      if (known !== undefined) return emptyResult(frame.requestId, command.timeMs, '', known);
      market = this.marketKeys.length;
      command.market = market;
    }
    let depositSeq = -1;
    if (frame.fundMicros > 0) {
      this.run(this.collateralCommand(CommandKind.Deposit, command, command.account, frame.fundMicros));
      depositSeq = this.seq;
    }
    const holders = command.kind === CommandKind.ResolveMarket ? this.engine.holdersOf(command.market) : [];
    this.run(command);
    const commandSeq = this.seq;
    const applied = eventsToObjects(events);
    const resolved = holders.length > 0 && applied.some((event) => event.kind === 'MARKET' && event.seq === commandSeq && event.resolved);
    const redemptions: Redemption[] = resolved
      ? holders.map(({ account, sharesMicros }) => ({ seq: commandSeq, account, market: command.market, winner: command.outcome, sharesMicros }))
      : [];
    const credits: [string, number][] = [];
    if (depositSeq !== -1) {
      // A refused deposit (supply or account limit) leaves the funds with the treasury.
      if (applied.some((event) => event.kind === 'COMMAND_REJECTED' && event.seq === depositSeq)) credits.push([command.account, frame.fundMicros]);
      else this.addFunding(command.account, frame.fundMicros);
    }
    if (command.kind === CommandKind.AddMarket && applied.some((event) => event.kind === 'MARKET' && event.seq === commandSeq)) {
      this.marketKeys.push(frame.marketKey);
      this.marketByKey.set(frame.marketKey, market);
    }
    for (const [address, micros] of this.sweep(command, applied)) {
      this.addFunding(address, -micros);
      credits.push([address, micros]);
    }
    const swept = eventsToObjects(events, applied.length);
    for (const event of swept) applied.push(event);
    events.clear();
    return { requestId: frame.requestId, timeMs: command.timeMs, error: '', events: applied, credits, market, redemptions };
  }

  private run(command: Command): void {
    this.seq += 1;
    command.seq = this.seq;
    this.engine.execute(command);
  }

  private collateralCommand(kind: CommandKind, like: Command, account: string, amountMicros: number): Command {
    const internal = this.internal;
    internal.kind = kind;
    internal.timeMs = like.timeMs;
    internal.account = account;
    internal.amountMicros = amountMicros;
    return internal;
  }

  /** Withdraws every free collateral balance the frame's commands left, in event order. */
  private sweep(like: Command, applied: readonly EngineEvent[]): [string, number][] {
    const free = new Map<string, number>();
    for (const event of applied) {
      if (event.kind === 'BALANCE' && event.market === -1) free.set(event.account, event.freeMicros);
    }
    const credits: [string, number][] = [];
    for (const [address, micros] of free) {
      if (micros <= 0) continue;
      this.run(this.collateralCommand(CommandKind.Withdraw, like, address, micros));
      credits.push([address, micros]);
    }
    return credits;
  }

  private addFunding(address: string, micros: number): void {
    const next = (this.netFunding.get(address) ?? 0) + micros;
    if (next === 0) this.netFunding.delete(address);
    else this.netFunding.set(address, next);
  }
}
