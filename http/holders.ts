// Who holds a port or a file: what an operator needs to read in a refusal to start. A clobd that
// holds something describes itself (a Holder, kept in the data directory's lock file and given to
// whoever connects to one of its port locks); any other process is found, on Linux, through /proc:
// the listening sockets of /proc/net/tcp and tcp6 by port, then the process whose open
// descriptors name that socket (or that file). Elsewhere, or where /proc hides the other
// process (another user's, another pid namespace's), the search finds nothing and the refusal
// says so. Nothing here is on a path that serves requests: it runs when a start is refused.
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { hostname } from 'node:os';

/** A clobd process as it describes itself to another that finds what it wanted held. */
export interface Holder {
  readonly pid: number;
  /** os.hostname() of the holder: a container's differs from its host's, and pids with it. */
  readonly host: string;
  /** The command that holds it: serve, verify, import … */
  readonly command: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
  readonly dataDir?: string;
  /** The ports it listens on, by listener, once it does. */
  readonly ports?: Readonly<Record<string, number>>;
}

export function ownHolder(command: string, dataDir?: string): Holder {
  return { pid: process.pid, host: hostname(), command, since: new Date().toISOString(), ...(dataDir === undefined ? {} : { dataDir }) };
}

/** A holder read back from JSON, or undefined when the text is not one. */
export function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder> | null;
    if (value === null || typeof value !== 'object' || !Number.isSafeInteger(value.pid) || (value.pid ?? 0) <= 0) return undefined;
    return {
      pid: value.pid ?? 0, host: String(value.host ?? ''), command: String(value.command ?? ''), since: String(value.since ?? ''),
      ...(typeof value.dataDir === 'string' ? { dataDir: value.dataDir } : {}),
      ...(typeof value.ports === 'object' && value.ports !== null ? { ports: value.ports } : {}),
    };
  } catch {
    return undefined;
  }
}

/** "clobd pid 1234 (serve since 2026-11-28T05:44:45.353Z, ports clob 8080 catalog 8081 data 8082, DATA_DIR /srv/data)". */
export function describeHolder(holder: Holder, options: { readonly dataDir?: boolean } = {}): string {
  const details = [`${holder.command} since ${holder.since}`];
  if (holder.host !== hostname()) details.push(`on host ${holder.host}`);
  if (holder.ports !== undefined) details.push(`ports ${Object.entries(holder.ports).map(([name, port]) => `${name} ${port}`).join(' ')}`);
  if (options.dataDir === true && holder.dataDir !== undefined) details.push(`DATA_DIR ${holder.dataDir}`);
  return `clobd pid ${holder.pid} (${details.join(', ')})`;
}

/** Whether process `pid` exists (on this host, in this pid namespace); EPERM means it does. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const CMDLINE_CHARS_MAX = 160;

/** "pid 1234 (python3 -m http.server 8080)", or "pid 1234" when its command line cannot be read. */
export function describeProcess(pid: number): string {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((word) => word !== '');
    const line = words.join(' ');
    if (line === '') return `pid ${pid}`;
    return `pid ${pid} (${line.length <= CMDLINE_CHARS_MAX ? line : `${line.slice(0, CMDLINE_CHARS_MAX)}…`})`;
  } catch {
    return `pid ${pid}`;
  }
}

const LISTEN_STATE = '0A';

/** The inodes of the TCP sockets listening on `port` (any address), from /proc/net/tcp and tcp6; none where there is no /proc. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (local === undefined || fields[3] !== LISTEN_STATE || fields[9] === undefined) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The pids whose open descriptors satisfy `matches` (given the descriptor's path under /proc), this process's own left out. */
function pidsWithDescriptor(matches: (descriptor: string) => boolean): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let descriptors: string[];
    try {
      descriptors = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    if (descriptors.some((fd) => matches(`/proc/${entry}/fd/${fd}`))) found.push(Number(entry));
  }
  return found;
}

/** The processes listening on TCP `port` (Linux; none found elsewhere). */
export function processesListeningOn(port: number): number[] {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return [];
  const links = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  return pidsWithDescriptor((descriptor) => {
    try {
      return links.has(readlinkSync(descriptor));
    } catch {
      return false;
    }
  });
}

/** The processes that hold the file at `path` open (Linux; none found elsewhere). */
export function processesWithFileOpen(path: string): number[] {
  let file: { dev: number; ino: number };
  try {
    file = statSync(path);
  } catch {
    return [];
  }
  return pidsWithDescriptor((descriptor) => {
    try {
      const open = statSync(descriptor);
      return open.ino === file.ino && open.dev === file.dev;
    } catch {
      return false;
    }
  });
}
