// The piscina task: recovers the signers of a batch of (digest, signature) pairs on a pool
// thread, so ECDSA recovery does not hold up the front end's event loop.
import { recoverAddress } from './recover.js';

export interface RecoverTask {
  readonly digests: Uint8Array[];
  readonly signatures: string[];
}

export function recoverBatch(task: RecoverTask): (string | null)[] {
  return task.digests.map((digest, index) => recoverAddress(digest, task.signatures[index]!) ?? null);
}
