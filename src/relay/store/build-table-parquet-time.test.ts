// Parquet TIME columns (a time of day counted in milli-, micro- or nanoseconds since midnight): served as ISO 8601
// time text in a string field, the same through the row and the column path; refused in any other field type.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SchemaElement } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { FieldType, TableConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { cellJson } from './column.ts';
import { loadParquetTable } from './parquet-table-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-build-parquet-time-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Unit = 'MILLIS' | 'MICROS' | 'NANOS';

/** A file of an `id` column and one TIME column `at` of `unit`, optional unless `required`. */
async function writeTimes(
  name: string,
  unit: Unit,
  counts: readonly (number | bigint | null)[],
  options: { utc?: boolean; required?: boolean; legacy?: boolean } = {},
): Promise<void> {
  const at: SchemaElement = {
    name: 'at',
    type: unit === 'MILLIS' ? 'INT32' : 'INT64',
    repetition_type: options.required ? 'REQUIRED' : 'OPTIONAL',
    ...(options.legacy
      ? { converted_type: unit === 'MILLIS' ? 'TIME_MILLIS' : 'TIME_MICROS' }
      : { logical_type: { type: 'TIME', isAdjustedToUTC: options.utc ?? false, unit } }),
  };
  const bytes = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: counts.map((_, i) => i + 1) },
      {
        name: 'at',
        data: options.required && unit === 'MILLIS' ? Int32Array.from(counts as number[]) : [...counts],
      },
    ],
    schema: [
      { name: 'root', num_children: 2 },
      { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
      at,
    ],
  });
  await writeFile(join(dir, name), new Uint8Array(bytes));
}

function config(name: string, type: FieldType): TableConfig {
  return {
    id: 'times',
    source: { type: 'file', path: name },
    primary_key: 'id',
    schema: {
      strict: true,
      fields: [
        { name: 'id', type: 'integer', nullable: false, sensitive: false },
        { name: 'at', type, nullable: true, sensitive: false },
      ],
    },
  };
}

const load = (name: string, type: FieldType, path: 'rows' | 'columns') =>
  loadParquetTable(dir, config(name, type), path);

/** The `at` cells as served, checked to be the same through both paths. */
async function served(name: string): Promise<unknown[]> {
  const byColumns = await load(name, 'string', 'columns');
  assert.deepEqual((await load(name, 'string', 'rows')).columns, byColumns.columns);
  const at = byColumns.columns.get('at');
  assert.ok(at);
  return Array.from({ length: byColumns.rowCount }, (_, row) => cellJson(at, row));
}

/** The load error through each path, checked to be the same. */
async function refusal(name: string, type: FieldType) {
  const errors = [];
  for (const path of ['rows', 'columns'] as const) {
    const error = await load(name, type, path).then(
      () => assert.fail(`${name} loaded as ${type} through ${path}`),
      (error: unknown) => error,
    );
    assert.ok(error instanceof SourceError, String(error));
    errors.push({ code: error.code, row: error.row, column: error.column, message: error.message });
  }
  assert.deepEqual(errors[1], errors[0]);
  return errors[0] as { code: string; row?: number; column?: string; message: string };
}

describe('buildTable from a Parquet TIME column', () => {
  it('serves TIME(MILLIS) as the time of day, with milliseconds when there are any', async () => {
    await writeTimes('millis.parquet', 'MILLIS', [3_600_000, 3_600_123, null, 0, 86_399_999, 45_296_010]);
    assert.deepEqual(await served('millis.parquet'), [
      '01:00:00',
      '01:00:00.123',
      null,
      '00:00:00',
      '23:59:59.999',
      '12:34:56.010',
    ]);
  });

  it('serves TIME(MICROS) to the microsecond', async () => {
    await writeTimes('micros.parquet', 'MICROS', [3_600_000_000n, 3_600_123_456n, 45_296_000_001n, null], {
      utc: true,
    });
    assert.deepEqual(await served('micros.parquet'), [
      '01:00:00',
      '01:00:00.123456',
      '12:34:56.000001',
      null,
    ]);
  });

  it('serves TIME(NANOS) to the nanosecond', async () => {
    await writeTimes('nanos.parquet', 'NANOS', [
      3_600_000_000_000n,
      3_600_123_456_789n,
      1n,
      86_399_999_999_999n,
    ]);
    assert.deepEqual(await served('nanos.parquet'), [
      '01:00:00',
      '01:00:00.123456789',
      '00:00:00.000000001',
      '23:59:59.999999999',
    ]);
  });

  it('serves the legacy TIME_MILLIS and TIME_MICROS converted types alike', async () => {
    await writeTimes('legacy-millis.parquet', 'MILLIS', [3_600_000, 3_600_123], { legacy: true });
    assert.deepEqual(await served('legacy-millis.parquet'), ['01:00:00', '01:00:00.123']);
    await writeTimes('legacy-micros.parquet', 'MICROS', [3_600_000_000n, 7n], { legacy: true });
    assert.deepEqual(await served('legacy-micros.parquet'), ['01:00:00', '00:00:00.000007']);
  });

  it('serves a required TIME column (no nulls) as text too', async () => {
    await writeTimes('required.parquet', 'MILLIS', [3_600_000, 60_000], { required: true });
    assert.deepEqual(await served('required.parquet'), ['01:00:00', '00:01:00']);
  });

  for (const type of ['integer', 'number', 'boolean', 'date', 'timestamp'] as const) {
    it(`refuses a TIME column declared ${type}, naming the column`, async () => {
      for (const [name, unit, counts, required] of [
        ['as-millis.parquet', 'MILLIS', [null, 3_600_000], false],
        ['as-required.parquet', 'MILLIS', [1, 3_600_000], true],
        ['as-nanos.parquet', 'NANOS', [null, 1n], false],
      ] as const) {
        await writeTimes(name, unit, counts, { required });
        const error = await refusal(name, type);
        assert.deepEqual(
          [error.code, error.row, error.column],
          ['ingest.type_mismatch', required ? 1 : 2, 'at'],
          name,
        );
        assert.match(error.message, /Parquet TIME .*declare the field as string/, name);
      }
    });
  }

  it('refuses a count outside the day, of any unit, rather than serve a time that does not exist', async () => {
    for (const [name, unit, counts] of [
      ['day-millis.parquet', 'MILLIS', [0, 86_400_000]],
      ['negative-millis.parquet', 'MILLIS', [0, -1]],
      ['day-micros.parquet', 'MICROS', [0n, 86_400_000_000n]],
      ['day-nanos.parquet', 'NANOS', [0n, -86_400_000_000_000n]],
    ] as const) {
      await writeTimes(name, unit, counts);
      const error = await refusal(name, 'string');
      assert.deepEqual([error.code, error.row, error.column], ['ingest.type_mismatch', 2, 'at'], name);
      assert.match(error.message, /Parquet TIME outside the day/, name);
    }
  });
});
