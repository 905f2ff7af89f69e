// One process per data directory. Two servers on one DATA_DIR would both replay the journals and
// both write them: each store is an LMDB environment that several processes may open, and
// nothing but this lock keeps a second exchange from doing so. The server holds it from before
// it inspects the directory until it exits; `verify` and `import` hold it while they run, and
// refuse, as a second server does (exit 2), while anything else holds it.
//
// The lock is DATA_DIR/clobd.lock, a file this process keeps open, locked with the kernel's
// flock(2): the kernel drops the lock when the last descriptor of the open file goes, so when
// the process ends however it ends (kill -9 included) and never because of a pid: a stale lock
// cannot outlive its holder, and a pid reused since cannot keep it. Node has no flock of its
// own, so:
//
//   flock    on Linux (and wherever the util-linux or busybox `flock` command is): the command
//            is run once with this process's descriptor of the file as its fd 3, and locks it
//            (`flock -x -n 3`). flock(2) locks belong to the open file, which the command shares
//            with this process, so the lock stays once the command has exited.
//   exlock   on macOS and the BSDs: open(2) with O_EXLOCK | O_NONBLOCK, the same lock taken in
//            the open itself.
//   socket   on Linux without the command: a unix socket in the abstract namespace named after
//            the directory's device and inode (exclusive.ts), freed by the kernel as well. It
//            only sees processes in the same network namespace (a container sharing the
//            directory through a volume but not the host's network is not seen).
//   pid      elsewhere (Windows): the pid the lock file names, if that process still exists, is
//            taken to hold the directory. Best effort: two starts at the same moment can both
//            pass, and a reused pid keeps a stale lock until the file is removed.
//
// The file holds the holder's description (holders.ts: pid, host, command, start, and the
// ports once it listens), written after the lock is taken, so a refused start names who holds
// the directory. It is never removed: a lock file removed and made again is another file, and
// two processes could then each hold a lock on a different one.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { InUse, socketLocksAvailable, takeSocketLock, type SocketLock } from '../exclusive.js';
import { describeHolder, describeProcess, ownHolder, parseHolder, processesWithFileOpen, processExists, type Holder } from '../holders.js';

export const LOCK_FILE = 'clobd.lock';

export type LockMechanism = 'flock' | 'exlock' | 'socket' | 'pid';

export interface DataDirLock {
  readonly path: string;
  readonly mechanism: LockMechanism;
  /** Adds to what the lock file says of this process (its ports, once it listens). */
  describe(extra: Partial<Pick<Holder, 'ports'>>): void;
  /** Stops holding the directory (exiting does too). */
  release(): Promise<void>;
}

export interface LockOptions {
  /** What the lock file says of this process; by default ownHolder(command, dataDir). */
  readonly holder?: Holder;
  /** The flock command; a test names one that does not exist to take the fallback. */
  readonly flockCommand?: string;
  /** Whether the abstract-socket fallback may be used (where it exists); a test turns it off to take the pid fallback. */
  readonly socketLocks?: boolean;
}

/** What each command tells the operator to do about a directory that is in use. */
const ADVICE: Readonly<Record<string, string>> = {
  serve: 'stop it first, or give this server another DATA_DIR',
  verify: 'verify checks the directory of a stopped exchange: stop it first',
  import: 'import writes to the catalog of a stopped exchange: stop it first, or create the events through POST /admin/events',
};

/**
 * O_EXLOCK is 0x20 on macOS and each BSD; Node's fs.constants leaves it out, and libuv hands
 * open(2) the flags as they are.
 */
const BSD_O_EXLOCK = 0x20;
const BSD_PLATFORMS: readonly string[] = ['darwin', 'freebsd', 'openbsd', 'netbsd'];

/** O_EXLOCK | O_NONBLOCK where the platform has them (macOS, the BSDs), else undefined. */
function exlockFlags(): number | undefined {
  const { O_EXLOCK } = constants as typeof constants & { O_EXLOCK?: number };
  const exlock = O_EXLOCK ?? (BSD_PLATFORMS.includes(process.platform) ? BSD_O_EXLOCK : undefined);
  return exlock === undefined ? undefined : exlock | constants.O_NONBLOCK;
}

