// One writer per audit file. Two processes appending to one file each continue the chain from what they last
// wrote, so the file interleaves two chains and no longer verifies; the second process must refuse to start.
// Node has no flock: `<path>.lock` is created exclusively and names its owner (pid and, on Linux, the process's
// start time, so that a pid reused after a crash is not taken for the owner). A lock whose owner is gone is
// stale and taken over; one held by this very process (a writer reopened in place) is taken over too.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export interface AuditFileLock {
  release(): void;
}

export class AuditFileInUse extends Error {
  readonly ownerPid: number;
  constructor(lockPath: string, ownerPid: number) {
    super(`another process (pid ${ownerPid}) writes this audit file (lock ${lockPath})`);
    this.ownerPid = ownerPid;
  }
}

export function lockAuditFile(path: string): AuditFileLock {
  const lockPath = `${path}.lock`;
  const mine = ownerText(process.pid);
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      const owner = readOwner(lockPath);
      if (owner !== undefined && owner.pid !== process.pid && isRunning(owner.pid, owner.started)) {
        throw new AuditFileInUse(lockPath, owner.pid);
      }
      removeIfPresent(lockPath);
      continue;
    }
    try {
      writeSync(fd, mine);
    } finally {
      closeSync(fd);
    }
    return {
      release() {
        // Only our own lock: a process that took over a lock it judged stale must keep it.
        if (readText(lockPath) === mine) removeIfPresent(lockPath);
      },
    };
  }
}

function ownerText(pid: number): string {
  return `${pid} ${startTimeOf(pid) ?? ''}\n`;
}

function readOwner(lockPath: string): { pid: number; started: string | undefined } | undefined {
  const [pidText = '', started] = (readText(lockPath) ?? '').trim().split(' ');
  const pid = Number(pidText);
  // A lock left half-written by a crash names no one: stale.
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, started: started || undefined } : undefined;
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
