// Parquet reading: values round-trip through snappy, gzip and zstd files; framing checks; limits and batching.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type ColumnSource, parquetWriteBuffer } from 'hyparquet-writer';
import { openFileSource, type SourceRows } from './open-file-source.ts';
import { zstdStored } from './parquet-hand-made-test-support.ts';
import { PARQUET_MAX_COLUMNS } from './read-parquet.ts';
import { BATCH_ROWS } from './source-file.ts';
import { rowsOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-parquet-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIMITS = { maxFileBytes: 64 * 1024 * 1024, xlsxMaxFileBytes: 64 * 1024 * 1024 };
type Codec = 'SNAPPY' | 'GZIP' | 'ZSTD' | 'UNCOMPRESSED';

const COLUMNS: ColumnSource[] = [
  { name: 'id', data: [1, 2, 3], type: 'INT32' },
  { name: 'name', data: ['Ada', null, 'Grace'], type: 'STRING' },
  { name: 'amount', data: [1.5, 2, null], type: 'DOUBLE' },
  { name: 'active', data: [true, false, null], type: 'BOOLEAN' },
  { name: 'seen', data: [1_700_000_000_000n, null, 3n], type: 'INT64' },
  { name: 'joined', data: [new Date(Date.UTC(2024, 0, 2)), null, new Date(0)], type: 'TIMESTAMP' },
];
const EXPECTED = [
  [1, 'Ada', 1.5, true, 1_700_000_000_000n, new Date(Date.UTC(2024, 0, 2))],
  [2, null, 2, false, null, null],
  [3, 'Grace', null, null, 3n, new Date(0)],
];

async function writeParquet(
  name: string,
  columnData: ColumnSource[],
  codec: Codec = 'SNAPPY',
  rowGroupSize?: number,
) {
  const bytes = parquetWriteBuffer({
    columnData,
    codec,
    compressors: { GZIP: (input) => gzipSync(input), ZSTD: zstdStored },
    ...(rowGroupSize === undefined ? {} : { rowGroupSize }),
  });
  await writeFile(join(dir, name), new Uint8Array(bytes));
}

/** INT96 timestamp bytes: nanoseconds of the day (8 bytes LE), then the Julian day (4 bytes LE). */
function int96(nanos: bigint): Uint8Array {
  const dayNanos = 86_400_000_000_000n;
  const day = nanos >= 0n ? nanos / dayNanos : -((-nanos + dayNanos - 1n) / dayNanos);
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, nanos - day * dayNanos, true);
  view.setUint32(8, Number(day + 2_440_588n), true);
  return out;
}

/**
 * Turns the FIXED_LEN_BYTE_ARRAY type (thrift compact: field 1, i32 7) of the schema element and the column chunk
 * into INT96 (i32 3) in the footer of a one-column-of-that-type file written without statistics.
 */
function relabelInt96(bytes: Uint8Array): Uint8Array {
  const footerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
  let relabelled = 0;
  for (let i = bytes.length - 8 - footerLength; i < bytes.length - 9; i++) {
    if (bytes[i] === 0x15 && bytes[i + 1] === 0x0e) {
      bytes[i + 1] = 0x06;
      relabelled += 1;
    }
  }
  assert.equal(relabelled, 2, 'the schema element and the column chunk');
  return bytes;
}

function openParquet(name: string): Promise<SourceRows> {
  return openFileSource('facilities', { type: 'file', path: name }, { baseDir: dir, ...LIMITS });
}

