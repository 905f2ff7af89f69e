// The isolation benchmark's rows and the Markdown table they print as (pasted as is into
// bench/README.md). The goal of issue 39 is judged per row, never asserted: PASS when the
// victim's p99 is at most GOAL_RATIO times its baseline's p99 and every one of its requests was
// answered 200 (a victim refused with 429, or left unanswered, is starved however fast its
// refusals come back).
import { format } from '../support/format.js';
import type { AttackReport } from './attacker.js';
import type { VictimFigures } from './victim.js';

export const GOAL_RATIO = 2;

export interface Row {
  readonly pattern: string;
  /** 'one', 'many (32)', or '' for a phase without an attacker. */
  readonly addresses: string;
  readonly victim: VictimFigures;
  /** The p99 of the baseline this row is judged against; undefined for a baseline itself. */
  readonly baselineP99Ms: number | undefined;
  readonly attack: AttackReport | undefined;
  /** CPU seconds the server process used during the phase (all its threads). */
  readonly serverCpuSeconds: number;
  /** Why the row is not what it says (an attacker that failed, a variant that could not run). */
  readonly note?: string;
}

/** Requests of the victim that fell due: written, or skipped because its backlog was full. */
function due(victim: VictimFigures): number {
  return victim.sent + victim.skipped;
}

function answeredOk(victim: VictimFigures): number {
  return victim.statusCounts['200'] ?? 0;
}

export function ratioOf(row: Row): number | undefined {
  if (row.baselineP99Ms === undefined) return undefined;
  return row.victim.latency.p99Ms / Math.max(row.baselineP99Ms, 0.001);
}

/** PASS or MISS against the goal; undefined for a baseline, and for a row whose attacker did not run. */
export function verdictOf(row: Row): 'PASS' | 'MISS' | undefined {
  const ratio = ratioOf(row);
  if (ratio === undefined || due(row.victim) === 0 || row.attack?.failure !== undefined) return undefined;
  return ratio <= GOAL_RATIO && answeredOk(row.victim) === due(row.victim) ? 'PASS' : 'MISS';
}

function milliseconds(value: number): string {
  return `${format(value, value < 100 ? 1 : 0)} ms`;
}

function retryAfterOf(report: AttackReport): string {
  const { refused, retryAfter } = report.counts;
  if (refused === 0) return '–';
  if (retryAfter === refused) return 'all';
  if (retryAfter === 0) return 'none';
  return `${format(retryAfter)} of ${format(refused)}`;
}

function listed(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts).sort(([, a], [, b]) => b - a);
  return entries.length === 0 ? '–' : entries.map(([what, count]) => `${what} ×${format(count)}`).join(', ');
}

function closesOf(report: AttackReport): string {
  const { closes, closeCodes } = report.counts;
  const codes = Object.keys(closeCodes).length === 0 ? '' : ` (${listed(closeCodes)})`;
  return `${format(closes)}${codes}`;
}

function attackerColumns(row: Row): string[] {
  const report = row.attack;
  if (report === undefined) return ['–', '–', '–', '–', '–'];
  if (report.failure !== undefined) return ['failed', '–', '–', '–', '–'];
  const seconds = Math.max(report.durationMs, 1) / 1000;
  const { ok, sent, refused, errors } = report.counts;
  const other = errors === 0 ? report.counts.other : { ...report.counts.other, 'socket error': errors };
  return [
    `${format(ok)} of ${format(sent)} (${format(ok / seconds)}/s)`, format(refused), retryAfterOf(report), listed(other), closesOf(report),
  ];
}

function victimOk(victim: VictimFigures): string {
  const lost = due(victim) - victim.answered;
  return `${format(answeredOk(victim))} / ${format(due(victim))}${lost > 0 ? ` (${format(lost)} unanswered)` : ''}`;
}

const HEADER = [
  'pattern', 'attacker addresses', 'victim p50', 'victim p99', 'p99 / baseline p99', 'victim 200 / due',
  'attacker ok of sent', 'attacker 429', 'Retry-After', 'other refusals', 'closes', 'goal ≤ 2×',
];

export function tableOf(rows: readonly Row[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, index) => (index >= 2 && index <= 5 ? '---:' : '---')).join('|')}|`];
  for (const row of rows) {
    const ratio = ratioOf(row);
    const cells = [
      row.pattern, row.addresses === '' ? '–' : row.addresses, milliseconds(row.victim.latency.p50Ms), milliseconds(row.victim.latency.p99Ms),
      ratio === undefined ? 'baseline' : `${format(ratio, 2)}×`, victimOk(row.victim), ...attackerColumns(row), verdictOf(row) ?? '–',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The notes under the table: every row's note and attacker failure, numbered by row. */
export function notesOf(rows: readonly Row[]): string[] {
  const notes: string[] = [];
  for (const row of rows) {
    const label = `${row.pattern}${row.addresses === '' ? '' : `, ${row.addresses}`}`;
    if (row.note !== undefined) notes.push(`${label}: ${row.note}`);
    if (row.attack?.failure !== undefined) notes.push(`${label}: ${row.attack.failure}`);
    if (row.attack?.counts.exhausted === true) notes.push(`${label}: the attacker used up its signed requests before the phase ended`);
  }
  return notes;
}
