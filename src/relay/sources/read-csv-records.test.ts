// A CSV record is held whole until it ends, so its size is bounded: a line that never ends (no newline, or a quote
// never closed) must fail the load with a coded error naming its row and line, not grow until the process dies.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCsv } from './read-csv.ts';
import { csvFileOf, DEFAULT_CSV, rowsOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-csv-records-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fileOf = (name: string) => csvFileOf(dir, name);

describe('readCsv record size', () => {
  it('refuses a record over the record size limit, naming its row, without reading it whole', async () => {
    const limits = { maxColumns: 10, maxCells: 100, maxRecordBytes: 4096 };
    await writeFile(join(dir, 'long.csv'), `id,name\n1,a\n2,${'x'.repeat(5000)}\n3,c\n`);
    const error = await sourceErrorOf(async () =>
      rowsOf(await readCsv(await fileOf('long.csv'), DEFAULT_CSV, limits)),
    );
    assert.deepEqual([error.code, error.row], ['ingest.parse_error', 2]);
    assert.match(error.message, /line 3: a record holds more than 4096 bytes/);
    // A line that never ends (no newline, a quote never closed) is one record that never ends.
    await writeFile(join(dir, 'endless.csv'), `"${'h'.repeat(5000)}`);
    const header = await sourceErrorOf(async () => readCsv(await fileOf('endless.csv'), DEFAULT_CSV, limits));
    assert.match(
      header.message,
      /^ingest.parse_error: .* malformed header at line 1: a record holds more than 4096/,
    );
  });
});
