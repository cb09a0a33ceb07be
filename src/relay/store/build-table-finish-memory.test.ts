// The last step of a load (ordering the rows by primary key and laying each column out in that order) allocates
// beside the rows already read: a sort order and a copy of a column. Those bytes are checked against the heap
// before they are allocated, as a batch's are, so a table whose rows fit but whose finishing would not fails
// with ingest.memory_limit rather than ending the process on V8's "heap out of memory".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TableConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { buildTable } from './build-table.ts';
import { createHeapGuard } from './heap-guard.ts';

const MIB = 1024 * 1024;
const ROWS = 100_000;

const config: TableConfig = {
  id: 'measurements',
  source: { type: 'file', path: 'measurements.csv' },
  primary_key: 'id',
  schema: {
    strict: true,
    fields: [
      { name: 'id', type: 'integer', nullable: false, sensitive: false },
      { name: 'value', type: 'number', nullable: true, sensitive: false },
    ],
  },
};

/** ROWS rows in descending key order, so they must be sorted, 10,000 a batch. */
async function* descending() {
  for (let start = ROWS; start > 0; start -= 10_000) {
    yield Array.from({ length: 10_000 }, (_, i) => [String(start - i), String(i / 4)]);
  }
}

/** A heap of 100 MiB whose usage stays at `used` MiB, whatever is allocated. */
const heapAt = (used: number) =>
  createHeapGuard(config.id, { read: () => ({ used: used * MIB, limit: 100 * MIB }), collect: () => {} });

const build = (used: number) =>
  buildTable({
    config,
    columns: ['id', 'value'],
    batches: descending(),
    excelSerials: false,
    version: 'v1',
    loadedAt: 0,
    byteSize: 0,
    heapGuard: heapAt(used),
  });

describe('the heap check before a load is finished', () => {
  it('refuses a table whose rows fit under 85% but whose sort order and column copy would not', async () => {
    // 100,000 rows: a 400 KB sort order and a 900 KB column copy, past 85 MiB from 84.
    const error = await build(84).then(
      () => assert.fail('expected the load to be stopped'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof SourceError, String(error));
    assert.equal(error.code, 'ingest.memory_limit');
    assert.equal(error.tableId, 'measurements');
    assert.match(error.message, /84 of 100 MiB in use, and 1 MiB to order and lay out the rows/);
  });

  it('finishes the same table when the heap has room for that step', async () => {
    const table = await build(82);
    assert.equal(table.rowCount, ROWS);
  });
});
