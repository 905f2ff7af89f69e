// A full garbage collection on demand, without starting node with --expose-gc: timed phases
// begin from a collected heap, so neither a young generation full of the setup's objects nor an
// incremental marking the setup started runs on into what is measured.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');

export const collectGarbage = runInNewContext('gc') as () => void;
