// The isolation benchmark's attacker, in a worker thread of its own: its event loop floods the
// server while the benchmark's own loop sends the victim's orders on time and reads their
// answers, so the attacker's work does not delay the victim's sends in the same loop (it still
// takes a core of the machine, as any client on it would). Connects first and says so; floods
// from the "go" message for `durationMs`; then closes everything and sends back its counts.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { emptyCounts, type Flood } from './counts.js';
import { startHttpFlood } from './http_flood.js';
import type { AttackerInput } from './attacker.js';
import { startWsFlood } from './ws_flood.js';

const port = parentPort;
if (port === null) throw new Error('attacker_worker.js runs as a worker thread');
const { plan, durationMs } = workerData as AttackerInput;
const counts = emptyCounts();
const flood: Flood = plan.kind === 'http' ? startHttpFlood(plan, counts) : startWsFlood(plan, counts);
await flood.ready;
port.postMessage({ kind: 'ready' });
port.once('message', () => {
  const startedMs = performance.now();
  flood.go();
  setTimeout(() => {
    flood.stop();
    port.postMessage({ kind: 'report', counts, durationMs: performance.now() - startedMs });
    port.close();
  }, durationMs);
});
