// Whether a process a test made ends by itself in time: what tests of orphaned benchmark
// processes wait for. One that does not is killed, so a failing test leaves nothing running.
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits up to `withinMs` for process `pid` to end; false (and SIGKILL) when it is still running. */
export async function endsWithin(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!alive(pid)) return true;
  process.kill(pid, 'SIGKILL');
  return false;
}
