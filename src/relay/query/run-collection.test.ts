// Filtered page walks over a snapshot agree with a plain scan, whichever index (or none) answers a filter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CatalogField } from '../catalog/catalog.ts';
import type { FilterOp, TableConfig } from '../config/schema.ts';
import { type CellKey, type Column, cellKey } from '../store/column.ts';
import { compareKeys } from '../store/compare-keys.ts';
import { createTableSnapshot } from '../store/table-snapshot.ts';
import type { Filter } from './parse-collection-query.ts';
import { runCollection } from './run-collection.ts';

// Few distinct values, so many rows share one; strings from the ranges where UTF-16 and code-point order part ways.
const STRINGS = ['a', 'b', 'ab', 'é', '\ue000', '\uff01', '\u{1f600}', 'a\u{10000}', 'zz'];
const NUMBERS = [-0, 0, 1, -1, 1.5, 2 ** 53 - 1, -(2 ** 53) + 1, 0.1, 1e300, 3];

type Kind = 'num' | 'str' | 'bool';
const KINDS: Kind[] = ['num', 'str', 'bool'];

function column(kind: Kind, cells: (CellKey | null)[]): Column {
  if (kind === 'num') {
    return {
      kind: 'numeric',
      type: 'number',
      values: Float64Array.from(cells.map((c) => (c === null ? 0 : (c as number)))),
      nulls: Uint8Array.from(cells.map((c) => (c === null ? 1 : 0))),
    };
  }
  if (kind === 'bool') {
    return {
      kind: 'boolean',
      type: 'boolean',
      values: Uint8Array.from(cells.map((c) => (c === null ? 2 : c ? 1 : 0))),
    };
  }
  return { kind: 'text', type: 'string', values: cells as (string | null)[] };
}

const value = (kind: Kind): fc.Arbitrary<CellKey> =>
  kind === 'num' ? fc.constantFrom(...NUMBERS) : kind === 'bool' ? fc.boolean() : fc.constantFrom(...STRINGS);
const cell = (kind: Kind) => fc.option(value(kind), { freq: 6 });

/** A filter as a scan reads it: null matches nothing, everything compares by compareKeys. */
function naive(filter: Filter, v: CellKey | null): boolean {
  if (v === null) return false;
  const [a, b] = filter.values as CellKey[];
  switch (filter.op) {
    case 'eq':
      return compareKeys(v, a as CellKey) === 0;
    case 'in':
      return filter.values.some((x) => compareKeys(v, x) === 0);
    case 'gte':
      return compareKeys(v, a as CellKey) >= 0;
    case 'lte':
      return compareKeys(v, a as CellKey) <= 0;
    case 'between':
      return compareKeys(v, a as CellKey) >= 0 && compareKeys(v, b as CellKey) <= 0;
  }
}

describe('runCollection', () => {
  it('walks the same rows as a scan, in pages of any size, whether an index or a scan answers', () => {
    const scenario = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(...KINDS), fc.constantFrom(...KINDS))
      .chain(([rows, k1, k2]) =>
        fc.record({
          kinds: fc.constant([k1, k2] as Kind[]),
          cells: fc.tuple(
            fc.array(cell(k1), { minLength: rows, maxLength: rows }),
            fc.array(cell(k2), { minLength: rows, maxLength: rows }),
          ),
          filters: fc.array(
            fc.tuple(
              fc.constantFrom(0, 1),
              fc.constantFrom<FilterOp>('eq', 'in', 'gte', 'lte', 'between'),
              fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
            ),
            { maxLength: 3 },
          ),
          limit: fc.integer({ min: 1, max: 8 }),
        }),
      );
    fc.assert(
      fc.property(scenario, ({ kinds, cells, filters, limit }) => {
        const rowCount = cells[0].length;
        const columns = new Map<string, Column>([
          ['c0', column(kinds[0] as Kind, cells[0])],
          ['c1', column(kinds[1] as Kind, cells[1])],
        ]);
        // Only row order matters to a walk: the key column's values are never looked up here.
        const table = createTableSnapshot({
          config: { id: 't', primary_key: 'c0' } as unknown as TableConfig,
          rowCount,
          columns,
          version: 'v',
          loadedAt: 0,
          byteSize: 0,
        });
        const pool = (k: Kind): CellKey[] => (k === 'num' ? NUMBERS : k === 'bool' ? [false, true] : STRINGS);
        const built: Filter[] = filters.map(([c, op, picks]) => {
          const p = pool(kinds[c] as Kind);
          let values = picks.map((i) => p[i % p.length] as CellKey);
          if (op === 'eq' || op === 'gte' || op === 'lte') values = values.slice(0, 1);
          if (op === 'between') {
            values = [values[0] as CellKey, (values[1] ?? values[0]) as CellKey].sort(compareKeys);
          }
          if (op === 'in') values = [...new Set(values)];
          const field = { name: `c${c}`, column: `c${c}`, type: 'string' } as unknown as CatalogField;
          return { field, op, values };
        });
        const expected: number[] = [];
        for (let row = 0; row < rowCount; row++) {
          if (built.every((f) => naive(f, cellKey(columns.get(f.field.column) as Column, row))))
            expected.push(row);
        }
        const walked: number[] = [];
        let after = -1;
        for (let pages = 0; pages <= rowCount + 1; pages++) {
          const page = runCollection(table, built, after, limit);
          walked.push(...page.rows);
          assert.ok(page.rows.length <= limit);
          if (!page.hasMore) break;
          assert.equal(page.rows.length, limit);
          after = page.rows[page.rows.length - 1] as number;
        }
        assert.deepEqual(walked, expected);
      }),
      { numRuns: 3000 },
    );
  });
});
