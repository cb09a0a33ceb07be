// The page header checks against files a writer made: lists and structs, whose leaves hold more values than rows,
// over many pages and row groups, must read back whole.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { openFileSource } from './open-file-source.ts';
import { rowsOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-parquet-pages-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readParquet page header checks', () => {
  it('reads nested columns spread over many pages and row groups', async () => {
    const rows = 5000;
    const ids = Array.from({ length: rows }, (_, i) => i);
    const tags = ids.map((i) => Array.from({ length: i % 4 }, (_, j) => i + j));
    const points = ids.map((i) => ({ x: i, y: i % 3 === 0 ? null : i * 2 }));
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ids },
        { name: 'tags', data: tags },
        { name: 'point', data: points },
      ],
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'tags', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'point', repetition_type: 'REQUIRED', num_children: 2 },
        { name: 'x', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'y', type: 'INT32', repetition_type: 'OPTIONAL' },
      ],
      pageSize: 1000,
      rowGroupSize: 3000,
    });
    await writeFile(join(dir, 'nested.parquet'), new Uint8Array(bytes));
    const source = await openFileSource(
      'facilities',
      { type: 'file', path: 'nested.parquet' },
      { baseDir: dir, maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 },
    );
    const read = await rowsOf(source);
    assert.equal(read.length, rows);
    assert.deepEqual(read[7], [7, [7, 8, 9], { x: 7, y: 14 }]);
    assert.deepEqual(read[4997], [4997, [4997], { x: 4997, y: 9994 }]);
    assert.deepEqual(read[4998], [4998, [4998, 4999], { x: 4998, y: null }]);
  });
});
