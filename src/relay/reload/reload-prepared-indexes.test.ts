// A reload builds on the new snapshot the indexes the snapshot it replaces had, before the new one is served: the
// first reads after the swap then find them built.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TableConfig } from '../config/schema.ts';
import type { Column } from '../store/column.ts';
import { lookup } from '../store/hash-index.ts';
import { rangeBounds } from '../store/sorted-index.ts';
import { createTableSnapshot, type TableSnapshot } from '../store/table-snapshot.ts';
import { oneTableReloader } from './one-table-reloader-test-support.ts';

/** Table `t` keyed by `id`, with `district` (text) and `beds` (number) columns. */
function snapshot(version: string, districts: string[], beds: number[]): TableSnapshot {
  const rowCount = districts.length;
  const columns = new Map<string, Column>([
    [
      'id',
      { kind: 'text', type: 'string', values: districts.map((_, row) => `r${String(row).padStart(4, '0')}`) },
    ],
    ['district', { kind: 'text', type: 'string', values: districts }],
    [
      'beds',
      { kind: 'numeric', type: 'number', values: Float64Array.from(beds), nulls: new Uint8Array(rowCount) },
    ],
  ]);
  return createTableSnapshot({
    config: { id: 't', primary_key: 'id' } as unknown as TableConfig,
    rowCount,
    columns,
    version,
    loadedAt: 0,
    byteSize: 0,
  });
}

describe('a reload and the indexes of the table it replaces', () => {
  it('builds them on the new snapshot before it is served, from the new data', async () => {
    const loads = [
      snapshot('v1', ['a', 'b', 'a'], [3, 1, 2]),
      snapshot('v2', ['b', 'b', 'a', 'c'], [9, 7, 8, 1]),
    ];
    const { reloader, state } = oneTableReloader({
      loadTable: async () => loads.shift() as TableSnapshot,
      changeToken: () => undefined,
    });
    await reloader.load();
    const served = state.generation?.table('d', 't') as TableSnapshot;
    served.hashIndex('district');
    served.sortedIndex('beds');
    assert.deepEqual(served.indexedColumns(), { hash: ['district'], sorted: ['beds'] });

    const outcome = await reloader.reloadTable('d', 't', 'admin');
    assert.equal(outcome.ok, true);
    const next = state.generation?.table('d', 't') as TableSnapshot;
    assert.notEqual(next, served);
    assert.deepEqual(
      next.indexedColumns(),
      { hash: ['district'], sorted: ['beds'] },
      'built before any read',
    );
    assert.deepEqual([...lookup(next.hashIndex('district'), 'b')], [0, 1]);
    const beds = next.sortedIndex('beds');
    assert.deepEqual([...beds.rows], [3, 1, 2, 0]);
    assert.deepEqual(rangeBounds(beds, 7, 8), [1, 3]);
  });

  it('builds nothing the replaced snapshot did not have, and keeps a snapshot whose data did not change', async () => {
    const first = snapshot('v1', ['a'], [1]);
    const loads = [first, snapshot('v1', ['a'], [1]), snapshot('v2', ['b'], [2])];
    const { reloader, state } = oneTableReloader({
      loadTable: async () => loads.shift() as TableSnapshot,
      changeToken: () => undefined,
    });
    await reloader.load();
    await reloader.reloadAll('admin');
    assert.equal(state.generation?.table('d', 't'), first, 'the same version: the snapshot served stays');
    await reloader.reloadAll('admin');
    assert.deepEqual(state.generation?.table('d', 't').indexedColumns(), { hash: [], sorted: [] });
  });
});
