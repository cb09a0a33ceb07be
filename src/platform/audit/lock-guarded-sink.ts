// Appends to an audit file only while this writer holds its lock (audit-file-lock.ts). A lock file removed under a
// running writer (by hand, a cleanup job, its folder deleted) lets a second process take the lock and append to the
// same file: each would continue the chain from its own last record, and the chain would fork. So the lock is
// checked before every append and at every lease refresh. A lock simply removed is taken again, when nobody wrote to
// the file meanwhile; a lock another process holds, or a file another process appended to, stops this writer's
// appends until it restarts (which resumes the chain from the file, or refuses to start beside the other writer).
import type { Logger } from '../log.ts';
import type { AuditFileLock } from './audit-file-lock.ts';
import type { AuditSink, FileAuditSink } from './sinks/audit-sink.ts';

export interface LockGuardedSink extends AuditSink {
  /** For the lease refresh that found the lock no longer this writer's: checks it now, appends or not. */
  checkLock(): void;
}

/** `sink`, appending only while `lock` is held, and releasing it once closed. */
export function guardByLock(
  sink: FileAuditSink,
  lock: AuditFileLock,
  path: string,
  logger: Logger,
): LockGuardedSink {
  const lockPath = `${path}.lock`;
  let lost = false;
  // Once closed, the lock is released: a late append must fail as the closed sink's does, not take the lock again.
  let closed = false;
  const lostError = () =>
    new Error(
      `the audit file's lock ${lockPath} is no longer this process's (another process took it, or wrote to the file): ` +
        'no more records are written to the file until restart',
    );

  /** Throws when appends must not go on: the lock lost for good, or its state unreadable now. */
  const check = (): void => {
    if (lost) throw lostError();
    const state = lock.state();
    if (state === 'held') return;
    // Retaken only if the file is as this writer left it: another writer that came and went would have grown it.
    if (state === 'removed' && sink.untouched() && lock.retake()) {
      logger.warn(
        { audit_path: path, lock_path: lockPath },
        'audit file lock was removed while the file was written; took it again (nobody else wrote to the file)',
      );
      return;
    }
    lost = true;
    // The lock's text is not logged: its token is what a takeover checks.
    logger.error(
      { audit_path: path, lock_path: lockPath },
      'audit file lock lost to another process; no more audit records are written to this file until restart, ' +
        'so that two writers do not fork its chain',
    );
    throw lostError();
  };

  return {
    append(lines) {
      if (!closed) check();
      sink.append(lines);
    },
    checkLock() {
      if (closed) return;
      try {
        check();
      } catch {
        // Reported by the next append, under the write policy; a lost lock is logged once, above.
      }
    },
    async close() {
      closed = true;
      try {
        await sink.close();
      } finally {
        lock.release();
      }
    },
  };
}
