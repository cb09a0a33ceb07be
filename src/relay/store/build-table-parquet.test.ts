// Parquet tables load the same through the column path (with DATE as day numbers) as through the row path.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { FieldType, FileSourceConfig, TableConfig } from '../config/schema.ts';
import { openFileSource } from '../sources/open-file-source.ts';
import { SourceError } from '../sources/source-error.ts';
import { buildTable } from './build-table.ts';
import { cellJson } from './column.ts';

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

async function load(config: TableConfig, path: 'rows' | 'columns') {
  const source = await openFileSource('sites', config.source as FileSourceConfig, {
    baseDir: dir,
    maxFileBytes: 1e8,
    xlsxMaxFileBytes: 1e8,
  });
  assert.ok(source.columnBatches);
  return buildTable({
    config,
    columns: source.columns,
    batches: source.batches,
    columnBatches: path === 'columns' ? source.columnBatches : undefined,
    excelSerials: false,
    version: 'v',
    loadedAt: 0,
    byteSize: source.byteSize,
  });
}

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
