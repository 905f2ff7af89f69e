// Real NATS servers for the replication tests and benchmark: `nats-server` (the Debian package,
// 2.9) with JetStream on free loopback ports and a temporary store, alone or as a cluster of
// three. Each is its own process, killed (SIGKILL) or stopped like any other. It lives with the
// benchmarks because they do not import from test/; test/support/nats.ts re-exports it.
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const READY_TIMEOUT_MS = 20_000;
const READY_PATTERN = /Server is ready/;

/** Whether `nats-server` is installed (the suites that need it say so when it is not). */
export function natsServerInstalled(): boolean {
  return spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A free loopback port (taken and let go: another process may take it in between, rarely). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface NatsNode {
  readonly name: string;
  readonly url: string;
  readonly storeDir: string;
  readonly process: ChildProcess;
  /** Starts the node again on its ports and store (after kill or stop). */
  restart(): Promise<void>;
  /** SIGKILL; resolves once it exited. */
  kill(): Promise<void>;
  output(): string;
}

export interface NatsCluster {
  readonly nodes: readonly NatsNode[];
  /** Every node's URL, comma-separated (NATS). */
  readonly urls: string;
  /** Kills every node and removes their stores. */
  close(): Promise<void>;
}

interface NodePlan {
  readonly name: string;
  /** More of nats-server's options (authentication, TLS). */
  readonly args: readonly string[];
  readonly port: number;
  readonly clusterPort: number | undefined;
  readonly routes: readonly number[];
  readonly storeDir: string;
}

function startNode(plan: NodePlan, clusterName: string): Promise<NatsNode> {
  const args = ['-js', '-a', '127.0.0.1', '-p', String(plan.port), '-sd', plan.storeDir, '-n', plan.name, ...plan.args];
  if (plan.clusterPort !== undefined) {
    args.push('--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${plan.clusterPort}`, '--routes', plan.routes.map((port) => `nats://127.0.0.1:${port}`).join(','));
  }
  let output = '';
  let child: ChildProcess;
  const launch = (): Promise<void> => new Promise((resolve, reject) => {
    output = '';
    child = spawn('nats-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => reject(new Error(`nats-server ${plan.name} not ready\n${output}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (READY_PATTERN.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server ${plan.name} exited with ${code}\n${output}`));
    });
  });
  const kill = (): Promise<void> => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  return launch().then(() => ({
    name: plan.name, url: `nats://127.0.0.1:${plan.port}`, storeDir: plan.storeDir,
    get process() {
      return child;
    },
    restart: launch,
    kill,
    output: () => output,
  }));
}

/**
 * One JetStream server, or (`size` 3) a cluster of three whose nodes route to each other; `args`:
 * more of nats-server's options for every node (a cluster's readiness check connects without them).
 */
export async function startNats(size: 1 | 3 = 1, args: readonly string[] = []): Promise<NatsCluster> {
  const ports = await Promise.all(Array.from({ length: size * 2 }, () => freePort()));
  const clusterPorts = ports.slice(size);
  const plans: NodePlan[] = Array.from({ length: size }, (_, index) => ({
    name: `n${index + 1}`, args, port: ports[index]!, clusterPort: size === 1 ? undefined : clusterPorts[index]!,
    routes: size === 1 ? [] : clusterPorts.filter((_, other) => other !== index), storeDir: mkdtempSync(join(tmpdir(), 'clobd-nats-')),
  }));
  const nodes = await Promise.all(plans.map((plan) => startNode(plan, `clobd-${ports[0]}`)));
  // A cluster is ready once JetStream has its leader: until then its API does not answer.
  if (size > 1) await jetStreamReady(nodes.map((node) => node.url));
  return {
    nodes,
    urls: nodes.map((node) => node.url).join(','),
    async close() {
      await Promise.all(nodes.map((node) => node.kill()));
      for (const plan of plans) rmSync(plan.storeDir, { recursive: true, force: true });
    },
  };
}

/** Resolves once JetStream answers on `urls` (a cluster elected its meta leader), in 30 s at most. */
async function jetStreamReady(urls: readonly string[]): Promise<void> {
  const nc = await connect({ servers: [...urls] });
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      try {
        await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
        return;
      } catch (error) {
        if (Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await nc.close();
  }
}
