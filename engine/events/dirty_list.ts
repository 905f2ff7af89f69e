// What one command touched (price levels, balances) and the values they had before it, so the
// engine emits one event per changed item at the end of the command, in the order the command
// first touched them, instead of one per intermediate step. An item is a pair of small integers
// (for a level: market and side, then price; for a balance: account, then asset), plus a
// reference the owner uses to read the current value. Owners mark items with the current
// `stamp` to record each item once per command without a lookup; clearing bumps the stamp,
// which unmarks everything at once.
//
// First-touch order is as deterministic as the commands; putting the items in key order instead
// (an insertion sort at the end of every command) cost ~3 % of the fast flow. The columns are
// public so the end of the command reads them in one tight loop.
import { assert } from '../assert.js';

export class DirtyList {
  /** Items whose stamp equals this were already recorded in the current command. */
  stamp = 1;
  /** Items recorded in the current command. */
  length = 0;
  /** The item's pair. */
  firsts: Int32Array;
  seconds: Int32Array;
  refs: Int32Array;
  startsA: Float64Array;
  startsB: Float64Array;

  constructor(initialCapacity: number) {
    assert(Number.isInteger(initialCapacity) && initialCapacity > 0, 'dirty list capacity');
    this.firsts = new Int32Array(initialCapacity);
    this.seconds = new Int32Array(initialCapacity);
    this.refs = new Int32Array(initialCapacity);
    this.startsA = new Float64Array(initialCapacity);
    this.startsB = new Float64Array(initialCapacity);
  }

  /**
   * Records an item (its key pair and its owner's reference) and returns its index, where the
   * caller writes the item's values before the command into `startsA` and `startsB`. They are not
   * arguments: a balance past the small-integer range is boxed into a new heap number to cross a
   * call TurboFan did not inline, and in some compilations of the engine it did not inline this
   * one (V8's sampling heap profiler: ~11 bytes a command of the deep flow).
   */
  add(first: number, second: number, ref: number): number {
    const index = this.length;
    if (index === this.firsts.length) this.grow();
    this.firsts[index] = first;
    this.seconds[index] = second;
    this.refs[index] = ref;
    this.length = (index + 1) | 0;
    return index;
  }

  /** Forgets every item and starts a new command. */
  clear(): void {
    this.length = 0;
    this.stamp += 1;
  }

  private grow(): void {
    const capacity = this.firsts.length * 2;
    this.firsts = grown(this.firsts, new Int32Array(capacity));
    this.seconds = grown(this.seconds, new Int32Array(capacity));
    this.refs = grown(this.refs, new Int32Array(capacity));
    this.startsA = grown(this.startsA, new Float64Array(capacity));
    this.startsB = grown(this.startsB, new Float64Array(capacity));
  }
}

function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
