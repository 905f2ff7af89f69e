// What a market traded, as the catalog shows it (volume, volume24hr): the front end's copy of the
// shard's market-volume record (engine/shard/feed_tables.ts), kept as fills arrive. Each fill
// counts once, at the taker's price (collateral micros). The last VOLUME_HOURS hours are kept by
// the hour in a ring, so the last day's volume is a sum of 24 numbers whatever the trades, and no
// read walks a fill.
import { HOUR_MS, VOLUME_HOURS } from '../../engine/shard/feed_tables.js';

export class TradedVolume {
  /** Every fill's, in collateral micros. */
  totalMicros = 0;
  /** Per slot (unix hour mod VOLUME_HOURS): the unix hour it holds, -1 when none. */
  private readonly hours = new Float64Array(VOLUME_HOURS).fill(-1);
  private readonly micros = new Float64Array(VOLUME_HOURS);

  /** A fill of `micros` at `timeMs` (the command's time). */
  add(micros: number, timeMs: number): void {
    this.totalMicros += micros;
    this.addToHour(Math.floor(timeMs / HOUR_MS), micros);
  }

  /** Replaces everything with a shard's record ([in all, then (hour, micros) pairs]); null: nothing traded. */
  load(value: readonly number[] | null): void {
    this.totalMicros = value?.[0] ?? 0;
    this.hours.fill(-1);
    this.micros.fill(0);
    if (value === null) return;
    for (let at = 1; at + 1 < value.length; at += 2) this.addToHour(value[at]!, value[at + 1]!);
  }

  /**
   * What traded in the clock hour (UTC) of `nowMs` and the VOLUME_HOURS - 1 hours before it: a
   * window of 23 to 24 hours, moving on by the hour.
   */
  lastDayMicros(nowMs: number): number {
    const oldest = Math.floor(nowMs / HOUR_MS) - VOLUME_HOURS + 1;
    let sum = 0;
    for (let slot = 0; slot < VOLUME_HOURS; slot++) if (this.hours[slot]! >= oldest) sum += this.micros[slot]!;
    return sum;
  }

  private addToHour(hour: number, micros: number): void {
    const slot = hour % VOLUME_HOURS;
    const held = this.hours[slot]!;
    if (held === hour) {
      this.micros[slot]! += micros;
    } else if (held < hour) {
      this.hours[slot] = hour;
      this.micros[slot] = micros;
    }
    // Otherwise the fill is a day older than what the slot holds: outside every window from now on.
  }
}
