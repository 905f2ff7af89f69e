// Real NATS servers for the replication tests: the benchmarks' launcher (bench/support/nats.ts),
// which lives there because benchmarks do not import from test/.
export * from '../../bench/support/nats.js';
