// Runs a benchmark script in a child process of its own and returns the report it prints as one
// JSON line (its `--json` output): each run gets a fresh JIT and heap, with the Node options the
// caller gives (the server's, for code that runs in the server). The child leads a process group
// of its own, and its TMPDIR is a directory of its own, so aborting it ends what it started as
// well (a fill child, a server) and removes what they wrote (DATA_DIRs): nothing of an
// interrupted run goes on taking CPU or disk from the next measurement on this machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ScriptRun {
  /** Absolute path of the script. */
  readonly script: string;
  readonly args: readonly string[];
  readonly nodeFlags: readonly string[];
  /** Kills the child's process group (SIGTERM), removes its TMPDIR, and rejects. */
  readonly signal?: AbortSignal;
}

/** The report: the last stdout line that starts with `{"suite":`; other stdout lines go to stderr. */
export function reportOf(stdout: string): unknown {
  const lines = stdout.split('\n');
  const report = lines.findLast((line) => line.startsWith('{"suite":'));
  if (report === undefined) throw new Error('the script printed no {"suite": ...} report');
  return JSON.parse(report) as unknown;
}

/**
 * Aborts on this process's first SIGINT or SIGTERM and exits as that signal would (130, 143),
 * which runs the 'exit' handlers; a repeat (a terminal's Ctrl-C also comes through `npm run
 * bench`) is ignored, so it cannot end the process by default while the first cleans up.
 */
export function abortOnSignals(): AbortSignal {
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (controller.signal.aborted) return;
      controller.abort(signal);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  return controller.signal;
}

export function runScriptForReport(run: ScriptRun): Promise<unknown> {
  const scratch = mkdtempSync(join(tmpdir(), 'clobd-bench-run-'));
  // Retried: the killed processes may still be closing files in it.
  const removeScratch = (): void => rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  const child = spawn(process.execPath, [...run.nodeFlags, run.script, ...run.args], {
    stdio: ['ignore', 'pipe', 'inherit'], detached: true, env: { ...process.env, TMPDIR: scratch },
  });
  const abort = (): void => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    removeScratch();
  };
  run.signal?.addEventListener('abort', abort, { once: true });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      removeScratch();
      reject(error);
    });
    child.once('close', (code, signal) => {
      run.signal?.removeEventListener('abort', abort);
      removeScratch();
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