describe('readParquet', () => {
  for (const codec of ['SNAPPY', 'GZIP', 'ZSTD', 'UNCOMPRESSED'] as const) {
    it(`reads a ${codec} file back equal`, async () => {
      await writeParquet(`values-${codec}.parquet`, COLUMNS, codec);
      const source = await openParquet(`values-${codec}.parquet`);
      assert.deepEqual(source.columns, ['id', 'name', 'amount', 'active', 'seen', 'joined']);
      assert.deepEqual(await rowsOf(source), EXPECTED);
    });
  }

  it('keeps row order across row groups and bounds every batch', async () => {
    const count = BATCH_ROWS * 2 + 500;
    const ids = Array.from({ length: count }, (_, index) => index);
    await writeParquet('groups.parquet', [{ name: 'id', data: ids, type: 'INT32' }], 'SNAPPY', 3000);
    const source = await openParquet('groups.parquet');
    const seen: unknown[] = [];
    let batches = 0;
    for await (const batch of source.batches) {
      batches += 1;
      assert.ok(batch.length > 0 && batch.length <= BATCH_ROWS);
      for (const row of batch) seen.push(row[0]);
    }
    assert.ok(batches > 2);
    assert.deepEqual(seen, ids);
  });

  it('yields the same cells column by column, one batch per row group, DATE as day numbers', async () => {
    const count = 7000;
    const days = Array.from({ length: count }, (_, i) => new Date(Date.UTC(2000, 0, 1 + (i % 400))));
    days[3] = new Date(Date.UTC(1850, 5, 1));
    days[4] = new Date(Date.UTC(2150, 0, 1));
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: Array.from({ length: count }, (_, i) => i) },
        { name: 'name', data: Array.from({ length: count }, (_, i) => (i % 5 ? `n${i}` : null)) },
        { name: 'opened', data: days },
      ],
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'opened', type: 'INT32', converted_type: 'DATE', repetition_type: 'REQUIRED' },
      ],
      rowGroupSize: 3000,
    });
    await writeFile(join(dir, 'columns.parquet'), new Uint8Array(bytes));
    const source = await openParquet('columns.parquet');
    assert.ok(source.columnBatches);
    const rows: unknown[][] = [];
    const sizes: number[] = [];
    for await (const batch of source.columnBatches) {
      sizes.push(batch.rowCount);
      assert.equal(batch.columns.length, 3);
      assert.deepEqual(batch.epochDays, [false, false, true]);
      for (let row = 0; row < batch.rowCount; row++) {
        const day = batch.columns[2]?.[row];
        assert.equal(typeof day, 'number');
        rows.push([
          batch.columns[0]?.[row],
          batch.columns[1]?.[row] ?? null,
          new Date(Number(day) * 86_400_000),
        ]);
      }
    }
    assert.deepEqual(sizes, [3000, 3000, 1000]);
    const expected = await rowsOf(source);
    assert.deepEqual(rows, expected);
    assert.deepEqual(expected[401], [401, 'n401', new Date(Date.UTC(2000, 0, 2))]);
    assert.equal(expected[5]?.[1], null);
    assert.deepEqual(
      expected.slice(3, 5).map((row) => row[2]),
      [days[3], days[4]],
    );
  });

  it('gives DECIMAL cells as their exact decimal text, from INT32, INT64, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY', async () => {
    // hyparquet-writer takes a bigint DECIMAL value as the unscaled integer, written as is.
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'small', data: [57n, -57n, 500n, null] },
        { name: 'wide', data: [-57n, 123456789012345678n, 0n, -1n] },
        { name: 'huge', data: [12345678901234567890123n, 1n, -1n, -(10n ** 37n)] },
        { name: 'bytes', data: [-1234n, 10n, 0n, 99999n] },
        { name: 'logical', data: [1, -10, 12, 0] },
      ],
      schema: [
        { name: 'root', num_children: 5 },
        {
          name: 'small',
          type: 'INT32',
          converted_type: 'DECIMAL',
          scale: 2,
          precision: 5,
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'wide',
          type: 'INT64',
          converted_type: 'DECIMAL',
          scale: 2,
          precision: 18,
          repetition_type: 'REQUIRED',
        },
        {
          name: 'huge',
          type: 'FIXED_LEN_BYTE_ARRAY',
          type_length: 16,
          converted_type: 'DECIMAL',
          scale: 4,
          precision: 38,
          repetition_type: 'REQUIRED',
        },
        {
          name: 'bytes',
          type: 'BYTE_ARRAY',
          converted_type: 'DECIMAL',
          scale: 3,
          precision: 10,
          repetition_type: 'REQUIRED',
        },
        // Annotated with the logical type only: hyparquet would not scale it at all.
        {
          name: 'logical',
          type: 'INT32',
          logical_type: { type: 'DECIMAL', scale: 1, precision: 5 },
          repetition_type: 'REQUIRED',
        },
      ],
      rowGroupSize: 3,
    });
    await writeFile(join(dir, 'decimals.parquet'), new Uint8Array(bytes));
    const source = await openParquet('decimals.parquet');
    const expected = [
      ['0.57', '-0.57', '1234567890123456789.0123', '-1.234', '0.1'],
      ['-0.57', '1234567890123456.78', '0.0001', '0.01', '-1'],
      ['5', '0', '-0.0001', '0', '1.2'],
      [null, '-0.01', '-1000000000000000000000000000000000', '99.999', '0'],
    ];
    assert.deepEqual(await rowsOf(source), expected);
    assert.ok(source.columnBatches);
    const byColumns: unknown[][] = [];
    for await (const batch of source.columnBatches) {
      for (let row = 0; row < batch.rowCount; row++) {
        byColumns.push(batch.columns.map((column) => column[row] ?? null));
      }
    }
    assert.deepEqual(byColumns, expected);
  });

  it('refuses a DECIMAL column whose scale is not from 0 to its precision', async () => {
    // A few hundred bytes declaring a scale of 400,000 would make every cell a text that long.
    for (const [name, annotation] of [
      ['converted.parquet', { converted_type: 'DECIMAL', scale: 400_000, precision: 9 }],
      ['logical.parquet', { logical_type: { type: 'DECIMAL', scale: 12, precision: 5 } }],
    ] as const) {
      const bytes = parquetWriteBuffer({
        columnData: [{ name: 'amount', data: [1n, 2n] }],
        schema: [
          { name: 'root', num_children: 1 },
          { name: 'amount', type: 'INT64', repetition_type: 'REQUIRED', ...annotation },
        ],
      });
      await writeFile(join(dir, name), new Uint8Array(bytes));
      const error = await sourceErrorOf(() => openParquet(name));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.match(error.message, /column amount declares DECIMAL scale \d+ with precision \d+/, name);
    }
  });

  it('floors sub-millisecond TIMESTAMP MICROS, NANOS and INT96 values, before 1970 too', async () => {
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'micros', data: [-1500n, 1500n, -1000n, -1n] },
        { name: 'nanos', data: [-1_500_000n, 1_500_000n, -1_000_000n, -1n] },
        {
          name: 'int96',
          data: [-1_500_000n, 1_500_000n, -1_000_000n, -1n].map(int96),
        },
      ],
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'micros', type: 'INT64', converted_type: 'TIMESTAMP_MICROS', repetition_type: 'REQUIRED' },
        {
          name: 'nanos',
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' },
          repetition_type: 'REQUIRED',
        },
        // Written as 12-byte FIXED_LEN_BYTE_ARRAY (the writer has no INT96), relabelled INT96 below.
        { name: 'int96', type: 'FIXED_LEN_BYTE_ARRAY', type_length: 12, repetition_type: 'REQUIRED' },
      ],
      codec: 'UNCOMPRESSED',
      statistics: false,
    });
    await writeFile(join(dir, 'instants.parquet'), relabelInt96(new Uint8Array(bytes)));
    const source = await openParquet('instants.parquet');
    const instants = ['1969-12-31T23:59:59.998Z', '1970-01-01T00:00:00.001Z', '1969-12-31T23:59:59.999Z'];
    const expected = [...instants, '1969-12-31T23:59:59.999Z'].map((iso) => {
      const date = new Date(iso);
      return [date, date, date];
    });
    assert.deepEqual(await rowsOf(source), expected);
  });

  it('reads a file with no rows as zero rows', async () => {
    await writeParquet('empty.parquet', [{ name: 'id', data: [], type: 'INT32' }]);
    const source = await openParquet('empty.parquet');
    assert.deepEqual(source.columns, ['id']);
    assert.deepEqual(await rowsOf(source), []);
  });

  it('rejects a file without the PAR1 magic at either end', async () => {
    await writeParquet('good.parquet', COLUMNS);
    const good = await readFile(join(dir, 'good.parquet'));
    const badHead = Buffer.from(good);
    badHead.write('XXXX', 0, 'latin1');
    await writeFile(join(dir, 'bad-head.parquet'), badHead);
    const badTail = Buffer.from(good);
    badTail.write('XXXX', badTail.length - 4, 'latin1');
    await writeFile(join(dir, 'bad-tail.parquet'), badTail);
    for (const name of ['bad-head.parquet', 'bad-tail.parquet']) {
      const error = await sourceErrorOf(() => openParquet(name));
      assert.equal(error.code, 'ingest.parse_error');
      assert.match(error.message, /PAR1/);
      assert.match(error.message, /table facilities/);
    }
  });

  it('rejects a footer over 32 MiB or pointing outside the file, and a file too short', async () => {
    const good = await readFile(join(dir, 'good.parquet'));
    const huge = Buffer.from(good);
    huge.writeUInt32LE(32 * 1024 * 1024 + 1, huge.length - 8);
    await writeFile(join(dir, 'huge-footer.parquet'), huge);
    const outside = Buffer.from(good);
    outside.writeUInt32LE(good.length, outside.length - 8);
    await writeFile(join(dir, 'outside-footer.parquet'), outside);
    await writeFile(join(dir, 'short.parquet'), 'PAR1PAR1');
    const garbled = Buffer.from(good);
    garbled.fill(0xff, garbled.length - 8 - garbled.readUInt32LE(garbled.length - 8), garbled.length - 8);
    await writeFile(join(dir, 'garbled-footer.parquet'), garbled);
    const expectations: [string, RegExp][] = [
      ['huge-footer.parquet', /over the limit of 33554432/],
      ['outside-footer.parquet', /outside the file/],
      ['short.parquet', /too short/],
      ['garbled-footer.parquet', /footer cannot be decoded/],
    ];
    for (const [name, reason] of expectations) {
      const error = await sourceErrorOf(() => openParquet(name));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.match(error.message, reason);
    }
  });

  it('rejects more than 4096 columns', async () => {
    const columns = Array.from({ length: PARQUET_MAX_COLUMNS + 1 }, (_, index) => ({
      name: `c${index}`,
      data: [index],
      type: 'INT32' as const,
    }));
    await writeParquet('wide.parquet', columns, 'UNCOMPRESSED');
    const error = await sourceErrorOf(() => openParquet('wide.parquet'));
    assert.equal(error.code, 'ingest.column_limit');
    assert.match(error.message, /4097 columns/);
  });

  it('reports a corrupt column chunk while iterating', async () => {
    const ids = Array.from({ length: 2000 }, (_, index) => `value-${index}`);
    await writeParquet('chunk.parquet', [{ name: 'id', data: ids, type: 'STRING' }], 'GZIP');
    const bytes = await readFile(join(dir, 'chunk.parquet'));
    bytes.fill(0x55, 4, 200);
    await writeFile(join(dir, 'chunk.parquet'), bytes);
    const source = await openParquet('chunk.parquet');
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /row group 1/);
  });

  it('refuses to decode a file replaced after it was opened', async () => {
    await writeParquet('moving.parquet', COLUMNS);
    const source = await openParquet('moving.parquet');
    await writeParquet('moving.parquet', COLUMNS.slice(0, 2));
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.file_changed');
  });

  it('refuses row groups read while the file was being written again', async () => {
    await writeParquet('rewritten.parquet', COLUMNS, 'SNAPPY', 1);
    const source = await openParquet('rewritten.parquet');
    const error = await sourceErrorOf(async () => {
      let first = true;
      for await (const _batch of source.batches) {
        if (first) await appendFile(join(dir, 'rewritten.parquet'), 'more');
        first = false;
      }
    });
    assert.equal(error.code, 'ingest.file_changed');
  });
});
