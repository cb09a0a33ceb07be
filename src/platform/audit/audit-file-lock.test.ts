// The audit file's lock: two starts racing for one stale lock, a takeover cut short, a writer reopened in place.
// "Another process" is a stand-in taker named after a live process (this one's parent), let in at the points
// where a takeover can be overtaken.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  AuditFileInUse,
  type AuditFileLock,
  acquireLock,
  lockAuditFile,
  lockTaker,
} from './audit-file-lock.ts';
import { makeTempDir } from './audit-test-support.ts';

/** The pid of a process that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid as number;

const inUseBy = (pid: number) => (error: unknown) =>
  error instanceof AuditFileInUse && error.ownerPid === pid;

/** A folder holding `audit.jsonl.lock` left by a process that is gone. */
function staleLock(t: { after(fn: () => void): void }) {
  const dir = makeTempDir(t);
  const lockPath = join(dir, 'audit.jsonl.lock');
  writeFileSync(lockPath, `${deadPid()} 1\n`);
  return { dir, lockPath };
}

/** Runs `fn` the first time the step reaches `lockPath` itself (not a takeover lock of it). */
function onceAt(lockPath: string, fn: () => void): (path: string) => void {
  let done = false;
  return (path) => {
    if (path !== lockPath || done) return;
    done = true;
    fn();
  };
}

describe('audit file lock', () => {
  it('lets one of two starts take over a stale lock when the other judged it stale too and comes second', (t) => {
    const { dir, lockPath } = staleLock(t);
    const other = lockTaker(process.ppid);
    let otherLock: AuditFileLock | undefined;
    // The other start takes the lock over between this one's judgement and its takeover.
    const judgedStale = onceAt(lockPath, () => {
      otherLock = acquireLock(lockPath, other);
    });
    assert.throws(
      () => acquireLock(lockPath, lockTaker(process.pid), { judgedStale }),
      inUseBy(process.ppid),
    );
    assert.ok(otherLock !== undefined, 'the other start holds the lock');
    assert.equal(readFileSync(lockPath, 'utf8'), other.text);
    assert.deepEqual(readdirSync(dir), ['audit.jsonl.lock'], 'no takeover or draft file is left');
  });

  it('refuses the other start while this one holds the right to replace the stale lock', (t) => {
    const { dir, lockPath } = staleLock(t);
    const mine = lockTaker(process.pid);
    const holdingTakeover = onceAt(lockPath, () => {
      assert.throws(() => acquireLock(lockPath, lockTaker(process.ppid)), inUseBy(process.pid));
    });
    const lock = acquireLock(lockPath, mine, { holdingTakeover });
    assert.equal(readFileSync(lockPath, 'utf8'), mine.text);
    lock.release();
    assert.deepEqual(readdirSync(dir), []);
  });

  it('takes over a stale lock whose takeover a killed process left half done', (t) => {
    const { dir, lockPath } = staleLock(t);
    const script = `
      import { acquireLock, lockTaker } from ${JSON.stringify(new URL('./audit-file-lock.ts', import.meta.url).pathname)};
      acquireLock(process.argv[1], lockTaker(process.pid), {
        holdingTakeover: () => process.kill(process.pid, 'SIGKILL'),
      });`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script, lockPath], {
      encoding: 'utf8',
    });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    assert.equal(readdirSync(dir).filter((name) => name.includes('.takeover-')).length, 1);
    const lock = lockAuditFile(join(dir, 'audit.jsonl'));
    assert.match(readFileSync(lockPath, 'utf8'), new RegExp(`^${process.pid} `));
    assert.deepEqual(readdirSync(dir), ['audit.jsonl.lock']);
    lock.release();
    assert.equal(existsSync(lockPath), false);
  });

  it('refuses a lock a live process holds, and takes over one that names no one', (t) => {
    const dir = makeTempDir(t);
    const lockPath = join(dir, 'audit.jsonl.lock');
    const held = acquireLock(lockPath, lockTaker(process.ppid));
    assert.throws(() => lockAuditFile(join(dir, 'audit.jsonl')), inUseBy(process.ppid));
    held.release();
    writeFileSync(lockPath, '');
    lockAuditFile(join(dir, 'audit.jsonl')).release();
    assert.deepEqual(readdirSync(dir), []);
  });

  it('keeps the lock of a writer reopened in place when the first writer closes', (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    const first = lockAuditFile(path);
    const second = lockAuditFile(path);
    first.release();
    assert.equal(existsSync(`${path}.lock`), true, 'the second writer still holds the file');
    assert.throws(() => acquireLock(`${path}.lock`, lockTaker(process.ppid)), inUseBy(process.pid));
    second.release();
    assert.equal(existsSync(`${path}.lock`), false);
  });
});
