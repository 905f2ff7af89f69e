// How long a thread of this process has run and how long it was runnable but waited for a core
// (Linux /proc schedstat, in nanoseconds). On a machine whose cores are all busy, a thread woken
// by a finished fsync or a new frame can wait a whole scheduler slice before it runs again:
// that wait, not the work, was most of the slow commits behind the order path's latency tail
// (bench/README.md). The matching workers report their thread's id when they start, so the
// operator metrics can read it per thread; other systems have no such file and read nothing.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ThreadTimes {
  readonly cpuSeconds: number;
  /** Time runnable but not running: waiting in a run queue for a core. */
  readonly waitSeconds: number;
}

/** The calling thread's id in the kernel (its task id), or undefined off Linux. */
export function currentThreadId(): number | undefined {
  try {
    // /proc/thread-self links to /proc/<pid>/task/<tid>.
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

/** Times of thread `tid` of this process, or undefined when it is gone or not readable here. */
export function threadTimes(tid: number, pid: number = process.pid): ThreadTimes | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1');
  } catch {
    return undefined;
  }
  const [cpuNs, waitNs] = text.split(' ').map(Number);
  return { cpuSeconds: cpuNs! / 1e9, waitSeconds: waitNs! / 1e9 };
}

/** Every thread id of process `pid` (empty off Linux). */
export function threadIds(pid: number = process.pid): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}
