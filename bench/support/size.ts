// The size a benchmark script runs at, from its command line: `--quick` is the small run CI does
// so no benchmark rots; `--smoke` is smaller still, every part run once on little data, for
// harnesses that run a benchmark many times only to see that it works (the A/B harness's quick
// mode, bench/ab.ts); neither is the full run, whose figures are the ones a goal is judged on.
export type BenchSize = 'smoke' | 'quick' | 'full';

export function sizeOf(argv: readonly string[]): BenchSize {
  if (argv.includes('--smoke')) return 'smoke';
  return argv.includes('--quick') ? 'quick' : 'full';
}

/** The flag that asks a benchmark script for `size` (none for the full run). */
export function sizeFlags(size: BenchSize): string[] {
  return size === 'full' ? [] : [`--${size}`];
}
