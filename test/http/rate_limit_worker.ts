// A thread that charges one key of a shared bucket table many times and reports how many
// charges were admitted (rate_limit.test.ts: the table is shared across threads).
import { parentPort, workerData } from 'node:worker_threads';
import { RateLimiter, type Cap } from '../../http/rate_limit.js';

const { buffer, caps, attempts } = workerData as { buffer: SharedArrayBuffer; caps: Cap[]; attempts: number };
const limiter = new RateLimiter(buffer, caps, () => 1_000);
let admitted = 0;
for (let attempt = 0; attempt < attempts; attempt++) if (limiter.charge([0], 'shared-key') === 0) admitted++;
parentPort!.postMessage(admitted);
