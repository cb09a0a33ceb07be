// One writer per audit file. Two processes appending to one file each continue the chain from what they last
// wrote, so the file interleaves two chains and no longer verifies; the second process must refuse to start.
// Node has no flock: `<path>.lock` names its owner (pid and, on Linux, the process's start time, so that a pid
// reused after a crash is not taken for the owner, then a token unique to the lock, then its host). A lock whose
// owner is gone is stale and taken over; one held by this very process (a writer reopened in place) is taken over
// too. Whether an owner on another host (container, machine) is gone is judged by its lease (audit-lock-lease.ts).
//
// Every step is atomic, so two processes starting at the same instant cannot both end up holding the lock:
// - a lock appears whole: its text is written to a file of its own, then hard-linked to the lock's name, which
//   fails if the name exists (a lock created empty and written next would look stale, from a crash, meanwhile);
// - a stale lock is never removed, only replaced (rename), and only by the holder of the right to replace that
//   very file: a lock of its own, named after the file (`.takeover-<file>`). Of two processes that judged it stale,
//   one replaces it; the other finds the replacement, held by a live process. A process killed while it held that
//   right leaves a stale takeover lock, taken over the same way.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import {
  LEASE_REFRESH_MS,
  type LeaseWatch,
  realLeaseWatch,
  refreshLease,
  thisHost,
  watchLease,
} from './audit-lock-lease.ts';

export interface AuditFileLock {
  release(): void;
  /**
   * Whether `<path>.lock` is still this lock: `held`; `removed` (no lock file, its folder perhaps gone too); or
   * `taken` (another lock in its place: the running writer lost it).
   */
  state(): LockState;
  /** Creates the lock file again, its folder first, after it was removed; false when another lock got there first. */
  retake(): boolean;
}

export type LockState = 'held' | 'removed' | 'taken';

export class AuditFileInUse extends Error {
  readonly ownerPid: number;
  constructor(lockPath: string, ownerPid: number, elsewhere = false) {
    const where = elsewhere ? ` on another host or container, its lock refreshed meanwhile` : '';
    super(`another process (pid ${ownerPid}${where}) writes this audit file (lock ${lockPath})`);
    this.ownerPid = ownerPid;
  }
}

/** Who takes a lock: this process, or, in tests, a stand-in for another one. */
export interface LockTaker {
  readonly pid: number;
  /** Where `pid` means something (audit-lock-lease.ts thisHost). */
  readonly host: string;
  /** The lock's whole text, unique to this lock. */
  readonly text: string;
}

/** Points where tests let another taker in: a stale lock judged, then the right to replace it held. */
export interface TakeoverSteps {
  judgedStale?(lockPath: string): void;
  holdingTakeover?(lockPath: string): void;
  /** How a lock from another host is watched (real time unless a test acts as that host meanwhile). */
  leaseWatch?: LeaseWatch;
}

/** A lock file as seen once: its identity and its text. */
interface Seen {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly text: string;
}

const MAX_ATTEMPTS = 5;
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);
/** Takeover locks of takeover locks: each level needs a process killed in the middle of a takeover. */
const MAX_DEPTH = 4;

/**
 * The file's lock, its lease refreshed while it is held (the timer does not keep the process alive); a refresh
 * that finds the lock no longer this one's (removed, or replaced) calls `refreshFailed`, at every refresh until
 * it is this one's again.
 */
export function lockAuditFile(
  path: string,
  steps: TakeoverSteps = {},
  refreshFailed: () => void = () => {},
): AuditFileLock {
  const lockPath = `${path}.lock`;
  const taker = lockTaker(process.pid);
  const lock = acquireLock(lockPath, taker, steps);
  const timer = setInterval(() => {
    if (!refreshLease(lockPath, taker.text)) refreshFailed();
  }, LEASE_REFRESH_MS);
  timer.unref();
  return {
    ...lock,
    release() {
      clearInterval(timer);
      lock.release();
    },
  };
}

export function lockTaker(pid: number, host: string = thisHost()): LockTaker {
  const token = randomBytes(8).toString('hex');
  return { pid, host, text: `${pid} ${startTimeOf(pid) ?? ''} ${token} ${host}\n` };
}

