// What every read model of the front end shares (the books, market_data.ts; the accounts,
// account_data.ts): fed by the answers the shards commit (ShardObserver), and loaded whole from a
// shard when it starts or restarts. While a shard loads, its answers are held back; the load reads
// the shard's state as of an engine sequence number S, then the held answers are applied, each
// model skipping what S already holds. A load overtaken by a newer start gives up; a load that
// fails is tried again after RELOAD_DELAY_MS while the shard serves.
import type { FrameResult } from '../../engine/shard/core.js';
import type { Logger } from '../log.js';
import type { ShardObserver, ShardPool } from './shards.js';

/** Wait before loading a shard again after a failed load. */
const RELOAD_DELAY_MS = 500;

/** A shard's part of a model: what loading needs, besides the model's own state. */
export interface LoadedShard {
  /** Answers held back while the shard loads; undefined once loaded. */
  held: FrameResult[] | undefined;
  /** The engine sequence number the load reflects. */
  baseSeq: number;
  /** Bumped by every start, so a load overtaken by a newer start gives up. */
  generation: number;
}

export abstract class ShardModel<State extends LoadedShard, Snapshot extends { readonly seq: number }> implements ShardObserver {
  protected readonly shards: State[];
  private readonly waiting: (() => void)[] = [];

  constructor(protected readonly pool: ShardPool, protected readonly log: Logger, private readonly what: string, fresh: () => State) {
    this.shards = Array.from({ length: pool.count }, fresh);
  }

  /** Whether every shard is loaded. */
  loaded(): boolean {
    return this.shards.every((state) => state.held === undefined);
  }

  /** Whether the shard is loaded (its answers are applied as they come, not held). */
  shardLoaded(shard: number): boolean {
    return this.shards[shard]!.held === undefined;
  }

  /** Resolves once every shard is loaded (the server says it is ready after that). */
  whenLoaded(): Promise<void> {
    if (this.loaded()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  answered(shard: number, result: FrameResult): void {
    const state = this.shards[shard]!;
    if (state.held !== undefined) state.held.push(result);
    else this.apply(shard, state, result);
  }

  started(shard: number): void {
    const state = this.shards[shard]!;
    state.generation++;
    state.held = [];
    void this.load(shard, state, state.generation);
  }

  /** The shard's state as of its current sequence number (a worker read). */
  protected abstract read(shard: number): Promise<Snapshot>;
  /** Replaces the shard's part of the model with `snapshot`; returns what the log says of it. */
  protected abstract restore(shard: number, state: State, snapshot: Snapshot): Record<string, number>;
  /** Applies one committed answer, skipping what the shard's load already holds. */
  protected abstract apply(shard: number, state: State, result: FrameResult): void;
  /** After a load, before the held answers are applied (the books tell their followers). */
  protected restored(_state: State): void {}

  private async load(shard: number, state: State, generation: number): Promise<void> {
    try {
      const snapshot = await this.read(shard);
      if (state.generation !== generation) return;
      const figures = this.restore(shard, state, snapshot);
      state.baseSeq = snapshot.seq;
      const held = state.held ?? [];
      state.held = undefined;
      this.restored(state);
      for (const result of held) this.apply(shard, state, result);
      this.log.info(`${this.what} loaded`, { shard, ...figures, seq: snapshot.seq });
      if (this.loaded()) for (const resolve of this.waiting.splice(0)) resolve();
    } catch (error) {
      if (state.generation !== generation) return;
      this.log.warn(`${this.what} load failed; retrying`, { shard, error: error instanceof Error ? error.message : String(error) });
      setTimeout(() => {
        if (state.generation === generation && this.pool.isReady(shard)) void this.load(shard, state, generation);
      }, RELOAD_DELAY_MS).unref();
    }
  }
}
