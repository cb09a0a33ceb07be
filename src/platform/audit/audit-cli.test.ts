import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../clock.ts';
import { MAX_LINE_BYTES, rotatedFiles, verifyAuditFile } from './audit-cli.ts';
import { makeTempDir, recordingLogger, sequenceRandom, TEST_SECRET } from './audit-test-support.ts';
import { createAuditWriter } from './create-audit-writer.ts';

async function writeRecords(path: string, records: Record<string, unknown>[]): Promise<void> {
  const writer = createAuditWriter({
    sink: 'jsonl',
    path,
    secret: TEST_SECRET,
    writePolicy: 'fail_closed',
    clock: fixedClock('2025-01-01T00:00:00.000Z'),
    random: sequenceRandom(),
    logger: recordingLogger().logger,
  });
  for (const record of records) writer.write(record);
  await writer.close();
}

/** Writes one chain, then spreads its lines over files as a rotation would have (oldest file first). */
async function writeSplit(path: string, parts: [file: string, count: number][]): Promise<void> {
  const total = parts.reduce((sum, [, count]) => sum + count, 0);
  await writeRecords(
    path,
    Array.from({ length: total }, (_, i) => ({ n: i + 1 })),
  );
  const lines = readFileSync(path, 'utf8').split('\n').slice(0, total);
  rmSync(path);
  let at = 0;
  for (const [file, count] of parts) {
    writeFileSync(
      file,
      lines
        .slice(at, at + count)
        .map((line) => `${line}\n`)
        .join(''),
    );
    at += count;
  }
}

describe('verifyAuditFile', () => {
  it('streams files larger than its read chunk, including lines spanning chunks', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const records = Array.from({ length: 300 }, (_, n) => ({
      n,
      pad: 'q'.repeat(n % 7 === 0 ? 70_000 : 300),
    }));
    await writeRecords(path, records);
    const result = verifyAuditFile(path, TEST_SECRET, { startPrevHash: null });
    assert.equal(result.ok && result.count, 300);
  });

  it('reports the file and the line within it', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    await writeSplit(path, [
      [`${path}.2`, 3],
      [`${path}.1`, 2],
      [path, 1],
    ]);
    assert.deepEqual(rotatedFiles(path), [`${path}.2`, `${path}.1`]);
    const intact = verifyAuditFile(path, TEST_SECRET, { includeRotated: true, startPrevHash: null });
    assert.equal(intact.ok && intact.count, 6);
    // Without the rotated files the current file alone verifies from whatever it links to.
    assert.equal(verifyAuditFile(path, TEST_SECRET).ok, true);

    const middle = `${path}.1`;
    writeFileSync(middle, readFileSync(middle, 'utf8').replace('{"n":5}', '{"n":7}'));
    const tampered = verifyAuditFile(path, TEST_SECRET, { includeRotated: true });
    assert.deepEqual(tampered.ok === false && [tampered.file, tampered.line], [middle, 2]);
  });

  it('tolerates gaps in rotated numbering and a missing current file', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    await writeSplit(path, [
      [`${path}.4`, 1],
      [`${path}.1`, 1],
    ]);
    writeFileSync(join(dir, 'audit.jsonl.bak'), 'ignored');
    const result = verifyAuditFile(path, TEST_SECRET, { includeRotated: true, startPrevHash: null });
    assert.deepEqual(result.ok && result.files, [`${path}.4`, `${path}.1`]);
    assert.throws(() => verifyAuditFile(path, TEST_SECRET), { code: 'ENOENT' });
  });

  it('verifies the files as they were when it began, though the running service rotates them meanwhile', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    await writeSplit(path, [
      [`${path}.3`, 2],
      [`${path}.2`, 2],
      [`${path}.1`, 2],
      [path, 2],
    ]);
    const rotate = () => {
      // What a file sink with max_files 3 does: the oldest dropped, each file shifted, a new current file.
      renameSync(`${path}.2`, `${path}.3`);
      renameSync(`${path}.1`, `${path}.2`);
      renameSync(path, `${path}.1`);
      writeFileSync(path, '');
    };
    let rotations = 0;
    const result = verifyAuditFile(path, TEST_SECRET, {
      includeRotated: true,
      startPrevHash: null,
      afterFile: () => {
        if (rotations++ === 0) rotate();
      },
    });
    assert.deepEqual(result.ok && [result.count, result.files], [
      8,
      [`${path}.3`, `${path}.2`, `${path}.1`, path],
    ]);
  });

  it('flags an unterminated or blank last line', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    await writeRecords(path, [{ n: 1 }, { n: 2 }]);
    const content = readFileSync(path, 'utf8');
    writeFileSync(path, content.slice(0, -1));
    const cut = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(cut.ok === false && cut.line, 2);
    assert.match(cut.ok === false ? cut.reason : '', /not terminated/);
    // A write cut mid-line (a crash) is named as such, not only as a line that is not JSON.
    writeFileSync(path, content.slice(0, -40));
    const torn = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(torn.ok === false && [torn.line, torn.reason], [
      2,
      'last line is not terminated (truncated write): line is not valid JSON',
    ]);
    writeFileSync(path, content);
    appendFileSync(path, '\n');
    const blank = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(blank.ok === false && blank.line, 3);
  });

  it('detects bytes changed into invalid UTF-8 that decode to the same text as the record written', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    await writeRecords(path, [{ n: 1 }, { purpose: 'caf\ufffd' }, { n: 3 }]);
    assert.equal(verifyAuditFile(path, TEST_SECRET).ok, true);
    const bytes = readFileSync(path);
    const at = bytes.indexOf(Buffer.from('\ufffd'));
    // U+FFFD written as its three bytes, replaced by one byte that is not UTF-8 (read as U+FFFD again).
    writeFileSync(path, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 3)]));
    const result = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(result.ok === false && [result.line, result.reason], [2, 'line is not valid UTF-8']);
    // A write cut short inside a character is still named as cut short.
    writeFileSync(path, bytes.subarray(0, at + 1));
    const cut = verifyAuditFile(path, TEST_SECRET);
    assert.match(cut.ok === false ? cut.reason : '', /^last line is not terminated \(truncated write\)/);
  });

  it('stops at a line too long to be a record instead of reading it whole', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    await writeRecords(path, [{ n: 1 }]);
    // A run of bytes without a newline (a file of zeros, say), terminated or not.
    appendFileSync(path, Buffer.alloc(MAX_LINE_BYTES + 1, 0x20));
    const unterminated = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(unterminated.ok === false && [unterminated.line, unterminated.reason], [
      2,
      'line is longer than 16 MiB: not an audit record',
    ]);
    appendFileSync(path, '\n');
    const terminated = verifyAuditFile(path, TEST_SECRET);
    assert.deepEqual(terminated.ok === false && terminated.line, 2);
  });
});
