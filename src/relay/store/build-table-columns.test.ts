// Column batches (the Parquet path) build the same snapshots, and fail with the same errors, as source rows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TableConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { buildTable } from './build-table.ts';
import { cellJson } from './column.ts';

const people: TableConfig = {
  id: 'people',
  source: { type: 'file', path: 'people.parquet' },
  primary_key: 'id',
  schema: {
    strict: true,
    fields: [
      { name: 'id', type: 'integer', nullable: false, sensitive: false },
      { name: 'name', type: 'string', nullable: true, sensitive: false },
      { name: 'secret', type: 'integer', nullable: true, sensitive: true },
    ],
  },
};

async function* noRows(): AsyncGenerator<unknown[][]> {}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return error;
  }
  assert.fail('expected a SourceError');
}

describe('buildTable from column batches', () => {
  const mixed: TableConfig = {
    id: 'mixed',
    source: { type: 'file', path: 'mixed.parquet' },
    primary_key: 'code',
    schema: {
      strict: false,
      fields: [
        { name: 'code', type: 'string', nullable: false, sensitive: false },
        { name: 'count', type: 'integer', nullable: true, sensitive: false },
        { name: 'share', type: 'number', nullable: true, sensitive: false },
        { name: 'open', type: 'boolean', nullable: true, sensitive: false },
        { name: 'day', type: 'date', nullable: true, sensitive: false },
        { name: 'seen', type: 'timestamp', nullable: true, sensitive: false },
        { name: 'pin', type: 'integer', nullable: true, sensitive: true },
      ],
    },
  };
  const mixedColumns = ['extra', 'seen', 'day', 'open', 'share', 'count', 'code', 'pin'];

  /** Seeded rows in source-column order, keys out of order, every type in the forms readers produce. */
  function mixedRows(count: number): unknown[][] {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const rows: unknown[][] = [];
    for (let i = 0; i < count; i++) {
      const pick = next();
      const nullish = pick < 0.1 ? null : pick < 0.15 ? '' : undefined;
      const day = Date.UTC(1890, 0, 1) + Math.floor(next() * 80_000) * 86_400_000;
      rows.push([
        i,
        nullish === undefined ? new Date(day + Math.floor(next() * 86_400_000)) : nullish,
        nullish === undefined ? (i % 2 ? new Date(day + 3_600_000) : isoDay(day)) : nullish,
        nullish === undefined ? [true, 'no', 1, 'Y'][i % 4] : nullish,
        nullish === undefined ? (i % 3 ? next() * 1000 - 500 : ` ${i}.5e1 `) : nullish,
        nullish === undefined ? (i % 2 ? BigInt(i * 31) : String(i * 31)) : nullish,
        `K${String((i * 7919) % count).padStart(6, '0')}`,
        nullish === undefined ? i : nullish,
      ]);
    }
    return rows;
  }

  function isoDay(ms: number): string {
    return new Date(ms).toISOString().slice(0, 10);
  }

  async function* rowBatches(rows: unknown[][], size: number) {
    for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
  }

  async function* columnBatches(rows: unknown[][], size: number, width: number) {
    for (let start = 0; start < rows.length; start += size) {
      const slice = rows.slice(start, start + size);
      const columns = Array.from({ length: width }, (_, c) => slice.map((row) => row[c]));
      yield { rowCount: slice.length, columns };
    }
  }

  const buildBy = (path: 'rows' | 'columns', rows: unknown[][], size: number, table = mixed) =>
    buildTable({
      config: table,
      columns: mixedColumns,
      batches: rowBatches(rows, size),
      columnBatches: path === 'columns' ? columnBatches(rows, size, mixedColumns.length) : undefined,
      excelSerials: false,
      version: 'v1',
      loadedAt: 0,
      byteSize: 1,
    });

  it('gives the same snapshot as the row path, primary keys out of order', async () => {
    const rows = mixedRows(3000);
    const byRows = await buildBy('rows', rows, 700);
    const byColumns = await buildBy('columns', rows, 1024);
    assert.equal(byColumns.rowCount, 3000);
    assert.deepEqual(byColumns.columns, byRows.columns);
    const codes = byRows.columns.get('code');
    assert.ok(codes?.kind === 'text');
    for (let row = 0; row < byRows.rowCount; row++) {
      assert.equal(byColumns.rowOf(codes.values[row] as string), row);
    }
    const days = byColumns.columns.get('day');
    assert.ok(days?.kind === 'text');
    assert.ok(days.values.every((value) => value === null || /^\d{4}-\d{2}-\d{2}$/.test(value)));
    assert.ok(days.values.some((value) => value !== null && value < '1900'));
    assert.ok(days.values.some((value) => value !== null && value >= '2100'));
    assert.equal(byColumns.rowOf('K999999'), undefined);
  });

  it('reports the error a row-by-row scan meets first, with the same message', async () => {
    const rows = mixedRows(3000);
    const cases: [string, (rows: unknown[][]) => void][] = [
      // Bad later column in an earlier row beats a bad earlier column in a later row.
      [
        'two columns',
        (r) => {
          (r[1500] as unknown[])[5] = 'many';
          (r[1400] as unknown[])[1] = 'noon';
        },
      ],
      [
        'same row',
        (r) => {
          (r[10] as unknown[])[5] = 'many';
          (r[10] as unknown[])[3] = 'maybe';
        },
      ],
      [
        'later batch',
        (r) => {
          (r[2999] as unknown[])[4] = '1,5';
          (r[2000] as unknown[])[6] = '';
        },
      ],
      ['sensitive', (r) => ((r[5] as unknown[])[7] = 'SECRET-1')],
      ['empty key', (r) => ((r[64] as unknown[])[6] = '')],
      ['duplicate key', (r) => ((r[2500] as unknown[])[6] = (r[3] as unknown[])[6])],
    ];
    for (const [name, spoil] of cases) {
      const spoiled = rows.map((row) => [...row]);
      spoil(spoiled);
      const byRows = await failure(buildBy('rows', spoiled, 1000));
      const byColumns = await failure(buildBy('columns', spoiled, 1000));
      assert.deepEqual(
        { code: byColumns.code, row: byColumns.row, column: byColumns.column, message: byColumns.message },
        { code: byRows.code, row: byRows.row, column: byRows.column, message: byRows.message },
        name,
      );
    }
    const both = rows.map((row) => [...row]);
    (both[1500] as unknown[])[5] = 'many';
    (both[1400] as unknown[])[1] = 'noon';
    const error = await failure(buildBy('columns', both, 1000));
    assert.equal(error.row, 1401);
    assert.equal(error.column, 'seen');
  });

  it('takes typed arrays as cells', async () => {
    const table = people;
    const typed = async function* () {
      yield { rowCount: 2, columns: [new Int32Array([2, 1]), ['b', 'a'], new Float64Array([5, 6])] };
    };
    const snapshot = await buildTable({
      config: table,
      columns: ['id', 'name', 'secret'],
      batches: noRows(),
      columnBatches: typed(),
      excelSerials: false,
      version: 'v1',
      loadedAt: 0,
      byteSize: 1,
    });
    const secrets = snapshot.columns.get('secret');
    assert.ok(secrets);
    assert.deepEqual([cellJson(secrets, 0), cellJson(secrets, 1)], [6, 5]);
    assert.equal(snapshot.rowOf(2), 1);
    const fractional = async function* () {
      yield { rowCount: 2, columns: [new Int32Array([1, 2]), ['a', 'b'], new Float64Array([5, 6.5])] };
    };
    const error = await failure(
      buildTable({
        config: table,
        columns: ['id', 'name', 'secret'],
        batches: noRows(),
        columnBatches: fractional(),
        excelSerials: false,
        version: 'v1',
        loadedAt: 0,
        byteSize: 1,
      }),
    );
    assert.equal(error.code, 'ingest.type_mismatch');
    assert.equal(error.row, 2);
    assert.equal(error.detail, 'the number is not an integer');
  });
});