/** Takes `lockPath` for `taker`; throws AuditFileInUse when a live process (another one) holds it. */
export function acquireLock(lockPath: string, taker: LockTaker, steps: TakeoverSteps = {}): AuditFileLock {
  hold(lockPath, taker, steps, 0);
  // The lock file last read as this lock's, as `state` tells files apart.
  let heldIdentity: string | undefined;
  return {
    release() {
      // Only this lock: a process that took over a lock it judged stale, or a writer reopened in place, keeps its own.
      releaseIfHeld(lockPath, taker);
    },
    state() {
      // Checked before every append: one stat while the lock file is the one last read as this lock's (the same
      // inode, born at the same moment: a lock file made again may reuse the inode number, not its birth time).
      let stats: ReturnType<typeof statSync>;
      try {
        stats = statSync(lockPath);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // ENOTDIR: its folder replaced by a file; retaking it fails, as appending to the audit file would.
        if (code === 'ENOENT' || code === 'ENOTDIR') return 'removed';
        throw error;
      }
      const identity = `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
      if (stats.birthtimeMs > 0 && identity === heldIdentity) return 'held';
      let text: string;
      try {
        text = readFileSync(lockPath, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return 'removed';
        throw error;
      }
      if (text !== taker.text) return 'taken';
      heldIdentity = identity;
      return 'held';
    },
    retake() {
      mkdirSync(dirname(lockPath), { recursive: true });
      return createIfAbsent(lockPath, taker.text);
    },
  };
}

function hold(path: string, taker: LockTaker, steps: TakeoverSteps, depth: number): void {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (createIfAbsent(path, taker.text)) return;
    const seen = lookAt(path);
    // Released since: try again.
    if (seen === undefined) continue;
    const owner = readOwner(seen.text);
    if (owner !== undefined && owner.host !== undefined && owner.host !== taker.host) {
      // Its pid means nothing here (1 in many containers: this very process's pid).
      const verdict = watchLease(path, seen.text, steps.leaseWatch ?? realLeaseWatch);
      if (verdict === 'changed') continue;
      if (verdict === 'live') throw new AuditFileInUse(path, owner.pid, true);
    } else if (owner !== undefined && owner.pid !== taker.pid && isRunning(owner.pid, owner.started)) {
      throw new AuditFileInUse(path, owner.pid);
    }
    steps.judgedStale?.(path);
    if (takeOver(path, seen, taker, steps, depth)) return;
  }
  throw new Error(`could not take the lock ${path}: it kept changing`);
}

/** Replaces the stale lock `seen` unless another process did first (then false: look again). */
function takeOver(path: string, seen: Seen, taker: LockTaker, steps: TakeoverSteps, depth: number): boolean {
  if (depth >= MAX_DEPTH) {
    throw new Error(`too many interrupted takeovers of ${path}; remove its .takeover-* files`);
  }
  const right = `${path}.takeover-${fingerprint(seen)}`;
  try {
    hold(right, taker, steps, depth + 1);
  } catch (error) {
    // A live process is taking this lock over: it is the one that will write the file.
    if (error instanceof AuditFileInUse) throw new AuditFileInUse(path, error.ownerPid);
    throw error;
  }
  try {
    steps.holdingTakeover?.(path);
    // While the right is held nobody else replaces this file, so a check now still holds at the rename.
    if (!sameFile(lookAt(path), seen)) return false;
    replace(path, taker.text);
    return true;
  } finally {
    releaseIfHeld(right, taker);
  }
}

/** Links a file holding `text` to `path`; false when `path` exists. */
function createIfAbsent(path: string, text: string): boolean {
  const draft = writeDraft(path, text);
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== undefined && NO_HARD_LINKS.has(code)) return createInPlace(path, text);
    throw error;
  } finally {
    removeIfPresent(draft);
  }
}

/**
 * Where the file system has no hard links (some network and FUSE mounts): created exclusively and written next,
 * so a start at the same instant may see it empty for a moment, and judge it stale.
 */
function createInPlace(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function replace(path: string, text: string): void {
  const draft = writeDraft(path, text);
  try {
    renameSync(draft, path);
  } catch (error) {
    removeIfPresent(draft);
    throw error;
  }
}

/** A new file beside `path` holding `text`, under a name no other taker uses. */
function writeDraft(path: string, text: string): string {
  const draft = `${path}.draft-${randomBytes(8).toString('hex')}`;
  try {
    writeFileSync(draft, text, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Created, then not written (a full disk): not left behind.
    removeIfPresent(draft);
    throw error;
  }
  return draft;
}

function lookAt(path: string): Seen | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { dev, ino } = fstatSync(fd, { bigint: true });
    return { dev, ino, text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Identity and text: an inode number can be reused once the file is gone, a lock's text (its token) is not. */
function sameFile(now: Seen | undefined, before: Seen): boolean {
  return now !== undefined && now.dev === before.dev && now.ino === before.ino && now.text === before.text;
}

function fingerprint(seen: Seen): string {
  return createHash('sha256').update(`${seen.dev} ${seen.ino} ${seen.text}`).digest('hex').slice(0, 16);
}

function releaseIfHeld(path: string, taker: LockTaker): void {
  if (readText(path) === taker.text) removeIfPresent(path);
}

interface Owner {
  readonly pid: number;
  readonly started: string | undefined;
  /** Absent from locks written before hosts were named: judged by pid, as then. */
  readonly host: string | undefined;
}

function readOwner(text: string): Owner | undefined {
  const [pidText = '', started, , host] = text.trim().split(' ');
  const pid = Number(pidText);
  // A lock left half-written (by a version that wrote it in place) names no one: stale.
  return Number.isSafeInteger(pid) && pid > 0
    ? { pid, started: started || undefined, host: host || undefined }
    : undefined;
}

function isRunning(pid: number, started: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startTimeOf(pid);
  return started === undefined || now === undefined || now === started;
}

/** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), where /proc exists. */
function startTimeOf(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
