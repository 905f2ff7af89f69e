// The big-taker benchmark: one signed taker order over HTTP that fills 100 000 resting orders,
// end to end (POST /order sent, its answer's body read), next to the same 100 000 fills arriving
// as 100 takers of 1 000 fills each, sent one after another, each waiting for its answer. The
// one taker's answer is the long kind that travels from the matching worker in fragments
// (engine/shard/answer_stream.ts); the hundred are each one frame. Each case runs on a fresh
// server in a process of its own (bigfill/taker_case.ts) with the server's Node options, and the
// case that goes first alternates from round to round.
//
//   node dist/bench/bigfill.js            full: 100 000 fills, 100 takers of 1 000, 3 rounds
//   node dist/bench/bigfill.js --quick    10 000 fills, 10 takers of 1 000, one round
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../http/node_flags.js';
import type { CaseReport } from './bigfill/taker_case.js';
import { abortOnSignals, runScriptForReport } from './support/child.js';
import { format } from './support/format.js';
import { median } from './support/median.js';

interface Sizes {
  readonly fills: number;
  readonly takers: number;
  readonly rounds: number;
}

const QUICK: Sizes = { fills: 10_000, takers: 10, rounds: 1 };
const FULL: Sizes = { fills: 100_000, takers: 100, rounds: 3 };

const casePath = fileURLToPath(new URL('./bigfill/taker_case.js', import.meta.url));

async function runCase(fills: number, takers: number, signal: AbortSignal): Promise<CaseReport> {
  const report = (await runScriptForReport({ script: casePath, args: [String(fills), String(takers)], nodeFlags: SERVER_NODE_FLAGS, signal })) as CaseReport;
  if (report.suite !== 'bigfill-case') throw new Error(`not a case report: ${JSON.stringify(report).slice(0, 200)}`);
  return report;
}

const megabytes = (bytes: number): string => `${format(bytes / 2 ** 20)} MiB`;

function describeCase(name: string, reports: readonly CaseReport[]): string {
  const seconds = reports.map((report) => report.seconds);
  const last = reports[reports.length - 1]!;
  const perTakerMs = reports.flatMap((report) => report.takerMs);
  const perTaker = last.takers === 1 ? '' : `, a taker p50 ${format(median(perTakerMs), 1)} ms, max ${format(Math.max(...perTakerMs), 1)} ms`;
  return `  ${name.padEnd(24)} median ${format(median(seconds), 3)} s  (rounds: ${seconds.map((value) => format(value, 3)).join(', ')} s${perTaker})` +
    `\n  ${''.padEnd(24)} HTTP answer${last.takers === 1 ? '' : 's'} ${format(last.answerBytes)} bytes` +
    `, process RSS ${megabytes(median(reports.map((report) => report.rssBeforeBytes)))} before, peak ${megabytes(median(reports.map((report) => report.rssPeakBytes)))} while it ran` +
    `; ${format(last.fills)} resting orders placed in ${format(median(reports.map((report) => report.restSeconds)), 1)} s`;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const sizes = quick ? QUICK : FULL;
  const { fills, takers, rounds } = sizes;
  const perTaker = fills / takers;
  const stopped = abortOnSignals();
  const one: CaseReport[] = [];
  const split: CaseReport[] = [];
  for (let round = 0; round < rounds; round++) {
    const cases = [
      () => runCase(fills, 1, stopped).then((report) => one.push(report)),
      () => runCase(fills, takers, stopped).then((report) => split.push(report)),
    ];
    for (const run of round % 2 === 0 ? cases : cases.reverse()) await run();
  }
  const ratio = median(one.map((report) => report.seconds)) / median(split.map((report) => report.seconds));
  console.log(`clobd big-taker benchmark (${quick ? 'quick' : 'full'}), node ${process.version}: ${format(fills)} resting BUYs at 0.01 filled over HTTP` +
    ` (signed FAK BUYs at 0.99, L2-authenticated, each answer's body read), SHARDS=1, a fresh server per case, ${rounds} round${rounds === 1 ? '' : 's'}`);
  console.log(describeCase(`one taker of ${format(fills)}`, one));
  console.log(describeCase(`${format(takers)} takers of ${format(perTaker)}`, split));
  console.log(`  one taker / ${format(takers)} takers: ${format(ratio, 2)}× the time`);
}

await main();
