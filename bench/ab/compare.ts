// The A/B verdict of one benchmark: per figure, the median of A's runs and of B's, B/A, each
// round's own B/A (the two runs of a round ran next to each other), and PASS or MISS against
// the goal that B keeps A's figures: B/A ≥ 0.95 where higher is better (throughputs), B/A ≤
// 1/0.95 where lower is better (times), so that a figure 5 % worse either way is a MISS.
import { format } from '../support/format.js';
import { median } from '../support/median.js';
import type { Better, Figure } from './figures.js';

/** The least share of A's figure that B keeps. */
export const KEEP_RATIO = 0.95;

export interface ComparedFigure {
  readonly name: string;
  readonly unit: string;
  readonly better: Better;
  readonly control: boolean;
  readonly medianA: number;
  readonly medianB: number;
  /** medianB / medianA; NaN when A's median is 0. */
  readonly ratio: number;
  /** B / A of each round's pair of runs. */
  readonly roundRatios: readonly number[];
  /** Undefined for controls and for figures whose ratio is not a number. */
  readonly pass: boolean | undefined;
}

export function keeps(ratio: number, better: Better): boolean {
  return better === 'higher' ? ratio >= KEEP_RATIO : ratio <= 1 / KEEP_RATIO;
}

/** `a[round]` and `b[round]`: the figures of each round's run of A and of B, rounds in order. */
export function compare(a: readonly (readonly Figure[])[], b: readonly (readonly Figure[])[]): ComparedFigure[] {
  if (a.length === 0 || a.length !== b.length) throw new Error(`A/B: ${a.length} runs of A and ${b.length} of B`);
  const valuesOf = (runs: readonly (readonly Figure[])[], name: string): number[] => runs.map((figures, round) => {
    const found = figures.find((figure) => figure.name === name);
    if (found === undefined) throw new Error(`A/B: round ${round + 1} has no figure "${name}"`);
    return found.value;
  });
  return a[0]!.map(({ name, unit, better, control }) => {
    const valuesA = valuesOf(a, name);
    const valuesB = valuesOf(b, name);
    const medianA = median(valuesA);
    const medianB = median(valuesB);
    const ratio = medianA === 0 ? Number.NaN : medianB / medianA;
    const roundRatios = valuesA.map((valueA, round) => (valueA === 0 ? Number.NaN : valuesB[round]! / valueA));
    const pass = control || Number.isNaN(ratio) ? undefined : keeps(ratio, better);
    return { name, unit, better, control, medianA, medianB, ratio, roundRatios, pass };
  });
}

/** A figure with about three significant digits. */
function formatValue(value: number): string {
  const magnitude = Math.abs(value);
  return format(value, magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3);
}

const formatRatio = (ratio: number): string => (Number.isNaN(ratio) ? '–' : format(ratio, 3));

const labelOf = (row: ComparedFigure): string => `${row.name} (${row.unit}, ${row.better})`;

function line(row: ComparedFigure, width: number): string {
  const verdict = row.pass === undefined ? '' : row.pass ? 'PASS' : 'MISS';
  return `  ${labelOf(row).padEnd(width)} ${formatValue(row.medianA).padStart(11)} ${formatValue(row.medianB).padStart(11)}` +
    `  ${formatRatio(row.ratio).padStart(6)}  ${verdict.padEnd(4)}  ${row.roundRatios.map(formatRatio).join(' ')}`;
}

/** Prints one benchmark's table: its own figures, then its controls. */
export function printComparison(benchmark: string, rows: readonly ComparedFigure[]): void {
  const width = Math.max(...rows.map((row) => labelOf(row).length));
  console.log(`${benchmark.padEnd(width + 2)} ${'A median'.padStart(11)} ${'B median'.padStart(11)}  ${'B/A'.padStart(6)}  goal  B/A by round`);
  for (const row of rows) if (!row.control) console.log(line(row, width));
  const controls = rows.filter((row) => row.control);
  if (controls.length === 0) return;
  console.log('  controls (not clobd\'s code, the same on both sides: their B/A is the machine\'s drift between the runs)');
  for (const row of controls) console.log(line(row, width));
}
