// An audit file removed or moved away under a running writer (a cleanup job, logrotate without copytruncate): the
// writer notices before its next append, warns once, and goes on in a new file at the path that continues the chain.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { verifyAuditFile } from './audit-cli.ts';
import {
  makeTempDir,
  readEnvelopes,
  recordingLogger,
  sampleRecord,
  TEST_SECRET,
  writerOptions,
} from './audit-test-support.ts';
import { createAuditWriter } from './create-audit-writer.ts';

const MB = 1024 * 1024;

function setup(t: { after(fn: () => void): void }, sink: 'jsonl' | 'file' = 'jsonl') {
  const dir = makeTempDir(t);
  const path = join(dir, 'audit.jsonl');
  const { logger, calls } = recordingLogger();
  const writer = createAuditWriter(
    writerOptions({
      sink,
      path,
      logger,
      ...(sink === 'file' ? { rotate: { max_size_mb: 1, max_files: 3 } } : {}),
    }),
  );
  const warnings = () => calls.filter((call) => call.level === 'warn');
  return { dir, path, writer, calls, warnings };
}

const ids = (file: string) => readEnvelopes(file).map((envelope) => envelope.record.request_id);

describe('audit file moved or removed while the writer runs', () => {
  it('writes on in a new file at the path after a rename, leaving the moved file whole, and warns once', async (t) => {
    const { path, writer, calls, warnings } = setup(t);
    writer.write(sampleRecord(1));
    writer.write(sampleRecord(2));
    const lastBefore = writer.lastHash;
    renameSync(path, `${path}-20250101`);
    writer.write(sampleRecord(3));
    writer.write(sampleRecord(4));
    await writer.close();

    assert.deepEqual(ids(`${path}-20250101`), ['req-1', 'req-2']);
    assert.deepEqual(ids(path), ['req-3', 'req-4']);
    assert.deepEqual(
      warnings().map((call) => call.fields),
      [{ audit_path: path, previous_file: 'moved', new_file_bytes: 0 }],
    );
    assert.equal(calls.filter((call) => call.level === 'error').length, 0);
    // The new file verifies on its own as a continuation of the last record of the moved one, and the two as one.
    const moved = verifyAuditFile(`${path}-20250101`, TEST_SECRET, { startPrevHash: null });
    assert.deepEqual(moved.ok && moved.lastHash, lastBefore);
    const current = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(current.ok && [current.count, current.startsFrom], [2, lastBefore]);
    assert.equal(verifyAuditFile(path, TEST_SECRET, { startPrevHash: lastBefore }).ok, true);
  });

  it('writes on in a new file after the file was deleted, says so, and the new file continues the chain', async (t) => {
    const { path, writer, warnings } = setup(t);
    writer.write(sampleRecord(1));
    const lastBefore = writer.lastHash;
    rmSync(path);
    writer.write(sampleRecord(2));
    await writer.close();

    assert.deepEqual(ids(path), ['req-2']);
    assert.deepEqual(
      warnings().map((call) => call.fields),
      [{ audit_path: path, previous_file: 'removed', new_file_bytes: 0 }],
    );
    const current = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(current.ok && current.startsFrom, lastBefore);
    // From the start of the chain it does not verify: its earlier records are gone.
    assert.equal(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }).ok, false);
  });

  it("appends to the file logrotate's `create` put in its place, and never to the moved one", async (t) => {
    const { path, writer, warnings } = setup(t);
    writer.write(sampleRecord(1));
    renameSync(path, `${path}.old`);
    writeFileSync(path, '', { mode: 0o640 });
    writer.write(sampleRecord(2));
    writer.write(sampleRecord(3));
    await writer.close();
    assert.deepEqual(ids(`${path}.old`), ['req-1']);
    assert.deepEqual(ids(path), ['req-2', 'req-3']);
    assert.equal(warnings().length, 1);
  });

  it('warns once per move, each time naming the path and nothing of the records or the secret', async (t) => {
    const { path, writer, calls, warnings } = setup(t);
    writer.write(sampleRecord(1));
    renameSync(path, `${path}.a`);
    writer.write(sampleRecord(2));
    writer.write(sampleRecord(3));
    renameSync(path, `${path}.b`);
    writer.write(sampleRecord(4));
    await writer.close();
    assert.equal(warnings().length, 2);
    const logged = JSON.stringify(calls);
    assert.ok(!logged.includes('req-'), 'no record is logged');
    assert.ok(!logged.includes(TEST_SECRET.toString('utf8')), 'no secret is logged');
    assert.deepEqual(
      [ids(`${path}.a`), ids(`${path}.b`), ids(path)],
      [['req-1'], ['req-2', 'req-3'], ['req-4']],
    );
  });

  it('file sink: a rename to `.1` by an outside rotation keeps one chain that verifies with --rotated', async (t) => {
    const { path, writer, warnings } = setup(t, 'file');
    writer.write(sampleRecord(1));
    writer.write(sampleRecord(2));
    renameSync(path, `${path}.1`);
    writer.write(sampleRecord(3));
    await writer.close();

    assert.deepEqual([ids(`${path}.1`), ids(path)], [['req-1', 'req-2'], ['req-3']]);
    assert.equal(existsSync(`${path}.2`), false, 'no rotation of its own');
    assert.equal(warnings().length, 1);
    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true, startPrevHash: null });
    assert.deepEqual(result.ok && result.count, 3);
  });

  it('file sink: a file moved away past the size limit is not rotated, and the rotated files stay as they were', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    const { logger, calls } = recordingLogger();
    const writer = createAuditWriter(
      writerOptions({ sink: 'file', path, logger, rotate: { max_size_mb: 1500 / MB, max_files: 3 } }),
    );
    for (let n = 1; n <= 12; n++) writer.write({ ...sampleRecord(n), purpose: 'x'.repeat(200) });
    const rotated = [`${path}.1`, `${path}.2`, `${path}.3`].map((file) => readFileSync(file, 'utf8'));
    renameSync(path, join(dir, 'moved.jsonl'));
    writer.write(sampleRecord(13));
    await writer.close();
    assert.deepEqual(
      [`${path}.1`, `${path}.2`, `${path}.3`].map((file) => readFileSync(file, 'utf8')),
      rotated,
    );
    assert.deepEqual(ids(path), ['req-13']);
    assert.equal(calls.filter((call) => call.level === 'warn').length, 1);
  });
});
