// A thread that commits to an LMDB store without pause for page_copy.test.ts: transaction i
// writes `n` = i and a 3 KB value under `k<i>` and deletes `k<i − kept>`, so every commit frees
// pages that later ones reuse. Between two commits it holds while `hold` is 1 (answering 2), as
// a shard worker holds for a backup's cut, and it ends when `hold` is 9.
import { workerData } from 'node:worker_threads';
import { openDurable } from '../../../engine/durable_env.js';

const { path, hold: holdBuffer, kept } = workerData as { path: string; hold: SharedArrayBuffer; kept: number };
const root = openDurable(path, 4);
const table = root.openDB<unknown, string>({ name: 't', encoding: 'msgpack' });
const hold = new Int32Array(holdBuffer);
const filler = 'x'.repeat(3000);
for (let index = 1; Atomics.load(hold, 0) !== 9; index++) {
  if (Atomics.load(hold, 0) === 1) {
    Atomics.store(hold, 0, 2);
    Atomics.notify(hold, 0);
    while (Atomics.load(hold, 0) === 2) Atomics.wait(hold, 0, 2, 5);
  }
  root.transactionSync(() => {
    table.putSync('n', index);
    table.putSync(`k${index}`, `${filler}${index}`);
    if (index > kept) table.removeSync(`k${index - kept}`);
  });
}
await root.close();
