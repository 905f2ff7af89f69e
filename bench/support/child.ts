// Runs a benchmark script in a child process of its own and returns the report it prints as one
// JSON line (its `--json` output): each run gets a fresh JIT and heap, with the Node options the
// caller gives (the server's, for code that runs in the server). The child leads a process group
// of its own, so aborting it ends what it started as well (a fill child, a server), and nothing
// of an interrupted run goes on taking CPU from the next measurement on this machine.
import { spawn } from 'node:child_process';

export interface ScriptRun {
  /** Absolute path of the script. */
  readonly script: string;
  readonly args: readonly string[];
  readonly nodeFlags: readonly string[];
  /** Kills the child's process group (SIGTERM) and rejects. */
  readonly signal?: AbortSignal;
}

/** The report: the last stdout line that starts with `{"suite":`; other stdout lines go to stderr. */
export function reportOf(stdout: string): unknown {
  const lines = stdout.split('\n');
  const report = lines.findLast((line) => line.startsWith('{"suite":'));
  if (report === undefined) throw new Error('the script printed no {"suite": ...} report');
  return JSON.parse(report) as unknown;
}

export function runScriptForReport(run: ScriptRun): Promise<unknown> {
  const child = spawn(process.execPath, [...run.nodeFlags, run.script, ...run.args], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const abort = (): void => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  };
  run.signal?.addEventListener('abort', abort, { once: true });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      run.signal?.removeEventListener('abort', abort);
      for (const line of stdout.split('\n')) if (line !== '' && !line.startsWith('{"suite":')) process.stderr.write(`${line}\n`);
      if (run.signal?.aborted === true) reject(new Error(`${run.script} stopped: ${String(run.signal.reason)}`));
      else if (code !== 0) reject(new Error(`${run.script} exited with ${String(code ?? signal)}`));
      else {
        try {
          resolve(reportOf(stdout));
        } catch (error) {
          reject(error as Error);
        }
      }
    });
  });
}
