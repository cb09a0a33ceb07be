import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TableConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { buildTable } from './build-table.ts';
import { cellJson } from './column.ts';

const config = (overrides: Partial<TableConfig['schema']> = {}): TableConfig => ({
  id: 'people',
  source: { type: 'file', path: 'people.csv' },
  primary_key: 'id',
  schema: {
    strict: true,
    fields: [
      { name: 'id', type: 'integer', nullable: false, sensitive: false },
      { name: 'name', type: 'string', nullable: true, sensitive: false },
      { name: 'secret', type: 'integer', nullable: true, sensitive: true },
    ],
    ...overrides,
  },
});

async function* batches(rows: unknown[][]) {
  yield rows.slice(0, 2);
  yield rows.slice(2);
}

const build = (rows: unknown[][], columns = ['id', 'name', 'secret'], table = config()) =>
  buildTable({
    config: table,
    columns,
    batches: batches(rows),
    excelSerials: false,
    version: 'v1',
    loadedAt: 0,
    byteSize: 1,
  });

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return error;
  }
  assert.fail('expected a SourceError');
}

describe('buildTable', () => {
  it('stores rows in primary-key order whatever the source order', async () => {
    const table = await build([
      ['3', 'c', ''],
      ['1', 'a', '7'],
      ['2', '', ''],
    ]);
    assert.equal(table.rowCount, 3);
    const ids = table.columns.get('id');
    const names = table.columns.get('name');
    assert.ok(ids && names);
    assert.deepEqual(
      [0, 1, 2].map((row) => cellJson(ids, row)),
      [1, 2, 3],
    );
    assert.deepEqual(
      [0, 1, 2].map((row) => cellJson(names, row)),
      ['a', null, 'c'],
    );
    assert.equal(table.rowOf(3), 2);
    assert.equal(table.rowOf(9), undefined);
  });

  it('names the data row, column and kind of value of a type error, never the value', async () => {
    const plain = await failure(
      build([
        ['1', 'a', ''],
        ['x2', 'b', ''],
      ]),
    );
    assert.equal(plain.code, 'ingest.type_mismatch');
    assert.equal(plain.row, 2);
    assert.equal(plain.column, 'id');
    assert.match(plain.message, /table people/);
    assert.equal(plain.detail, 'the string is not an integer');
    assert.doesNotMatch(plain.message, /x2/);
    const sensitive = await failure(
      build([
        ['1', 'a', ''],
        ['2', 'b', ''],
        ['3', 'c', 'SECRET-99'],
      ]),
    );
    assert.equal(sensitive.row, 3);
    assert.equal(sensitive.column, 'secret');
    assert.doesNotMatch(sensitive.message, /SECRET-99/);
  });

  it('checks every row, not a sample', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [String(i + 1), 'n', '']);
    rows.push(['5001', 'n', 'not-a-number']);
    const error = await failure(build(rows));
    assert.equal(error.row, 5001);
  });

  it('rejects duplicate and empty primary keys', async () => {
    const duplicate = await failure(
      build([
        ['1', 'a', ''],
        ['2', 'b', ''],
        ['1', 'c', ''],
      ]),
    );
    assert.equal(duplicate.code, 'ingest.duplicate_primary_key');
    assert.equal(duplicate.row, 3);
    assert.match(duplicate.message, /also in data row 1/);
    const empty = await failure(
      build([
        ['1', 'a', ''],
        ['', 'b', ''],
      ]),
    );
    assert.equal(empty.code, 'ingest.null_value');
  });

  it('rejects nulls in non-nullable fields', async () => {
    const table = config({
      fields: [
        { name: 'id', type: 'integer', nullable: false, sensitive: false },
        { name: 'name', type: 'string', nullable: false, sensitive: false },
      ],
    });
    const error = await failure(build([['1', '']], ['id', 'name'], table));
    assert.equal(error.code, 'ingest.null_value');
    assert.equal(error.column, 'name');
  });

  it('refuses a CSV number beyond the double range instead of storing it as null', async () => {
    for (const nullable of [false, true]) {
      const table = config({
        fields: [
          { name: 'id', type: 'integer', nullable: false, sensitive: false },
          { name: 'amount', type: 'number', nullable, sensitive: false },
        ],
      });
      const error = await failure(
        build(
          [
            ['1', '2.5'],
            ['2', '1e400'],
          ],
          ['id', 'amount'],
          table,
        ),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.row, 2);
      assert.equal(error.column, 'amount');
      assert.equal(error.detail, 'number outside the double range');
    }
  });

  it('rejects undeclared columns under strict and drops them otherwise', async () => {
    const strict = await failure(build([['1', 'a', '', 'x']], ['id', 'name', 'secret', 'extra']));
    assert.equal(strict.code, 'ingest.strict_extra_column');
    assert.match(strict.message, /extra/);
    const lax = await build(
      [['1', 'a', '', 'x']],
      ['id', 'name', 'secret', 'extra'],
      config({ strict: false }),
    );
    assert.deepEqual([...lax.columns.keys()], ['id', 'name', 'secret']);
  });

  it('fails when a declared column is missing', async () => {
    const error = await failure(build([['1', 'a']], ['id', 'name']));
    assert.equal(error.code, 'ingest.missing_column');
    assert.match(error.message, /secret/);
  });

  it('names none of the header cells when not one declared column is among them (a lost header row)', async () => {
    // A file whose header row went missing: its first record is read as the header.
    for (const header of [
      ['7', 'Jane Doe', 'Jane Doe'],
      ['7', 'Jane Doe', 'x', 'y'],
    ]) {
      const error = await failure(build([['8', 'John Roe', '']], header));
      assert.equal(error.code, 'ingest.missing_column');
      assert.match(error.message, /header row missing/);
      assert.doesNotMatch(error.message, /Jane|7/);
      assert.equal(error.column, undefined);
    }
  });
});
