// The checks every file reader shares: a file hashed for its table's version is read whole, and a file gone or
// unreadable is the load error its errno says, never a bare fs error.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SourceError } from './source-error.ts';
import { hashSourceFile } from './source-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'ambit-source-file-'));
const file = (name: string) => ({ tableId: 't', displayPath: name, absolutePath: join(dir, name) });

describe('hashSourceFile', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

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

  it('reports a path that is no longer a readable file as ingest.file_unreadable', async () => {
    mkdirSync(join(dir, 'now-a-directory.csv'));
    await assert.rejects(hashSourceFile(file('now-a-directory.csv')), (error: unknown) => {
      assert.ok(error instanceof SourceError);
      assert.equal(error.code, 'ingest.file_unreadable');
      return true;
    });
  });
});
