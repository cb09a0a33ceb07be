// Parquet tables load the same through the column path (with DATE as day numbers) as through the row path.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { FieldType, TableConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { cellJson } from './column.ts';
import { loadParquetTable } from './parquet-table-test-support.ts';

const DAY_MS = 86_400_000;
const ROWS = 5000;
let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-build-parquet-'));
  const days = (i: number) => new Date(Date.UTC(1850, 0, 1) + ((i * 7919) % 110_000) * DAY_MS);
  const bytes = parquetWriteBuffer({
    columnData: [
      {
        name: 'id',
        data: Array.from({ length: ROWS }, (_, i) => `P${String((i * 3001) % ROWS).padStart(5, '0')}`),
      },
      { name: 'score', data: Float64Array.from({ length: ROWS }, (_, i) => i / 7) },
      { name: 'beds', data: Int32Array.from({ length: ROWS }, (_, i) => i % 300) },
      { name: 'opened', data: Array.from({ length: ROWS }, (_, i) => days(i)) },
      { name: 'closed', data: Array.from({ length: ROWS }, (_, i) => (i % 4 ? days(i + 1) : null)) },
    ],
    schema: [
      { name: 'root', num_children: 5 },
      { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'score', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      { name: 'beds', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'opened', type: 'INT32', converted_type: 'DATE', repetition_type: 'REQUIRED' },
      { name: 'closed', type: 'INT32', converted_type: 'DATE', repetition_type: 'OPTIONAL' },
    ],
    rowGroupSize: 2000,
  });
  await writeFile(join(dir, 'sites.parquet'), new Uint8Array(bytes));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function table(opened: FieldType, closed: FieldType = 'date', closedNullable = true): TableConfig {
  return {
    id: 'sites',
    source: { type: 'file', path: 'sites.parquet' },
    primary_key: 'id',
    schema: {
      strict: true,
      fields: [
        { name: 'id', type: 'string', nullable: false, sensitive: false },
        { name: 'score', type: 'number', nullable: false, sensitive: false },
        { name: 'beds', type: 'integer', nullable: false, sensitive: false },
        { name: 'opened', type: opened, nullable: false, sensitive: false },
        { name: 'closed', type: closed, nullable: closedNullable, sensitive: false },
      ],
    },
  };
}

const load = (config: TableConfig, path: 'rows' | 'columns') => loadParquetTable(dir, config, path);

async function outcome(config: TableConfig, path: 'rows' | 'columns') {
  try {
    return { table: await load(config, path) };
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return { error: { code: error.code, row: error.row, column: error.column, message: error.message } };
  }
}

describe('buildTable from a Parquet file', () => {
  for (const [opened, closed] of [
    ['date', 'date'],
    ['timestamp', 'string'],
  ] as const) {
    it(`gives the row path's snapshot with DATE columns declared ${opened} and ${closed}`, async () => {
      const byRows = await load(table(opened, closed), 'rows');
      const byColumns = await load(table(opened, closed), 'columns');
      assert.equal(byColumns.rowCount, ROWS);
      assert.deepEqual(byColumns.columns, byRows.columns);
      const ids = byColumns.columns.get('id');
      const openedColumn = byColumns.columns.get('opened');
      assert.ok(ids?.kind === 'text' && openedColumn);
      for (let row = 0; row < ROWS; row++) assert.equal(byColumns.rowOf(ids.values[row] as string), row);
      const rendered = Array.from({ length: ROWS }, (_, row) => cellJson(openedColumn, row));
      assert.ok(rendered.some((value) => String(value) < '1900'));
      assert.ok(rendered.some((value) => String(value) > '2100'));
    });
  }

  it('fails the same way on both paths', async () => {
    const cases = [table('integer'), table('date', 'date', false), table('boolean'), table('date', 'number')];
    for (const config of cases) {
      const byRows = await outcome(config, 'rows');
      const byColumns = await outcome(config, 'columns');
      assert.ok(byRows.error, JSON.stringify(config.schema.fields));
      assert.deepEqual(byColumns.error, byRows.error);
    }
    const nullable = await outcome(table('date', 'date', false), 'columns');
    assert.deepEqual(
      { code: nullable.error?.code, row: nullable.error?.row, column: nullable.error?.column },
      { code: 'ingest.null_value', row: 1, column: 'closed' },
    );
  });
});

describe('buildTable from Parquet DECIMAL and sub-millisecond TIMESTAMP columns', () => {
  const field = (name: string, type: FieldType) => ({ name, type, nullable: true, sensitive: false });

  async function served(name: string, fields: TableConfig['schema']['fields']) {
    const config: TableConfig = {
      id: 'exact',
      source: { type: 'file', path: name },
      primary_key: 'id',
      schema: { strict: true, fields },
    };
    const table = await load(config, 'columns');
    assert.deepEqual((await load(config, 'rows')).columns, table.columns);
    return fields.map(({ name: column }) => {
      const values = table.columns.get(column);
      assert.ok(values);
      return Array.from({ length: table.rowCount }, (_, row) => cellJson(values, row));
    });
  }

  it('serves the exact decimal: its text in a string field, the double nearest it in a number field', async () => {
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1, 2, 3] },
        { name: 'price', data: [57n, -57n, 500n] },
        { name: 'amount', data: [-57n, 10n, 700n] },
        { name: 'big', data: [12345678901234567890123n, 1n, 10n ** 30n] },
      ],
      schema: [
        { name: 'root', num_children: 4 },
        { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'price', type: 'INT32', converted_type: 'DECIMAL', scale: 2, precision: 5 },
        { name: 'amount', type: 'INT64', converted_type: 'DECIMAL', scale: 2, precision: 18 },
        {
          name: 'big',
          type: 'FIXED_LEN_BYTE_ARRAY',
          type_length: 16,
          converted_type: 'DECIMAL',
          scale: 4,
          precision: 38,
        },
      ],
    });
    await writeFile(join(dir, 'decimals.parquet'), new Uint8Array(bytes));
    const [, price, amount, big] = await served('decimals.parquet', [
      field('id', 'integer'),
      field('price', 'number'),
      field('amount', 'string'),
      field('big', 'string'),
    ]);
    assert.deepEqual(price, [0.57, -0.57, 5]);
    assert.deepEqual(amount, ['-0.57', '0.1', '7']);
    assert.deepEqual(big, ['1234567890123456789.0123', '0.0001', '100000000000000000000000000']);
    const [, asText, asNumber, bigNumber] = await served('decimals.parquet', [
      field('id', 'integer'),
      field('price', 'string'),
      field('amount', 'number'),
      field('big', 'number'),
    ]);
    assert.deepEqual(asText, ['0.57', '-0.57', '5']);
    assert.deepEqual(asNumber, [-0.57, 0.1, 7]);
    // The double nearest the decimal, which is what JavaScript makes of its text.
    assert.deepEqual(bigNumber, [Number('1234567890123456789.0123'), 0.0001, 1e26]);
  });

  it('takes a decimal into an integer field only when it is whole and within the safe range', async () => {
    const write = async (name: string, counts: bigint[]) => {
      const bytes = parquetWriteBuffer({
        columnData: [
          { name: 'id', data: counts.map((_, i) => i + 1) },
          { name: 'count', data: counts },
        ],
        schema: [
          { name: 'root', num_children: 2 },
          { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
          { name: 'count', type: 'INT64', converted_type: 'DECIMAL', scale: 2, precision: 18 },
        ],
      });
      await writeFile(join(dir, name), new Uint8Array(bytes));
    };
    const fields = [field('id', 'integer'), field('count', 'integer')];
    await write('whole.parquet', [500n, -900719925474099100n]);
    const [, count] = await served('whole.parquet', fields);
    assert.deepEqual(count, [5, -9007199254740991]);
    for (const [name, counts] of [
      ['fraction.parquet', [500n, 510n]],
      ['unsafe.parquet', [500n, 900719925474099200n]],
    ] as const) {
      await write(name, [...counts]);
      const error = await served(name, fields).then(
        () => assert.fail(`${name} loaded`),
        (error: unknown) => error,
      );
      assert.ok(error instanceof SourceError, String(error));
      assert.deepEqual([error.code, error.row, error.column], ['ingest.type_mismatch', 2, 'count'], name);
    }
  });

  it('serves strings exactly as stored and refuses bytes that are not UTF-8, as CSV does', async () => {
    const utf8 = (text: string) => new TextEncoder().encode(text);
    const write = async (name: string, labels: Uint8Array[]) => {
      const bytes = parquetWriteBuffer({
        columnData: [
          { name: 'id', data: labels.map((_, i) => i + 1) },
          { name: 'label', data: labels },
        ],
        schema: [
          { name: 'root', num_children: 2 },
          { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
          { name: 'label', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        ],
      });
      await writeFile(join(dir, name), new Uint8Array(bytes));
    };
    const fields = [field('id', 'integer'), field('label', 'string')];
    // A leading U+FEFF is part of the value (a decoder skipping BOMs would drop it), and so is a NUL.
    await write('labels.parquet', [utf8('\uFEFFtagged'), utf8('a\u0000b'), utf8('\uFEFFtagged')]);
    const [, labels] = await served('labels.parquet', fields);
    assert.deepEqual(labels, ['\uFEFFtagged', 'a\u0000b', '\uFEFFtagged']);
    // Latin-1 `é` (0xE9) would otherwise be served as U+FFFD.
    await write('latin1.parquet', [utf8('fine'), Uint8Array.of(0x63, 0x61, 0x66, 0xe9)]);
    for (const path of ['rows', 'columns'] as const) {
      const { error } = await outcome(
        {
          ...table('date'),
          source: { type: 'file', path: 'latin1.parquet' },
          primary_key: 'id',
          schema: { strict: true, fields },
        },
        path,
      );
      assert.deepEqual([error?.code, error?.row, error?.column], ['ingest.type_mismatch', 2, 'label'], path);
      assert.match(error?.message ?? '', /not UTF-8/);
    }
  });

  it('serves a JSON column as the text stored, never the value parsed and spelled again', async () => {
    const texts = ['12345678901234567890', '"quoted"', '1.50', 'null', '{"a": [1, 2]}'];
    const written = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'id', data: texts.map((_, i) => i + 1) },
          { name: 'document', data: texts },
        ],
        schema: [
          { name: 'root', num_children: 2 },
          { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
          { name: 'document', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        ],
      }),
    );
    // The writer would spell JSON values itself, so the column is written as text and its converted type (thrift
    // field 6 after the name, field 4) turned from UTF8 (0) into JSON (19, zigzag 38) in the footer.
    const utf8Type = Buffer.concat([Buffer.from('document'), Buffer.from([0x25, 0x00])]);
    const at = written.indexOf(utf8Type);
    assert.ok(at > 0 && written.indexOf(utf8Type, at + 1) === -1);
    written[at + utf8Type.length - 1] = 38;
    await writeFile(join(dir, 'documents.parquet'), written);
    const [, documents] = await served('documents.parquet', [
      field('id', 'integer'),
      field('document', 'string'),
    ]);
    // Parsed, the first would lose digits, the second its quotes, the third its trailing zero, `null` would be an
    // empty cell and the object would be refused.
    assert.deepEqual(documents, texts);
  });

  it('serves a pre-1970 sub-millisecond instant as the CSV text of it does', async () => {
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ['1969-12-31T23:59:59.9985Z', '1970-01-01T00:00:00.0015Z'] },
        { name: 'micros', data: [-1500n, 1500n] },
        { name: 'nanos', data: [-1_500_000n, 1_500_000n] },
      ],
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        { name: 'micros', type: 'INT64', converted_type: 'TIMESTAMP_MICROS' },
        {
          name: 'nanos',
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' },
        },
      ],
    });
    await writeFile(join(dir, 'instants.parquet'), new Uint8Array(bytes));
    // The id column holds the same instants as text, read the way a CSV cell is.
    const [asText, micros, nanos] = await served('instants.parquet', [
      { ...field('id', 'timestamp'), nullable: false },
      field('micros', 'timestamp'),
      field('nanos', 'timestamp'),
    ]);
    assert.deepEqual(asText, ['1969-12-31T23:59:59.998Z', '1970-01-01T00:00:00.001Z']);
    assert.deepEqual(micros, asText);
    assert.deepEqual(nanos, asText);
  });

  it('refuses an instant past year 9999, which would be served as +010000-..., on both paths', async () => {
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ['a', 'b'] },
        { name: 'at', data: [Date.UTC(9999, 11, 31), Date.UTC(10_000, 0, 1)].map(BigInt) },
      ],
      schema: [
        { name: 'root', num_children: 2 },
        { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        { name: 'at', type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' },
      ],
    });
    await writeFile(join(dir, 'far.parquet'), new Uint8Array(bytes));
    const config: TableConfig = {
      id: 'far',
      source: { type: 'file', path: 'far.parquet' },
      primary_key: 'id',
      schema: { strict: true, fields: [field('id', 'string'), field('at', 'timestamp')] },
    };
    for (const path of ['rows', 'columns'] as const) {
      const { error } = await outcome(config, path);
      assert.deepEqual([error?.code, error?.row, error?.column], ['ingest.type_mismatch', 2, 'at'], path);
      assert.match(error?.message ?? '', /timestamp outside the years 0000 to 9999/);
    }
  });
});
