// The audit file's lock removed or replaced under a running writer: with it gone, a second process could take it and
// append to the same chain. The writer checks its lock before each append and at each lease refresh: a lock simply
// removed is taken again when nobody else wrote meanwhile; a lock another process holds, or a file another process
// appended to, stops the writer's appends for good (an error logged once), so the chain never forks.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { verifyAuditFile } from './audit-cli.ts';
import { acquireLock, lockTaker } from './audit-file-lock.ts';
import { LEASE_REFRESH_MS } from './audit-lock-lease.ts';
import {
  makeTempDir,
  readEnvelopes,
  recordingLogger,
  sampleRecord,
  TEST_SECRET,
  writerOptions,
} from './audit-test-support.ts';
import { isWriteFailed } from './chain-writer-test-support.ts';
import { type AuditWriterOptions, createAuditWriter } from './create-audit-writer.ts';

function setup(t: { after(fn: () => void): void }, overrides: Partial<AuditWriterOptions> = {}) {
  const dir = makeTempDir(t);
  const path = join(dir, 'audit.jsonl');
  const lockPath = `${path}.lock`;
  const { logger, calls } = recordingLogger();
  const writer = createAuditWriter(writerOptions({ path, logger, ...overrides }));
  const logged = (level: 'warn' | 'error') => calls.filter((call) => call.level === level);
  return { dir, path, lockPath, writer, calls, logged };
}

const ownLock = (lockPath: string) => readFileSync(lockPath, 'utf8').startsWith(`${process.pid} `);
const ids = (file: string) => readEnvelopes(file).map((envelope) => envelope.record.request_id);

describe('audit file lock lost while the writer runs', () => {
  it('takes a removed lock again at the next append when nobody wrote meanwhile, and warns once', async (t) => {
    const { path, lockPath, writer, logged } = setup(t);
    writer.write(sampleRecord(1));
    rmSync(lockPath);
    writer.write(sampleRecord(2));
    writer.write(sampleRecord(3));
    assert.ok(ownLock(lockPath), 'the lock is this process again');
    assert.deepEqual(
      logged('warn').map((call) => call.fields),
      [{ audit_path: path, lock_path: lockPath }],
    );
    assert.equal(logged('error').length, 0);
    await writer.close();
    assert.equal(existsSync(lockPath), false, 'released on close');
    assert.deepEqual(ids(path), ['req-1', 'req-2', 'req-3']);
    assert.equal(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }).ok, true);
  });

  it('takes the lock again when its folder was removed with the audit file', async (t) => {
    const { dir, path, lockPath, writer, logged } = setup(t);
    writer.write(sampleRecord(1));
    rmSync(dir, { recursive: true });
    writer.write(sampleRecord(2));
    assert.ok(ownLock(lockPath));
    assert.equal(logged('error').length, 0);
    await writer.close();
    assert.deepEqual(ids(path), ['req-2']);
  });

  it('fail_closed: stops appending once another process holds the lock, logs it once, and leaves that lock alone', async (t) => {
    const { path, lockPath, writer, logged } = setup(t);
    writer.write(sampleRecord(1));
    rmSync(lockPath);
    // Another live process (this one's parent) takes the lock meanwhile.
    const other = acquireLock(lockPath, lockTaker(process.ppid));
    const theirs = readFileSync(lockPath, 'utf8');
    const before = writer.lastHash;
    assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
    assert.throws(() => writer.write(sampleRecord(3)), isWriteFailed);
    assert.equal(writer.lastHash, before);
    const lockErrors = logged('error').filter((call) => call.fields.lock_path === lockPath);
    assert.deepEqual(
      lockErrors.map((call) => call.fields),
      [{ audit_path: path, lock_path: lockPath }],
    );
    assert.ok(!JSON.stringify(logged('error')).includes(theirs.trim()), 'the lock token is not logged');
    await writer.close();
    assert.equal(readFileSync(lockPath, 'utf8'), theirs, 'the other process keeps its lock');
    assert.deepEqual(ids(path), ['req-1']);
    other.release();
  });

  it('availability_first: answers on, writes nothing more to the file, and logs the lost lock', async (t) => {
    const { path, lockPath, writer, logged } = setup(t, { writePolicy: 'availability_first' });
    writer.write(sampleRecord(1));
    rmSync(lockPath);
    const other = acquireLock(lockPath, lockTaker(process.ppid));
    writer.write(sampleRecord(2));
    await new Promise<void>((resolve, reject) =>
      writer.enqueue(sampleRecord(3), (error) => (error === undefined ? resolve() : reject(error))),
    );
    await writer.close();
    assert.deepEqual(ids(path), ['req-1']);
    assert.ok(logged('error').some((call) => call.fields.lock_path === lockPath));
    other.release();
  });

  it('does not take a removed lock again when another writer appended meanwhile: the chain does not fork', async (t) => {
    const { path, lockPath, writer, logged } = setup(t);
    writer.write(sampleRecord(1));
    rmSync(lockPath);
    // A second writer starts on the unlocked file, resumes its chain, writes, and stops (releasing its lock).
    const second = createAuditWriter(writerOptions({ path }));
    second.write(sampleRecord(2));
    await second.close();
    assert.throws(() => writer.write(sampleRecord(3)), isWriteFailed);
    assert.ok(logged('error').some((call) => call.fields.lock_path === lockPath));
    assert.equal(existsSync(lockPath), false, 'not taken again');
    await writer.close();
    assert.deepEqual(ids(path), ['req-1', 'req-2']);
    assert.equal(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }).ok, true);
  });

  it('notices at its lease refresh, without an append: a removed lock is taken again, a replaced one logged', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const removed = setup(t);
    removed.writer.write(sampleRecord(1));
    rmSync(removed.lockPath);
    t.mock.timers.tick(LEASE_REFRESH_MS);
    assert.ok(ownLock(removed.lockPath), 'taken again before any append');
    assert.equal(removed.logged('warn').length, 1);
    await removed.writer.close();

    const replaced = setup(t);
    rmSync(replaced.lockPath);
    const other = acquireLock(replaced.lockPath, lockTaker(process.ppid));
    t.mock.timers.tick(LEASE_REFRESH_MS);
    t.mock.timers.tick(LEASE_REFRESH_MS);
    assert.equal(replaced.logged('error').length, 1, 'logged once, at the first refresh that saw it');
    assert.throws(() => replaced.writer.write(sampleRecord(1)), isWriteFailed);
    await replaced.writer.close();
    other.release();
  });
});

describe('a write after the writer closed', () => {
  it('fails as a closed writer does, without taking the released lock again', async (t) => {
    const { path, lockPath, writer, logged } = setup(t);
    writer.write(sampleRecord(1));
    await writer.close();
    assert.equal(existsSync(lockPath), false, 'released on close');
    // As any closed writer (write-policy tests): audit.write_failed, because the file is closed, not a lost lock.
    assert.throws(
      () => writer.write(sampleRecord(2)),
      (error: unknown) => isWriteFailed(error) && /is closed/.test(String((error as Error).cause)),
    );
    assert.equal(existsSync(lockPath), false, 'still released');
    assert.deepEqual(logged('warn'), []);
    assert.deepEqual(ids(path), ['req-1']);
  });
});
