// Opening a file source: format inference, the size guard that runs before decoding, and missing files.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parquetWriteBuffer } from 'hyparquet-writer';
import writeXlsxFile from 'write-excel-file/node';
import type { FileSourceConfig } from '../config/schema.ts';
import { type OpenSourceOptions, openFileSource, type SourceRows } from './open-file-source.ts';
import { rowsOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-open-'));
  await mkdir(join(dir, 'data'));
  await writeFile(join(dir, 'data', 'people.csv'), 'id,name\n1,Ada\n');
  await writeFile(join(dir, 'data', 'people.tsv'), 'id\tname\n1\tAda\n');
  await writeFile(join(dir, 'data', 'PEOPLE.CSV'), 'id;name\n1;Ada\n');
  await writeFile(join(dir, 'data', 'people.txt'), 'id,name\n1,Ada\n');
  await writeFile(
    join(dir, 'data', 'people.xlsx'),
    await writeXlsxFile([
      ['id', 'name'],
      [1, 'Ada'],
    ]).toBuffer(),
  );
  const parquet = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: [1], type: 'INT32' },
      { name: 'name', data: ['Ada'], type: 'STRING' },
    ],
  });
  await writeFile(join(dir, 'data', 'people.parquet'), new Uint8Array(parquet));
  // Garbage in every format: if decoding started, these would fail with ingest.parse_error.
  await writeFile(join(dir, 'data', 'garbage.xlsx'), Buffer.alloc(4096, 0x41));
  await writeFile(join(dir, 'data', 'garbage.parquet'), Buffer.alloc(4096, 0x41));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ROOMY: OpenSourceOptions = { baseDir: '', maxFileBytes: 1 << 20, xlsxMaxFileBytes: 1 << 20 };

function open(
  path: string,
  format?: FileSourceConfig['format'],
  limits: Partial<OpenSourceOptions> = {},
): Promise<SourceRows> {
  const source: FileSourceConfig = { type: 'file', path };
  if (format !== undefined) source.format = format;
  return openFileSource('people', source, { ...ROOMY, baseDir: dir, ...limits });
}

describe('openFileSource', () => {
  it('infers the format from the extension', async () => {
    assert.deepEqual(await rowsOf(await open('data/people.csv')), [['1', 'Ada']]);
    assert.deepEqual(await rowsOf(await open('data/people.tsv')), [['1', 'Ada']]);
    assert.deepEqual(await rowsOf(await open('data/people.xlsx')), [[1, 'Ada']]);
    assert.deepEqual(await rowsOf(await open('data/people.parquet')), [[1, 'Ada']]);
  });

  it('matches extensions case-insensitively', async () => {
    const source = await open('data/PEOPLE.CSV');
    assert.deepEqual(source.columns, ['id;name']);
  });

  it('uses the configured format over the extension', async () => {
    const source = await open('data/people.txt', { csv: { header_row: true, delimiter: ',', quote: '"' } });
    assert.deepEqual(source.columns, ['id', 'name']);
    const semicolon = await open('data/PEOPLE.CSV', {
      csv: { header_row: true, delimiter: ';', quote: '"' },
    });
    assert.deepEqual(await rowsOf(semicolon), [['1', 'Ada']]);
  });

  it('refuses an unknown extension without a format', async () => {
    const error = await sourceErrorOf(() => open('data/people.txt'));
    assert.equal(error.code, 'ingest.unsupported_format');
    assert.match(error.message, /people\.txt/);
  });

  it('reports a missing file without revealing the absolute path', async () => {
    const error = await sourceErrorOf(() => open('data/absent.csv'));
    assert.equal(error.code, 'ingest.file_not_found');
    assert.equal(error.tableId, 'people');
    assert.match(error.message, /data\/absent\.csv/);
    assert.ok(!error.message.includes(dir), 'absolute path leaked');
  });

  it('fails closed on a path whose size cannot be checked', async () => {
    const error = await sourceErrorOf(() =>
      open('data', { csv: { header_row: true, delimiter: ',', quote: '"' } }),
    );
    assert.equal(error.code, 'ingest.file_size_unknown');
  });

  it('refuses a file that holds more bytes than its size says (procfs), in every format', async () => {
    // /proc files report size 0 yet read as text: the size guard cannot bound what they hold.
    for (const format of [
      { csv: { header_row: true, delimiter: ',', quote: '"' } },
      { xlsx: { header_row: 1 } },
      { parquet: {} },
    ] satisfies FileSourceConfig['format'][]) {
      const error = await sourceErrorOf(() => open('/proc/self/status', format));
      assert.equal(error.code, 'ingest.file_size_unknown', JSON.stringify(format));
      assert.match(error.message, /\/proc\/self\/status holds more than the 0 bytes/);
    }
  });

  it('checks the size before decoding, with the limit of the format', async () => {
    for (const name of ['garbage.xlsx', 'garbage.parquet']) {
      const decoded = await sourceErrorOf(() => open(`data/${name}`));
      assert.equal(decoded.code, 'ingest.parse_error', `${name} is decoded when it fits`);
      const guarded = await sourceErrorOf(() =>
        open(`data/${name}`, undefined, { maxFileBytes: 10, xlsxMaxFileBytes: 10 }),
      );
      assert.equal(guarded.code, 'ingest.file_too_large', `${name} is refused before decoding`);
    }
    const xlsx = await sourceErrorOf(() => open('data/garbage.xlsx', undefined, { xlsxMaxFileBytes: 4095 }));
    assert.equal(xlsx.code, 'ingest.file_too_large');
    assert.match(xlsx.message, /server\.xlsx_max_file_bytes/);
    assert.ok(
      await open('data/people.xlsx', undefined, { maxFileBytes: 1 }),
      'xlsx ignores the CSV/Parquet limit',
    );
    const csv = await sourceErrorOf(() => open('data/people.csv', undefined, { maxFileBytes: 5 }));
    assert.equal(csv.code, 'ingest.file_too_large');
    assert.match(csv.message, /server\.max_source_file_bytes/);
    const exact = await open('data/people.csv', undefined, { maxFileBytes: 'id,name\n1,Ada\n'.length });
    assert.deepEqual(await rowsOf(exact), [['1', 'Ada']]);
  });

  it('fails closed on a limit that is not a positive number', async () => {
    const error = await sourceErrorOf(() => open('data/people.csv', undefined, { maxFileBytes: Number.NaN }));
    assert.equal(error.code, 'ingest.file_too_large');
  });

  it('reports the file size for metrics', async () => {
    const source = await open('data/people.csv');
    assert.equal(source.byteSize, 'id,name\n1,Ada\n'.length);
  });
});