type Attempt = { readonly taken: true; readonly socket?: SocketLock } | { readonly taken: false; readonly holder?: Holder | undefined } | 'unavailable';

/** `flock -x -n 3` on this process's descriptor `fd`; unavailable when the command is not there or fails otherwise. */
function flockDescriptor(fd: number, command: string): Attempt {
  const run = spawnSync(command, ['-x', '-n', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
  if (run.error !== undefined) return 'unavailable';
  if (run.status === 0) return { taken: true };
  // util-linux and busybox both exit 1 when the lock is held (and with other codes on errors).
  if (run.status === 1) return { taken: false };
  return 'unavailable';
}

function readHolder(path: string): Holder | undefined {
  try {
    return parseHolder(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function writeHolder(fd: number, holder: Holder): void {
  const bytes = Buffer.from(JSON.stringify(holder) + '\n');
  ftruncateSync(fd, 0);
  writeSync(fd, bytes, 0, bytes.length, 0);
}

/** Who holds the directory, for the refusal: the holder's own word, else the processes that have the lock file open. */
function holderText(path: string, said: Holder | undefined): string {
  const holder = said ?? readHolder(path);
  if (holder !== undefined && (holder.pid === process.pid || processExists(holder.pid) || holder.host !== ownHolder('').host)) return describeHolder(holder);
  const pids = processesWithFileOpen(path);
  if (pids.length > 0) return pids.map(describeProcess).join(' and ');
  return 'another process (which one cannot be found here)';
}

/**
 * Takes the data directory's lock for `command` (making the directory if it does not exist);
 * throws InUse (exit 2) naming the directory and its holder when another process has it.
 */
export async function lockDataDir(dataDir: string, command: string, options: LockOptions = {}): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const refuse = (holder?: Holder): never => {
    throw new InUse(`data directory ${dataDir} is in use by ${holderText(path, holder)}: ${ADVICE[command] ?? 'stop it first'}`);
  };
  const exlock = exlockFlags();
  let fd: number;
  let mechanism: LockMechanism;
  let socket: SocketLock | undefined;
  if (exlock !== undefined) {
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_CREAT | exlock, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN' || (error as NodeJS.ErrnoException).code === 'EWOULDBLOCK') refuse();
      throw error;
    }
    mechanism = 'exlock';
  } else {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    let attempt = flockDescriptor(fd, options.flockCommand ?? 'flock');
    mechanism = 'flock';
    if (attempt === 'unavailable' && socketLocksAvailable && options.socketLocks !== false) {
      const { dev, ino } = statSync(dataDir);
      const taken = await takeSocketLock(`clobd/data/${dev.toString(16)}:${ino.toString(16)}`, () => readHolder(path) ?? options.holder ?? ownHolder(command, dataDir));
      attempt = 'lock' in taken ? { taken: true, socket: taken.lock } : { taken: false, holder: taken.holder };
      mechanism = 'socket';
    }
    if (attempt === 'unavailable') {
      const recorded = readHolder(path);
      attempt = recorded !== undefined && recorded.pid !== process.pid && processExists(recorded.pid) ? { taken: false, holder: recorded } : { taken: true };
      mechanism = 'pid';
    }
    if (!attempt.taken) {
      closeSync(fd);
      refuse(attempt.holder);
    } else {
      socket = attempt.socket;
    }
  }
  let holder = options.holder ?? ownHolder(command, dataDir);
  writeHolder(fd, holder);
  let open = true;
  return {
    path,
    mechanism,
    describe: (extra) => {
      holder = { ...holder, ...extra };
      if (open) writeHolder(fd, holder);
    },
    release: async () => {
      if (!open) return;
      open = false;
      await socket?.release();
      closeSync(fd);
    },
  };
}
