// The checks every file reader shares: a file hashed for its table's version is read whole, and a file gone or
// unreadable is the load error its errno says, never a bare fs error.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SourceError } from './source-error.ts';
import { fileVersion, hashSourceFile, openSourceFile, readSized, type SourceFile } from './source-file.ts';
import { sourceErrorOf, withWaitingWriter } from './source-test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'ambit-source-file-'));
const file = (name: string) => ({ tableId: 't', displayPath: name, absolutePath: join(dir, name) });

/** The file as the size guard passed it: its size and version then. */
function opened(name: string): SourceFile {
  const stats = statSync(join(dir, name));
  return { ...file(name), byteSize: stats.size, version: fileVersion(stats) };
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('hashSourceFile', () => {
  it('hashes every byte of the file, past one read chunk', () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 'ab');
    writeFileSync(join(dir, 'big.csv'), bytes);
    return hashSourceFile(file('big.csv')).then((hash) =>
      assert.equal(hash, createHash('sha256').update(bytes).digest('hex')),
    );
  });

  it('reports a file removed since it was opened as ingest.file_not_found, without the absolute path', async () => {
    await assert.rejects(hashSourceFile(file('gone.csv')), (error: unknown) => {
      assert.ok(error instanceof SourceError);
      assert.equal(error.code, 'ingest.file_not_found');
      assert.ok(!error.message.includes(dir), 'the absolute path is not shown');
      return true;
    });
  });

  it('refuses a path that is no longer a regular file as ingest.file_size_unknown', async () => {
    mkdirSync(join(dir, 'now-a-directory.csv'));
    await assert.rejects(hashSourceFile(file('now-a-directory.csv')), (error: unknown) => {
      assert.ok(error instanceof SourceError);
      assert.equal(error.code, 'ingest.file_size_unknown');
      return true;
    });
  });

  it('refuses a FIFO put in place of the file without waiting for a writer', async () => {
    writeFileSync(join(dir, 'hashed-fifo.csv'), 'id\n1\n');
    const sized = opened('hashed-fifo.csv');
    rmSync(sized.absolutePath);
    const error = await withWaitingWriter(sized.absolutePath, () =>
      sourceErrorOf(() => hashSourceFile(sized)),
    );
    assert.equal(error.code, 'ingest.file_size_unknown');
  });

  it('hashes no byte past the size the file was opened with', async () => {
    writeFileSync(join(dir, 'growing.csv'), 'id\n1\n');
    const sized = opened('growing.csv');
    appendFileSync(sized.absolutePath, Buffer.alloc(1024 * 1024, 'x'));
    const error = await sourceErrorOf(() => hashSourceFile(sized));
    assert.equal(error.code, 'ingest.file_changed');
  });
});

describe('readSized', () => {
  it('refuses bytes read while the file was rewritten in place at the same size', async () => {
    // An XLSX workbook is read in one pass: a copy writing over it meanwhile would hand the decoder the start of
    // one file and the end of the other (the readers that read again check the file between passes).
    const size = 3 * 1024 * 1024;
    writeFileSync(join(dir, 'rewritten.xlsx'), Buffer.alloc(size, 'a'));
    const sized = opened('rewritten.xlsx');
    const handle = await openSourceFile(sized);
    try {
      let rewritten = false;
      const error = await sourceErrorOf(() =>
        readSized(sized, handle, () => {
          if (rewritten) return;
          rewritten = true;
          writeFileSync(sized.absolutePath, Buffer.alloc(size, 'b'));
        }),
      );
      assert.equal(error.code, 'ingest.file_changed');
    } finally {
      await handle.close();
    }
  });
});

describe('openSourceFile', () => {
  it('refuses a FIFO put in place of the file without waiting for a writer', async () => {
    writeFileSync(join(dir, 'opened-fifo.parquet'), 'PAR1');
    const sized = opened('opened-fifo.parquet');
    rmSync(sized.absolutePath);
    const error = await withWaitingWriter(sized.absolutePath, () =>
      sourceErrorOf(() => openSourceFile(sized)),
    );
    assert.equal(error.code, 'ingest.file_size_unknown');
    assert.ok(!error.message.includes(dir), 'the absolute path is not shown');
  });

  it('refuses a file that grew since the size guard passed', async () => {
    writeFileSync(join(dir, 'grown.parquet'), 'PAR1');
    const sized = opened('grown.parquet');
    appendFileSync(sized.absolutePath, Buffer.alloc(1024 * 1024, 'x'));
    const error = await sourceErrorOf(() => openSourceFile(sized));
    assert.equal(error.code, 'ingest.file_changed');
  });
});
