// The Node options the server runs with: `npm start` passes them (package.json's start script;
// a test keeps the two equal), and the benchmarks give them to every server they start, so what
// they measure is what `npm start` runs.
//
// --v8-pool-size=1: V8's background threads for concurrent marking, parallel scavenges and
// compilation, 4 by default. Under load clobd's own threads already fill the cores (the front
// end, one matching worker per core, the signature pool), and more helpers only take turns with
// them. On the 2-core development machine, `POST /order` (bench/orders, SHARDS=1, four pairs of
// full runs) placed ~8 % more orders/s with one, and p99 at half load was lower in seven of the
// eight pairs; the durable closed loop was unchanged. On a large machine with spare cores, raise
// it (or drop it) by running `node --v8-pool-size=N dist/http/main.js`.
//
// --max-inlined-bytecode-size-cumulative=10000 and --max-inlined-bytecode-size-absolute=20000: how
// much bytecode TurboFan may inline into one optimized function (920 and 4 600 by default). A
// command's path through the engine (execute, placement, matching, the ledger, the event rows) is
// many small functions, and with the default budget the optimized code of `execute` still called
// a dozen of them. A cumulative budget of 3 000 ran engine replays (ABBA, 4 pairs of 2·10^6
// commands, bench/engine/README.md) fast +10.7 %, normal +17.1 % and deep +19.0 %; past ~4 600
// the absolute cap decided instead, so 6 000 alone measured no better. Raising both, against
// 3 000: deep +9.6 % and +14.2 % (ahead in 5 of 6 and 4 of 4 rounds), fast +5.4 %, +4 % and +3.3 %
// (3 of 6, 2 of 2, 3 of 4). 10 000 / 20 000 measured no better then, and --min-inlining-frequency=0
// beside it was mixed (deep 0.98×). Counted later with the engine profile's exact window
// (bench/engine/profile/instructions.sh), 10 000 / 20 000 took 4 % off the deep flow's
// instructions a command and 3 % off the normal one's, the fast flow level; two alternating
// full engine runs each ran the worst flow faster with it (1.87 and 2.00 M cmd/s against 1.80 and
// 1.57 M), and quick POST /order and durable runs showed no warm-up cost beyond their noise. The
// engine runs in the server's worker threads, which share the process's V8 options, so the
// engine benchmark runs with these options too. The price is a slower warm-up (larger functions
// take longer to optimize): with 3 000, bench/durable's 10-second quick runs measured 44–55 k
// durable cmd/s through the runtime against 60–74 k without it (3 pairs), while its full runs
// measured the same (4 pairs, 90–106 k against 88–102 k), as did the POST /order peak.
export const SERVER_NODE_FLAGS: readonly string[] = [
  '--v8-pool-size=1', '--max-inlined-bytecode-size-cumulative=10000', '--max-inlined-bytecode-size-absolute=20000',
];
