// The primary's snapshots on NATS, every SNAPSHOT_INTERVAL_S (snapshot.ts): each one is the
// `snapshot` command, run as a child process beside the server, as an operator would run it. The
// child does the heavy part (checking the copy recovers every shard, reading and sending every
// store's pages) on its own cores and event loop; the server only takes the cut it asks for
// over DATA_DIR/control.sock (backup/control.ts), which pauses each shard for a moment.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { replicationEnv, type Config, type ReplicationConfig } from '../config.js';
import type { Logger } from '../log.js';

/** The most output of a snapshot child kept for the log. */
const OUTPUT_CHARS_MAX = 4_096;

export class SnapshotSchedule {
  private readonly timer: NodeJS.Timeout;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  /** `primary`: whether this server is the primary now (a standby's schedule waits for its promotion). */
  constructor(private readonly config: Config, replication: ReplicationConfig, private readonly primary: () => boolean, private readonly log: Logger) {
    this.timer = setInterval(() => this.take(), replication.snapshotIntervalS * 1_000);
    this.timer.unref();
  }

  private take(): void {
    const replication = this.config.replication;
    if (this.child !== undefined || replication === undefined || !this.primary()) return;
    // The settings the command needs, whether the server had them from the environment or from flags.
    const env = {
      ...process.env, ...replicationEnv(replication), DATA_DIR: this.config.dataDir, SHARDS: String(this.config.shards),
      BACKUP_MB_PER_S: String(this.config.backupMbPerS),
    };
    const child = spawn(process.execPath, [fileURLToPath(new URL('../main.js', import.meta.url)), 'snapshot'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_CHARS_MAX);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((done) => child.once('close', (code, signal) => {
      this.child = undefined;
      if (code === 0) this.log.info('snapshot_published', { report: output.trim() });
      else this.log.warn('snapshot_failed', { code, signal, output: output.trim() });
      done();
    }));
  }

  /** Stops the schedule; a snapshot under way is stopped (its backup removes what it wrote). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.child?.kill('SIGTERM');
    await this.exited;
  }
}
