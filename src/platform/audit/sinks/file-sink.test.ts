import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../../clock.ts';
import { rotatedFiles, verifyAuditFile } from '../audit-cli.ts';
import type { AuditEnvelope } from '../audit-envelope.ts';
import { makeTempDir, recordingLogger, sequenceRandom, TEST_SECRET } from '../audit-test-support.ts';
import { type AuditWriterOptions, createAuditWriter } from '../create-audit-writer.ts';
import { createFileSink } from './file-sink.ts';

const MB = 1024 * 1024;

function fileOptions(path: string, rotate: { max_size_mb: number; max_files: number }): AuditWriterOptions {
  return {
    sink: 'file',
    path,
    rotate,
    secret: TEST_SECRET,
    writePolicy: 'fail_closed',
    clock: fixedClock('2025-01-01T00:00:00.000Z'),
    random: sequenceRandom(),
    logger: recordingLogger().logger,
  };
}

function envelopes(path: string): AuditEnvelope[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEnvelope);
}

describe('file sink rotation', () => {
  it('rotates before a line would pass the size limit and keeps max_files rotated files', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const maxBytes = 1500;
    const writer = createAuditWriter(fileOptions(path, { max_size_mb: maxBytes / MB, max_files: 3 }));
    for (let seq = 1; seq <= 40; seq++) writer.write({ seq, note: 'x'.repeat(200) });
    await writer.close();

    const files = [`${path}.3`, `${path}.2`, `${path}.1`, path];
    for (const file of files) {
      assert.ok(existsSync(file), `${file} exists`);
      assert.ok(statSync(file).size <= maxBytes, `${file} stays under the limit`);
    }
    assert.equal(existsSync(`${path}.4`), false, 'files beyond max_files are dropped');

    // Oldest to newest, the retained records are the last ones written, in order and linked across files.
    const retained = files.flatMap(envelopes);
    const seqs = retained.map((e) => e.record.seq);
    assert.deepEqual(
      seqs,
      Array.from({ length: seqs.length }, (_, i) => 40 - seqs.length + 1 + i),
    );
    for (let i = 1; i < retained.length; i++) {
      assert.equal(retained[i]?.prev_hash, retained[i - 1]?.record_hash);
    }
    assert.notEqual(retained[0]?.prev_hash, null, 'the oldest retained file continues a dropped chain');

    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true });
    assert.deepEqual(result, {
      ok: true,
      count: retained.length,
      lastHash: writer.lastHash,
      files,
      // The oldest retained record continues records that were dropped.
      startsFrom: retained[0]?.prev_hash,
    });
    // Anchoring at genesis shows that older records were dropped.
    const anchored = verifyAuditFile(path, TEST_SECRET, { includeRotated: true, startPrevHash: null });
    assert.deepEqual(anchored.ok === false && [anchored.file, anchored.line], [`${path}.3`, 1]);
  });

  it('drops the rotated files beyond a lowered max_files at the next rotation, so the rest still verifies', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    // One record per file.
    const rotate = (max_files: number) => ({ max_size_mb: 100 / MB, max_files });
    const before = createAuditWriter(fileOptions(path, rotate(5)));
    for (let seq = 1; seq <= 8; seq++) before.write({ seq });
    await before.close();
    assert.equal(verifyAuditFile(path, TEST_SECRET, { includeRotated: true }).ok, true);

    const after = createAuditWriter(fileOptions(path, rotate(2)));
    after.write({ seq: 9 });
    await after.close();
    assert.deepEqual(rotatedFiles(path), [`${path}.2`, `${path}.1`]);
    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true });
    assert.deepEqual(result.ok && [result.count, result.files], [3, [`${path}.2`, `${path}.1`, path]]);
  });

  it('says a chain split over rotated files starts at genesis when the oldest file starts it', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writer = createAuditWriter(fileOptions(path, { max_size_mb: 1500 / MB, max_files: 5 }));
    for (let seq = 1; seq <= 12; seq++) writer.write({ seq, note: 'x'.repeat(200) });
    await writer.close();
    assert.ok(existsSync(`${path}.1`) && !existsSync(`${path}.5`), 'rotated, nothing dropped');
    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true });
    assert.equal(result.ok && result.count, 12);
    assert.equal(result.ok && result.startsFrom, null);
  });

  it('starts a new current file when the current one was removed, and never drops the rotated ones for it', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writer = createAuditWriter(fileOptions(path, { max_size_mb: 1500 / MB, max_files: 3 }));
    for (let seq = 1; seq <= 12; seq++) writer.write({ seq, note: 'x'.repeat(200) });
    const rotated = [`${path}.1`, `${path}.2`].map((file) => readFileSync(file, 'utf8'));
    // Removed while over the rotation threshold: the next writes must neither fail nor shift the rotated files.
    rmSync(path);
    for (let seq = 13; seq <= 15; seq++) writer.write({ seq, note: 'y' });
    await writer.close();
    assert.deepEqual(
      [`${path}.1`, `${path}.2`].map((file) => readFileSync(file, 'utf8')),
      rotated,
    );
    assert.deepEqual(
      envelopes(path).map((envelope) => envelope.record.seq),
      [13, 14, 15],
    );
  });

  it('keeps exactly one rotated file with max_files 1 and writes an oversized line into an empty file', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writer = createAuditWriter(fileOptions(path, { max_size_mb: 300 / MB, max_files: 1 }));
    writer.write({ big: 'y'.repeat(1000) });
    assert.equal(existsSync(`${path}.1`), false, 'no rotation away from an empty file');
    writer.write({ small: 1 });
    writer.write({ small: 2 });
    await writer.close();
    assert.equal(existsSync(`${path}.2`), false);
    assert.deepEqual(
      envelopes(path).map((e) => e.record),
      [{ small: 2 }],
    );
    assert.deepEqual(
      envelopes(`${path}.1`).map((e) => e.record),
      [{ small: 1 }],
    );
  });

  it('resumes from the newest rotated file when a rotation left the current file empty', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const first = createAuditWriter(fileOptions(path, { max_size_mb: 1, max_files: 3 }));
    first.write({ n: 1 });
    first.write({ n: 2 });
    await first.close();
    renameSync(path, `${path}.1`);
    writeFileSync(path, '');

    const second = createAuditWriter(fileOptions(path, { max_size_mb: 1, max_files: 3 }));
    assert.equal(second.lastHash, first.lastHash);
    second.write({ n: 3 });
    await second.close();
    assert.equal(envelopes(path)[0]?.prev_hash, first.lastHash);
    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true, startPrevHash: null });
    assert.equal(result.ok && result.count, 3);
  });

  it('continues the chain in memory across a rotation after a restart', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const rotate = { max_size_mb: 1000 / MB, max_files: 8 };
    for (let run = 0; run < 3; run++) {
      const writer = createAuditWriter(fileOptions(path, rotate));
      for (let n = 0; n < 4; n++) writer.write({ run, n, pad: 'z'.repeat(100) });
      await writer.close();
    }
    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true, startPrevHash: null });
    assert.deepEqual(result.ok && [result.count, result.files.length > 2], [12, true]);
  });

  it('refuses appends after close', async (t) => {
    const sink = createFileSink(join(makeTempDir(t), 'audit.jsonl'), { max_size_mb: 1, max_files: 2 });
    sink.append('{}\n');
    await sink.close();
    assert.throws(() => sink.append('{}\n'), /closed/);
  });
});
