// One exchange per port. uWebSockets.js binds with SO_REUSEPORT unless told otherwise, and two
// processes that both bind a port that way both get it: the kernel splits the connections
// between them, so a second clobd started on a busy port printed its ready line and served half
// of the clients. A start now holds every port it listens on (PORT, CATALOG_PORT, DATA_PORT and
// COMPAT_PORT when set) before the long part of the start (the data directory's walk and
// replay), in two steps, and refuses (exit 2) with the port, its setting and the process holding
// it when either fails:
//
//   1. The port lock: on Linux, a unix socket in the abstract namespace named after the port
//      alone ("clobd/port/8080"), which this process listens on for as long as it runs. Binding
//      it is atomic, the kernel frees it when the process ends however it ends (kill -9
//      included), and its namespace is the network namespace, the same as the ports'. Another
//      clobd that finds it taken connects to it and is told who holds it (a Holder). It is keyed
//      by the port only, not by host:port: 0.0.0.0:8080 and 127.0.0.1:8080 overlap, and two
//      SO_REUSEPORT sockets bound to them would both be served.
//   2. The probe: a plain socket (no SO_REUSEPORT) bound to HOST:port and closed again. It fails
//      while any socket overlapping that address is bound, whether it set SO_REUSEPORT or not,
//      so it finds the programs that are not clobd (and a clobd of a version before the lock),
//      and says why a port cannot be had (EACCES, EADDRNOTAVAIL) where uWS only says false.
//
// Then each listener binds with LIBUS_LISTEN_EXCLUSIVE_PORT (no SO_REUSEPORT), so a program that
// takes the port between the probe and the bind makes the bind fail rather than share it; the
// refusal then probes again to name it (listenRefusal).
//
// A front end of several threads per process, each binding the same port with SO_REUSEPORT so
// that the kernel spreads the connections over them, keeps this: the lock belongs to the
// process, taken once by the main thread before any thread binds, and the threads share it as
// they share every descriptor; they bind without LIBUS_LISTEN_EXCLUSIVE_PORT (that is how they
// share the port), so another clobd is kept out by the lock and any other program by the probe,
// which sees a port some program holds however it bound it. What that design leaves open is a
// program that is not clobd, runs as the same user and binds with SO_REUSEPORT in the moment
// between the probe and the first thread's bind.
//
// Elsewhere than Linux there is no abstract namespace: the probe and the exclusive bind remain,
// which is all a single-threaded front end needs. A port of 0 needs no lock to be had: the kernel
// picks a port no socket has, and the exclusive bind keeps it; its lock is taken once it is bound
// (PortHolds.adopt), so that another clobd asked for it is told which clobd has it.
import { connect, createServer, type Server } from 'node:net';
import { ConfigError, type Config } from './config.js';
import { describeHolder, describeProcess, parseHolder, processesListeningOn, type Holder } from './holders.js';

/** A port or a data directory another process holds: the start is refused with exit code 2. */
export class InUse extends ConfigError {}

/** How long a lock's holder has to say who it is before the refusal goes without its name. */
const ASK_TIMEOUT_MS = 1_000;

export interface SocketLock {
  /** Stops holding the lock. */
  release(): Promise<void>;
}

export type SocketLockAttempt = { readonly lock: SocketLock } | { readonly holder: Holder | undefined };

/** Whether locks in the abstract unix-socket namespace exist here. */
export const socketLocksAvailable = process.platform === 'linux';

/** Asks the holder of abstract socket `name` who it is; undefined if it does not say in time. */
function askHolder(name: string): Promise<Holder | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ path: `\0${name}` });
    let text = '';
    const done = (holder: Holder | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(holder);
    };
    const timer = setTimeout(() => done(undefined), ASK_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => done(parseHolder(text)));
    socket.on('error', () => done(undefined));
  });
}

/**
 * Takes the lock `name` in the abstract unix-socket namespace (Linux): listens on it, answering
 * each connection with `holder()` as JSON. When another process has it, resolves with what that
 * process says of itself. The listener does not keep the process alive.
 */
export function takeSocketLock(name: string, holder: () => Holder): Promise<SocketLockAttempt> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(JSON.stringify(holder()));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') askHolder(name).then((found) => resolve({ holder: found }), reject);
      else reject(error);
    });
    server.listen({ path: `\0${name}` }, () => {
      server.unref();
      resolve({ lock: { release: () => new Promise<void>((done) => server.close(() => done())) } });
    });
  });
}

/** A port a start listens on, with the setting that asks for it. */
export interface WantedPort {
  readonly setting: string;
  readonly port: number;
}

