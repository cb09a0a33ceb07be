// Audit write policies: fail_closed and availability_first on failed appends, full disks and removed folders.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import type { AuditEnvelope } from './audit-envelope.ts';
import { makeTempDir, readEnvelopes, sampleRecord, writerOptions } from './audit-test-support.ts';
import { flakySink, isWriteFailed, writerOn } from './chain-writer-test-support.ts';
import { createAuditWriter } from './create-audit-writer.ts';

const options = writerOptions;

describe('write policy', () => {
  it('fail_closed: a failed append throws audit.write_failed and the chain does not advance', () => {
    const sink = flakySink();
    const { writer, calls } = writerOn(sink);
    writer.write(sampleRecord(1));
    const before = writer.lastHash;
    sink.failing = true;
    assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
    assert.throws(() => writer.write(sampleRecord(3)), isWriteFailed);
    assert.equal(writer.lastHash, before);
    assert.equal(calls.filter((c) => c.level === 'error').length, 1);
    assert.ok(!JSON.stringify(calls).includes('req-2'), 'the record must not be logged');

    sink.failing = false;
    writer.write(sampleRecord(4));
    const resumed = JSON.parse(sink.lines[1] as string) as AuditEnvelope;
    assert.equal(resumed.prev_hash, before);
    assert.equal(calls.at(-1)?.level, 'warn');
    assert.equal(calls.at(-1)?.fields.failed_writes, 2);
  });

  it('availability_first: failures do not throw, are logged once per burst and leave the chain intact', () => {
    const sink = flakySink();
    const { writer, calls } = writerOn(sink, 'availability_first');
    writer.write(sampleRecord(1));
    sink.failing = true;
    for (let n = 2; n <= 5; n++) writer.write(sampleRecord(n));
    sink.failing = false;
    writer.write(sampleRecord(6));
    sink.failing = true;
    writer.write(sampleRecord(7));
    const errors = calls.filter((c) => c.level === 'error');
    assert.equal(errors.length, 2, 'one error per burst');
    assert.equal(errors[0]?.fields.err_code, 'EIO');
    assert.ok(!JSON.stringify(calls).includes('req-'), 'the record must not be logged');
    // Lost records leave no gap in the links: record 6 follows record 1 directly.
    const [one, six] = sink.lines.map((line) => JSON.parse(line) as AuditEnvelope);
    assert.equal(sink.lines.length, 2);
    assert.equal(six?.prev_hash, one?.record_hash);
    assert.equal(writer.lastHash, six?.record_hash);
  });

  it('fail_closed with a real file on a full disk (/dev/full)', async () => {
    const writer = createAuditWriter(options({ path: '/dev/full' }));
    assert.throws(
      () => writer.write(sampleRecord(1)),
      (error: unknown) => {
        return (
          isWriteFailed(error) && (error as Error & { cause?: { code?: string } }).cause?.code === 'ENOSPC'
        );
      },
    );
    assert.equal(writer.lastHash, null);
    await writer.close();
  });

  it('fail_closed after the writer was closed', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writer = createAuditWriter(options({ path }));
    writer.write(sampleRecord(1));
    const before = writer.lastHash;
    await writer.close();
    assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
    assert.equal(writer.lastHash, before);
    assert.equal(readEnvelopes(path).length, 1);
  });

  it('fail_closed when the audit folder cannot be made again, and availability_first carries on', async (t) => {
    for (const writePolicy of ['fail_closed', 'availability_first'] as const) {
      const dir = join(makeTempDir(t), 'gone');
      const path = join(dir, 'audit.jsonl');
      const writer = createAuditWriter(
        options({ sink: 'file', path, rotate: { max_size_mb: 0.0001, max_files: 2 }, writePolicy }),
      );
      writer.write(sampleRecord(1));
      const before = writer.lastHash;
      // The folder removed and a plain file in its place: the audit file can be neither written nor opened again.
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(dir, 'not a folder');
      if (writePolicy === 'fail_closed') assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
      else writer.write(sampleRecord(2));
      assert.equal(writer.lastHash, before);
      await writer.close();
    }
  });

  it('opens the audit file again in a folder made again when the folder was removed', async (t) => {
    const dir = join(makeTempDir(t), 'gone');
    const path = join(dir, 'audit.jsonl');
    const writer = createAuditWriter(options({ sink: 'file', path, writePolicy: 'fail_closed' }));
    writer.write(sampleRecord(1));
    rmSync(dir, { recursive: true, force: true });
    writer.write(sampleRecord(2));
    await writer.close();
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.request_id),
      ['req-2'],
    );
  });
});
