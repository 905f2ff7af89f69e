// This process's resident memory from /proc (Linux): now, and its peak since a reset, so that a
// benchmark can report what one phase of it took at most.
import { readFileSync, writeFileSync } from 'node:fs';

function statusBytes(field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  if (match === null) throw new Error(`no ${field} in /proc/self/status`);
  return Number(match[1]) * 1024;
}

export function residentBytes(): number {
  return statusBytes('VmRSS');
}

/** The most resident memory since the last resetPeakResident (or the start). */
export function peakResidentBytes(): number {
  return statusBytes('VmHWM');
}

/** Sets the peak to the current resident memory (clear_refs 5, Linux 4.0 and later). */
export function resetPeakResident(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}