/** The ports `config` listens on: the three listeners, and COMPAT_PORT when it is set. */
export function wantedPorts(config: Config): WantedPort[] {
  const wanted = [
    { setting: 'PORT', port: config.clobPort }, { setting: 'CATALOG_PORT', port: config.catalogPort }, { setting: 'DATA_PORT', port: config.dataPort },
  ];
  if (config.compatPort !== undefined) wanted.push({ setting: 'COMPAT_PORT', port: config.compatPort });
  return wanted;
}

/** The setting of each listener server.ts binds. */
export const LISTENER_SETTINGS: Readonly<Record<string, string>> = { clob: 'PORT', catalog: 'CATALOG_PORT', data: 'DATA_PORT', compat: 'COMPAT_PORT' };

function bindProbe(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

function processesText(pids: readonly number[]): string {
  return pids.map(describeProcess).join(' and ');
}

/**
 * Why HOST:port (asked for by `setting`) cannot be bound now, naming the process that holds it
 * where it can be found; undefined when a plain socket binds it.
 */
export async function portProblem(host: string, port: number, setting: string): Promise<string | undefined> {
  const error = await bindProbe(host, port);
  if (error === undefined) return undefined;
  const named = `port ${port} (${setting})`;
  if (error.code === 'EADDRINUSE') {
    const pids = processesListeningOn(port);
    if (pids.length > 0) return `${named} is in use by ${processesText(pids)}`;
    return `${named} is in use by another process (${process.platform === 'linux' ? 'one /proc does not show to this user' : 'which one cannot be found here'})`;
  }
  if (error.code === 'EACCES') return `${named} on ${host} needs privileges this user lacks (EACCES)`;
  if (error.code === 'EADDRNOTAVAIL') return `HOST ${host} is not an address of this machine (EADDRNOTAVAIL), so ${named} cannot be bound on it`;
  return `${named} on ${host} cannot be bound: ${error.message}`;
}

export interface PortHolds {
  /**
   * Takes the lock of ports the kernel picked (a setting of 0) once they are bound, so that
   * another clobd asked for one of them is told who has it. One a clobd still starting holds
   * (it is to fail its bind) is left to it.
   */
  adopt(ports: readonly number[]): Promise<void>;
  release(): Promise<void>;
}

/**
 * Holds every port of `wanted` for this process (the lock, then the probe: see the top of this
 * file); throws InUse naming each port it cannot have, releasing those it took. `holder`
 * describes this process to a clobd that finds one of its ports taken.
 */
export async function holdPorts(host: string, wanted: readonly WantedPort[], holder: () => Holder): Promise<PortHolds> {
  const fixed = wanted.filter((entry) => entry.port !== 0);
  for (const [index, entry] of fixed.entries()) {
    const twin = fixed.slice(0, index).find((other) => other.port === entry.port);
    if (twin !== undefined) throw new ConfigError(`${twin.setting} and ${entry.setting} are both ${entry.port}: each listener needs a port of its own`);
  }
  const locks: SocketLock[] = [];
  const problems: string[] = [];
  for (const { setting, port } of fixed) {
    if (socketLocksAvailable) {
      const attempt = await takeSocketLock(`clobd/port/${port}`, holder);
      if ('holder' in attempt) {
        problems.push(`port ${port} (${setting}) is in use by ${attempt.holder === undefined ? 'another clobd (it did not say which)' : describeHolder(attempt.holder, { dataDir: true })}`);
        continue;
      }
      locks.push(attempt.lock);
    }
    const problem = await portProblem(host, port, setting);
    if (problem !== undefined) problems.push(problem);
  }
  const release = async (): Promise<void> => {
    for (const lock of locks.splice(0)) await lock.release();
  };
  if (problems.length > 0) {
    await release();
    throw new InUse(problems.join('; '));
  }
  const adopt = async (ports: readonly number[]): Promise<void> => {
    if (!socketLocksAvailable) return;
    for (const port of ports) {
      const attempt = await takeSocketLock(`clobd/port/${port}`, holder);
      if ('lock' in attempt) locks.push(attempt.lock);
    }
  };
  return { adopt, release };
}

/**
 * The error for a listener that did not bind HOST:port: a ConfigError (exit 2) saying why when a
 * probe cannot bind it either (the port's holder, or a HOST that is not this machine's), else
 * `cause` (or a plain error).
 */
export async function listenRefusal(host: string, port: number, setting: string, cause?: unknown): Promise<Error> {
  const problem = await portProblem(host, port, setting);
  if (problem !== undefined) return new ConfigError(problem);
  if (cause instanceof Error) return cause;
  return new Error(`cannot listen on ${host}:${port} (${setting})`);
}
