// The A/B harness: the durable runtime benchmark and the engine benchmark of a baseline git ref
// (A) and of this tree (B), run alternately, each run in a child process of its own with its
// side's server Node options (http/node_flags.ts), then per figure the median of A, the median of
// B, B/A and whether B keeps A's figure (compare.ts). The issue of answers of any size (e49e360
// and after) asks that both benchmarks keep their figures within 0.95× of the code before it,
// 978801b, the default ref.
//
//   npm run bench -- ab [--ref=978801b] [--rounds=3]   full sizes (about 15 minutes a round here)
//   npm run bench -- ab --quick                        one round at the benchmarks' smoke sizes (~30 s)
//
// Fairness: both sides run this tree's benchmark code (baseline_tree.ts), so the flows and sizes
// are the same and only the code under test differs; a round runs both sides of a benchmark next
// to each other, and the side that goes first alternates from round to round (A B, then B A), so
// neither always runs on a machine the other just warmed or loaded; every run is a fresh process
// started the same way. B runs from this tree's dist/, which `npm run bench` builds first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { addBaselineTree, harnessChanges, prepareBaselineTree, runTool, HARNESS_PATHS } from './ab/baseline_tree.js';
import { compare, KEEP_RATIO, printComparison, type ComparedFigure } from './ab/compare.js';
import { faultsOf } from './ab/faults.js';
import { figuresOf, type Figure } from './ab/figures.js';
import { abortOnSignals, runScriptForReport } from './support/child.js';
import { format } from './support/format.js';
import { sizeFlags, type BenchSize } from './support/size.js';

/** The code before the issue of answers of any size. */
const DEFAULT_REF = '978801b';
const ROUNDS_FULL = 3;

interface Side {
  readonly label: 'A' | 'B';
  readonly root: string;
  readonly nodeFlags: readonly string[];
}

const BENCHMARKS = [
  { name: 'durable', script: 'dist/bench/durable.js' },
  { name: 'engine', script: 'dist/bench/engine/run.js' },
] as const;

type Runs = Record<'A' | 'B', Figure[][]>;

/** The server's Node options as the side's own build defines them. */
async function nodeFlagsOf(root: string): Promise<readonly string[]> {
  const module = (await import(pathToFileURL(join(root, 'dist/http/node_flags.js')).href)) as { SERVER_NODE_FLAGS: readonly string[] };
  return module.SERVER_NODE_FLAGS;
}

function readOptions(): { ref: string; rounds: number; size: BenchSize } {
  const { values } = parseArgs({
    options: { ref: { type: 'string', default: DEFAULT_REF }, rounds: { type: 'string' }, quick: { type: 'boolean', default: false } },
  });
  const rounds = Number(values.rounds ?? (values.quick ? 1 : ROUNDS_FULL));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number of at least 1, got ${values.rounds}`);
  return { ref: values.ref, rounds, size: values.quick ? 'smoke' : 'full' };
}

interface Rounds {
  readonly runs: Map<string, Runs>;
  /** Runs whose figures are unfit to judge by (faults.ts), one line each. */
  readonly faults: string[];
}

async function runRounds(sides: readonly [Side, Side], rounds: number, size: BenchSize, signal: AbortSignal): Promise<Rounds> {
  const runs = new Map<string, Runs>(BENCHMARKS.map(({ name }) => [name, { A: [], B: [] }]));
  const faults: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [sides[1], sides[0]];
    for (const benchmark of BENCHMARKS) {
      for (const side of order) {
        const started = performance.now();
        const report = await runScriptForReport({
          script: join(side.root, benchmark.script), args: ['--json', ...sizeFlags(size)], nodeFlags: side.nodeFlags, signal,
        });
        runs.get(benchmark.name)![side.label].push(figuresOf(report));
        const run = `round ${round + 1} of ${rounds}, ${benchmark.name}, ${side.label}`;
        for (const fault of faultsOf(report)) faults.push(`${run}: ${fault}`);
        process.stderr.write(`ab: ${run}: ${format((performance.now() - started) / 1000, 1)} s\n`);
      }
    }
  }
  return { runs, faults };
}

function printSummary(rows: readonly ComparedFigure[], faults: readonly string[]): void {
  for (const fault of faults) console.log(`FAULT ${fault}`);
  const judged = rows.filter((row) => row.pass !== undefined);
  const kept = judged.filter((row) => row.pass === true).length;
  console.log(`B keeps ${kept} of ${judged.length} figures (B/A ≥ ${KEEP_RATIO} where higher is better, ≤ ${format(1 / KEEP_RATIO, 3)} where lower is)` +
    (faults.length === 0 ? '' : `; but see the ${faults.length} fault${faults.length === 1 ? '' : 's'} above: those runs' figures are not the code's`));
}

async function main(): Promise<void> {
  const { ref, rounds, size } = readOptions();
  const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
  if (!existsSync(join(repoRoot, BENCHMARKS[0].script))) throw new Error('no build of this tree: run it as `npm run bench -- ab`');
  const tree = addBaselineTree(repoRoot, ref);
  // The worktree goes however this process ends, but for SIGKILL (then `git worktree prune`).
  process.once('exit', () => tree.remove());
  const stopped = abortOnSignals();
  const started = performance.now();
  try {
    process.stderr.write(`ab: building ${ref} in ${tree.root}\n`);
    prepareBaselineTree(repoRoot, tree);
    const sides = [
      { label: 'A', root: tree.root, nodeFlags: await nodeFlagsOf(tree.root) },
      { label: 'B', root: repoRoot, nodeFlags: await nodeFlagsOf(repoRoot) },
    ] as const satisfies readonly [Side, Side];
    const { runs, faults } = await runRounds(sides, rounds, size, stopped);
    const head = runTool('git', ['rev-parse', '--short', 'HEAD'], repoRoot);
    const dirty = runTool('git', ['status', '--porcelain', '--untracked-files=no'], repoRoot) !== '';
    const changes = harnessChanges(repoRoot, tree.commit);
    console.log(`A/B of the durable and engine benchmarks (${size} sizes, ${rounds} round${rounds === 1 ? '' : 's'}, the first side alternating), node ${process.version}`);
    console.log(`  A: ${ref} (${tree.commit.slice(0, 12)}), node ${sides[0].nodeFlags.join(' ')}`);
    console.log(`  B: this tree (${head}${dirty ? ' and uncommitted changes' : ''}), node ${sides[1].nodeFlags.join(' ')}`);
    console.log(`  both sides ran this tree's ${HARNESS_PATHS.join(', ')}` +
      (changes.length === 0 ? `, the same as ${ref}'s` : `; it differs from ${ref}'s in ${changes.join(', ')}`));
    const all: ComparedFigure[] = [];
    for (const [name, { A, B }] of runs) {
      const rows = compare(A, B);
      printComparison(name, rows);
      all.push(...rows);
    }
    printSummary(all, faults);
    console.log(`(${format((performance.now() - started) / 60_000, 1)} minutes)`);
  } finally {
    tree.remove();
  }
}

await main();
