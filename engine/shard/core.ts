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
// keeps `netFunding` = funded − swept, part of its state (in its snapshots, and rebuilt by
// replaying the journal: the frames carry the funding); the treasury's free balance of
// an address is its external deposits − withdrawals − Σ over shards of netFunding, which is how
// it is rebuilt after a crash, whatever was in flight.
//
// Markets: the front end names a market by its key (condition id) in AddMarket; the shard gives
// it the next engine index and answers it. Other frames name the engine index.
import { Command, CommandKind } from '../command.js';
import { Engine } from '../engine.js';
import type { BalanceEvent, EngineEvent } from '../events/event_objects.js';
import { EventKind, Field, MARKET_RESOLVED, Text, type EventBuffer } from '../events/events.js';
import type { EngineSnapshot } from '../state/snapshot.js';
import type { EngineOptions } from '../state/state.js';
import type { Frame } from './frame.js';
import type { ShardBalances } from './protocol.js';

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

/**
 * What the worker learns from applying one frame, besides its events, which are the rows of the
 * engine's event buffer (`ShardCore.events`) until the next frame is applied: no event becomes
 * an object on the worker.
 */
export interface FrameOutcome {
  readonly requestId: number;
  /** The command's time (ms): when its fills happened. */
  readonly timeMs: number;
  /** Why the runtime refused the frame before the engine saw it ('' when it did not). */
  readonly error: string;
  /** Collateral swept back to the treasury: [address, micros] pairs. */
  readonly credits: [string, number][];
  /** AddMarket: the market's engine index. */
  readonly market: number;
  /** AddMarket: the market's key ('' otherwise): a replica learns its markets from the answers. */
  readonly marketKey: string;
  /**
   * The collateral the frame brought into the shard (its fundMicros) and whose it is ('' and 0
   * when none): a replica's treasury follows the shard's funding from the answers.
   */
  readonly fundedAccount: string;
  readonly fundedMicros: number;
  /** ResolveMarket: every holder's shares as the market resolved. */
  readonly redemptions: Redemption[];
}

/** One frame's answer as the front end reads it: the outcome and its events, BALANCE events apart. */
export interface FrameResult extends FrameOutcome {
  /** Every event but BALANCE, in the engine's order. */
  readonly events: EngineEvent[];
  /** The BALANCE events, in the engine's order (absolute values: the last one of a balance is its value). */
  readonly balances: BalanceEvent[];
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

/** An outcome that changed nothing: a refusal (`error`) or an AddMarket of a known key. */
export function emptyOutcome(requestId: number, timeMs: number, error: string, market = -1): FrameOutcome {
  return { requestId, timeMs, error, credits: [], market, marketKey: '', fundedAccount: '', fundedMicros: 0, redemptions: [] };
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
  /** The sweep's free balance per address, reused from frame to frame. */
  private readonly sweepFree = new Map<string, number>();

  constructor(options: EngineOptions, snapshot?: { engine: EngineSnapshot; core: CoreState }) {
    this.engine = snapshot === undefined
      ? new Engine(options)
      : Engine.restore(snapshot.engine, { verify: options.verify ?? false, orderHistory: options.orderHistory, hashSeed: options.hashSeed });
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

  /** The engine's invariants (checked, O(state)) and its collateral, as the data directory's check needs them. */
  balances(): ShardBalances {
    let invariantError = '';
    try {
      this.engine.checkInvariants();
    } catch (error) {
      invariantError = error instanceof Error ? error.message : String(error);
    }
    return { invariantError, supplyMicros: this.engine.stats().supplyMicros, netFunding: [...this.netFunding] };
  }

  /** The events of the frame applied last (rows [0, count)). */
  get events(): EventBuffer {
    return this.engine.events;
  }

  /**
   * Applies one frame; `frame.command` is consumed (its seq is overwritten). Its events stay in
   * `events` until the next frame is applied.
   */
  apply(frame: Frame): FrameOutcome {
    const command = frame.command;
    const events = this.engine.events;
    events.clear();
    if (!isFrontEndKind(command.kind) || !(frame.fundMicros >= 0 && Number.isSafeInteger(frame.fundMicros))) {
      return emptyOutcome(frame.requestId, command.timeMs, 'the front end may not send this frame');
    }
    let market = -1;
    if (command.kind === CommandKind.AddMarket) {
      const known = this.marketByKey.get(frame.marketKey);
      if (known !== undefined) return { ...emptyOutcome(frame.requestId, command.timeMs, '', known), marketKey: frame.marketKey };
      market = this.marketKeys.length;
      command.market = market;
    }
    let depositSeq = -1;
    if (frame.fundMicros > 0) {
      this.run(this.collateralCommand(CommandKind.Deposit, command, command.account, frame.fundMicros));
      depositSeq = this.seq;
    }
    const holders = command.kind === CommandKind.ResolveMarket ? this.engine.holdersOf(command.market) : [];
    const commandFrom = events.count;
    this.run(command);
    const commandSeq = this.seq;
    const commandTo = events.count;
    const marketEvent = findRow(events, commandFrom, commandTo, EventKind.MARKET);
    const resolved = holders.length > 0 && marketEvent !== -1 && (events.get(marketEvent, Field.flags) & MARKET_RESOLVED) !== 0;
    const redemptions: Redemption[] = resolved
      ? holders.map(({ account, sharesMicros }) => ({ seq: commandSeq, account, market: command.market, winner: command.outcome, sharesMicros }))
      : [];
    const credits: [string, number][] = [];
    if (depositSeq !== -1) {
      // A refused deposit (supply or account limit) leaves the funds with the treasury.
      if (findRow(events, 0, commandFrom, EventKind.COMMAND_REJECTED) !== -1) credits.push([command.account, frame.fundMicros]);
      else this.addFunding(command.account, frame.fundMicros);
    }
    if (command.kind === CommandKind.AddMarket && marketEvent !== -1) {
      this.marketKeys.push(frame.marketKey);
      this.marketByKey.set(frame.marketKey, market);
    }
    this.sweep(command, commandTo, credits);
    return {
      requestId: frame.requestId, timeMs: command.timeMs, error: '', credits, market,
      marketKey: command.kind === CommandKind.AddMarket ? frame.marketKey : '',
      fundedAccount: frame.fundMicros > 0 ? command.account : '', fundedMicros: frame.fundMicros, redemptions,
    };
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

  /**
   * Withdraws every free collateral balance the frame's commands left (rows [0, to)), in the
   * order of each address's first BALANCE event, and adds what it swept to `credits`.
   */
  private sweep(like: Command, to: number, credits: [string, number][]): void {
    const events = this.engine.events;
    const free = this.sweepFree;
    free.clear();
    for (let row = 0; row < to; row++) {
      if (events.kindOf(row) === EventKind.BALANCE && events.get(row, Field.market) === -1) {
        free.set(events.text(row, Text.account), events.get(row, Field.freeMicros));
      }
    }
    for (const [address, micros] of free) {
      if (micros <= 0) continue;
      this.run(this.collateralCommand(CommandKind.Withdraw, like, address, micros));
      this.addFunding(address, -micros);
      credits.push([address, micros]);
    }
  }

  private addFunding(address: string, micros: number): void {
    const next = (this.netFunding.get(address) ?? 0) + micros;
    if (next === 0) this.netFunding.delete(address);
    else this.netFunding.set(address, next);
  }
}

/** The first row of `kind` in [from, to), or -1. */
function findRow(events: EventBuffer, from: number, to: number, kind: EventKind): number {
  for (let row = from; row < to; row++) if (events.kindOf(row) === kind) return row;
  return -1;
}
