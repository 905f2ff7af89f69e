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
// --max-inlined-bytecode-size-cumulative=50000 and --max-inlined-bytecode-size-absolute=100000: how
// much bytecode TurboFan may inline into one optimized function (920 and 4 600 by default). A
// command's path through the engine (execute, placement, matching, the ledger, the event rows) is
// many small functions, and while the budget ran out TurboFan left some of them as calls: which
// ones depended on the call counts it saw when it compiled, so the same build compiled well in one
// process and badly in the next (deep-flow replays of one build, 1.9 M cmd/s in one process and
// 2.5 M in another, each steady over four passes), and a call left out that carried a time was
// boxed into a new heap number every command. With 10 000 / 20 000 a deterministic compilation
// (--single-threaded, fixed seeds) still stopped with 21 candidates of the cancel path left: the
// accessors of the order table, EventBuffer.pushProgress, the id index's remove. The engine
// profile's window (bench/engine/profile/instructions.sh), instructions a command, all code:
//
//   cumulative / absolute   deep    normal  fast
//   10 000 / 20 000         3 172   4 089   4 668
//   15 000 / 30 000         2 870   4 100   4 346
//   30 000 / 60 000         2 610   3 331   3 865
//   50 000 / 100 000        2 615   3 251   3 711   (100 000 / 200 000 counts the same: nothing
//                                                    the engine calls is left for the budget)
//
// Two alternating pairs of full engine runs (bench/engine/HISTORY.md) ran every flow faster with
// 50 000, the worst flow 2.06 and 2.27 M cmd/s against 1.75 and 1.74 M; bench/durable's full run
// measured the same (SHARDS=1 85.2 k against 85.8 k cmd/s, SHARDS=2 61.8 k against 61.1 k). The
// price is warm-up: the engine's largest function takes ~190 ms to optimize on the background
// thread instead of ~40 ms, so a 10-second `bench/durable --quick` ran its 20 000-command engine
// pass at 160 k cmd/s instead of 884 k, and a server's first fraction of a second of orders runs
// in slower code. The engine runs in the server's worker threads, which share the process's V8
// options, so the engine benchmark runs with these options too.
export const SERVER_NODE_FLAGS: readonly string[] = [
  '--v8-pool-size=1', '--max-inlined-bytecode-size-cumulative=50000', '--max-inlined-bytecode-size-absolute=100000',
];
