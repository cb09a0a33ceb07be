// The audit file's lock across hosts: a lock written in another container or on another machine sharing the
// volume names a pid that means nothing here, so it is judged by its lease: refreshed (its holder alive) or still.
// Time is a stand-in that lets "the other host" touch its lock while this start watches.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditFileInUse, acquireLock, lockAuditFile, lockTaker } from './audit-file-lock.ts';
import { LEASE_WATCH_MS, type LeaseWatch, refreshLease, thisHost } from './audit-lock-lease.ts';
import { makeTempDir } from './audit-test-support.ts';

/** Time that passes only when slept; `meanwhile` runs at each sleep (what the other host does). */
function fakeWatch(meanwhile: (slept: number) => void = () => {}): LeaseWatch & { slept(): number } {
  let now = 0;
  return {
    now: () => now,
    sleep(ms) {
      now += ms;
      meanwhile(now);
    },
    slept: () => now,
  };
}

/** A lock written by a process of `pid` on another host, last touched a minute ago. */
function foreignLock(t: { after(fn: () => void): void }, pid: number) {
  const dir = makeTempDir(t);
  const path = join(dir, 'audit.jsonl');
  const lockPath = `${path}.lock`;
  const text = `${pid} 12345 0123456789abcdef other-boot/4026531836\n`;
  writeFileSync(lockPath, text);
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(lockPath, minuteAgo, minuteAgo);
  return { dir, path, lockPath, text };
}

/** The other host's holder, refreshing its lease as it does every few seconds. */
const refreshing = (lockPath: string, text: string) => (slept: number) => {
  const at = new Date(Date.now() - 60_000 + slept);
  if (readFileSync(lockPath, 'utf8') === text) utimesSync(lockPath, at, at);
};

describe('audit file lock across hosts', () => {
  it('refuses a lock from another host whose holder keeps refreshing it, even with this process pid', (t) => {
    // pid 1 in one container is pid 1 in the next: the pid must not be taken for this process's own.
    const { lockPath, text, path } = foreignLock(t, process.pid);
    const watch = fakeWatch(refreshing(lockPath, text));
    assert.throws(
      () => lockAuditFile(path, { leaseWatch: watch }),
      (error) => error instanceof AuditFileInUse && /another host or container/.test(error.message),
    );
    assert.equal(readFileSync(lockPath, 'utf8'), text, 'the holder keeps its lock');
    assert.ok(watch.slept() < LEASE_WATCH_MS, 'it stops watching once the lease moved');
  });

  it('refuses a refreshed lock from another host whose pid is not running here', (t) => {
    const { lockPath, text } = foreignLock(t, 2 ** 22 + 17);
    assert.throws(
      () =>
        acquireLock(lockPath, lockTaker(process.pid), { leaseWatch: fakeWatch(refreshing(lockPath, text)) }),
      AuditFileInUse,
    );
    assert.equal(readFileSync(lockPath, 'utf8'), text);
  });

  it('takes over a lock from another host that stayed still for the whole watch', (t) => {
    // Its pid is alive here (this process's parent), which says nothing about the other host.
    const { dir, path, lockPath } = foreignLock(t, process.ppid);
    const watch = fakeWatch();
    const lock = lockAuditFile(path, { leaseWatch: watch });
    assert.ok(watch.slept() >= LEASE_WATCH_MS, 'it watched the whole lease');
    const now = readFileSync(lockPath, 'utf8');
    assert.match(now, new RegExp(`^${process.pid} `));
    assert.ok(now.trimEnd().endsWith(` ${thisHost()}`), 'the new lock names this host');
    lock.release();
    assert.deepEqual(readdirSync(dir), []);
  });

  it('looks again when the lock from another host is released while it watches', (t) => {
    const { path, lockPath } = foreignLock(t, 4242);
    let released = false;
    const watch = fakeWatch(() => {
      if (!released) {
        released = true;
        writeFileSync(lockPath, '');
        utimesSync(lockPath, new Date(), new Date());
      }
    });
    // Replaced by a lock naming no one: stale at once, no second watch.
    lockAuditFile(path, { leaseWatch: watch }).release();
    assert.ok(watch.slept() < LEASE_WATCH_MS);
  });

  it('judges a lock from this host by its pid, without watching', (t) => {
    const dir = makeTempDir(t);
    const lockPath = join(dir, 'audit.jsonl.lock');
    const held = acquireLock(lockPath, lockTaker(process.ppid));
    const watch = fakeWatch();
    assert.throws(() => acquireLock(lockPath, lockTaker(process.pid), { leaseWatch: watch }), AuditFileInUse);
    assert.equal(watch.slept(), 0);
    held.release();
  });

  it('refreshes its own lease while held, and stops once the lock is no longer its own', (t) => {
    const dir = makeTempDir(t);
    const lockPath = join(dir, 'audit.jsonl.lock');
    const taker = lockTaker(process.pid);
    const lock = acquireLock(lockPath, taker);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockPath, minuteAgo, minuteAgo);
    assert.equal(refreshLease(lockPath, taker.text), true);
    assert.ok(statSync(lockPath).mtimeMs > minuteAgo.getTime() + 30_000, 'touched');
    lock.release();
    writeFileSync(lockPath, 'someone else\n');
    utimesSync(lockPath, minuteAgo, minuteAgo);
    assert.equal(refreshLease(lockPath, taker.text), false);
    assert.equal(Math.round(statSync(lockPath).mtimeMs), Math.round(minuteAgo.getTime()), 'left alone');
  });
});
