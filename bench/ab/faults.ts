// What makes a run's figures unfit to judge by: a durable run that failed commands, answered one
// otherwise than the oracle engine, or restarted to another state did other work than a clean
// run, so its speed says nothing about the code's. The engine benchmark checks its flows itself.
import type { DurableReport } from '../durable.js';

export function faultsOf(report: unknown): string[] {
  if ((report as { suite?: unknown } | null)?.suite !== 'durable') return [];
  const { shards, restarts } = report as DurableReport;
  const faults: string[] = [];
  for (const { shards: count, peak, latency } of shards) {
    for (const [phase, load] of [['peak', peak], ['latency', latency]] as const) {
      if (load.failures > 0) faults.push(`SHARDS=${count} ${phase}: ${load.failures} failed commands`);
      if (load.rejectionMismatches > 0) faults.push(`SHARDS=${count} ${phase}: ${load.rejectionMismatches} answers unlike the oracle's`);
    }
  }
  for (const { mode, fill, hashEqual } of restarts) {
    if (fill.failures > 0 || fill.rejected > 0) faults.push(`restart (${mode}): the fill had ${fill.failures} failures, ${fill.rejected} answers unlike the oracle's`);
    if (!hashEqual) faults.push(`restart (${mode}): the state hash differs after recovery`);
  }
  return faults;
}
