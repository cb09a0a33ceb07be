// A source naming a column twice is refused (ingest.duplicate_column), whatever `schema.strict` says.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import writeXlsxFile from 'write-excel-file/node';
import type { TableConfig } from '../config/schema.ts';
import { openFileSource } from '../sources/open-file-source.ts';
import { SourceError } from '../sources/source-error.ts';
import { buildTable, mapColumns } from './build-table.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-duplicate-columns-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function table(path: string, strict: boolean, fields = ['id', 'name']): TableConfig {
  return {
    id: 'people',
    source: { type: 'file', path },
    primary_key: 'id',
    schema: {
      strict,
      fields: fields.map((name) => ({ name, type: 'string', nullable: true, sensitive: false })),
    },
  };
}

async function load(config: TableConfig) {
  const source = await openFileSource('people', config.source as { type: 'file'; path: string }, {
    baseDir: dir,
    maxFileBytes: 1e8,
    xlsxMaxFileBytes: 1e8,
  });
  return buildTable({
    config,
    columns: source.columns,
    batches: source.batches,
    columnBatches: source.columnBatches,
    excelSerials: false,
    version: 'v',
    loadedAt: 0,
    byteSize: source.byteSize,
  });
}

async function refusal(work: () => unknown): Promise<SourceError> {
  try {
    await work();
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return error;
  }
  assert.fail('expected a SourceError');
}

describe('a source naming a column twice', () => {
  it('is refused from a CSV header, strict or not, naming the column', async () => {
    await writeFile(join(dir, 'twice.csv'), 'id,name,name\n1,a,b\n');
    for (const strict of [true, false]) {
      const error = await refusal(() => load(table('twice.csv', strict)));
      assert.equal(error.code, 'ingest.duplicate_column');
      assert.equal(error.column, 'name');
      assert.match(error.message, /table people \(column "name"\)/);
      assert.match(error.message, /positions 2, 3/);
      assert.doesNotMatch(error.message, /\bb\b/, 'cell values stay out of the message');
    }
  });

  it('is refused when the repeated column is not declared, strict or not', async () => {
    await writeFile(join(dir, 'extra-twice.csv'), 'note,id,name,note\nx,1,a,y\n');
    for (const strict of [true, false]) {
      const error = await refusal(() => load(table('extra-twice.csv', strict)));
      assert.equal(error.code, 'ingest.duplicate_column');
      assert.equal(error.column, 'note');
    }
  });

  it('is refused from an XLSX header row', async () => {
    const data = [
      [
        { type: String, value: 'id' },
        { type: String, value: 'name' },
        { type: String, value: 'name' },
      ],
      [
        { type: String, value: '1' },
        { type: String, value: 'a' },
        { type: String, value: 'b' },
      ],
    ];
    await writeFile(join(dir, 'twice.xlsx'), await writeXlsxFile(data).toBuffer());
    const error = await refusal(() => load(table('twice.xlsx', false)));
    assert.equal(error.code, 'ingest.duplicate_column');
    assert.equal(error.column, 'name');
  });

  it('does not take two unnamed CSV header cells for one name: they are column_<n>, as in XLSX', async () => {
    // Trailing commas, as a spreadsheet saved as CSV writes for columns once formatted.
    await writeFile(join(dir, 'unnamed.csv'), 'id,,name,,\n1,x,a,y,\n');
    const loaded = await load(table('unnamed.csv', false));
    assert.equal(loaded.rowCount, 1);
    const error = await refusal(() => load(table('unnamed.csv', true)));
    assert.equal(error.code, 'ingest.strict_extra_column');
    assert.match(error.message, /undeclared columns: column_2, column_4, column_5 /);
  });

  it('still loads a header whose names are all distinct', async () => {
    await writeFile(join(dir, 'once.csv'), 'id,name,Name\n1,a,b\n');
    const loaded = await load(table('once.csv', true, ['id', 'name', 'Name']));
    assert.equal(loaded.rowCount, 1);
  });

  it('is refused from a PostgreSQL result only when a declared field is repeated', async () => {
    const config: TableConfig = {
      ...table('unused', false),
      source: {
        type: 'postgres',
        connection_env: 'DATABASE_URL',
        table: { schema: 'public', name: 'people' },
      } as TableConfig['source'],
    };
    // Columns no field declares are never selected: a join repeating them is no ambiguity.
    assert.deepEqual(mapColumns(config, ['id', 'name', 'created', 'created']), [0, 1]);
    const error = await refusal(() => mapColumns(config, ['id', 'name', 'id']));
    assert.deepEqual([error.code, error.column], ['ingest.duplicate_column', 'id']);
  });
});
