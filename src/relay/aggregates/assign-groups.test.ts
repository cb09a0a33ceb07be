import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assignGroups } from './assign-groups.ts';
import type { AggregatePlan } from './plan-aggregate.ts';

/** A plan over raw dimension codes; `cardinality` sets each dimension's declared value count (its key space). */
function plan(columns: readonly number[][], cardinality: number, candidates?: number[]): AggregatePlan {
  const rowCount = columns[0]?.length ?? 0;
  return {
    rowCount,
    candidates: candidates === undefined ? undefined : Int32Array.from(candidates),
    checks: [],
    inputs: [],
    measures: [],
    dimensions: columns.map((codes) => ({
      dimension: undefined as never,
      encoded: { codes: Int32Array.from(codes), values: new Array(cardinality).fill('v'), nullCode: -1 },
    })),
  };
}

/** Each group as "codes -> size", independent of group numbering. */
function groupsOf(p: AggregatePlan): Map<string, number> {
  const result = assignGroups(p);
  const dims = p.dimensions.length;
  const out = new Map<string, number>();
  for (let g = 0; g < result.groupCount; g++) {
    out.set(Array.from(result.codes.subarray(g * dims, (g + 1) * dims)).join(','), result.sizes[g] as number);
  }
  // Every visited row points at a group with its own codes.
  result.rows.forEach((row, k) => {
    const g = result.groupSlot.indexOf(result.rowSlot[k] as number);
    assert.ok(g >= 0, 'every visited row is in a group');
    p.dimensions.forEach((d, i) => {
      assert.equal(result.codes[g * dims + i], d.encoded.codes[row]);
    });
  });
  return out;
}

function reference(columns: readonly number[][], rows: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of rows) {
    const key = columns.map((column) => column[row]).join(',');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

describe('assignGroups', () => {
  const data = fc
    .record({ dims: fc.integer({ min: 1, max: 5 }), rows: fc.integer({ min: 0, max: 60 }) })
    .chain(({ dims, rows }) =>
      fc.record({
        columns: fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: rows, maxLength: rows }), {
          minLength: dims,
          maxLength: dims,
        }),
        subset: fc.subarray(Array.from({ length: rows }, (_, i) => i)),
      }),
    );

  it('finds the same groups through the flat array, the Map and text keys, scanning all or some rows', () => {
    fc.assert(
      fc.property(data, ({ columns, subset }) => {
        const rows = columns[0]?.length ?? 0;
        const everything = Array.from({ length: rows }, (_, i) => i);
        // Every way of finding groups: 4 values per dimension (the key is the slot up to two dimensions, a
        // flat array beyond), 5,000 (a Map from two dimensions), 2^20 (text keys from three dimensions).
        for (const cardinality of [4, 5000, 1 << 20]) {
          assert.deepEqual(groupsOf(plan(columns, cardinality)), reference(columns, everything));
          assert.deepEqual(groupsOf(plan(columns, cardinality, subset)), reference(columns, subset));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('puts every row of a scan without dimensions into one group', () => {
    const p: AggregatePlan = { ...plan([], 1), rowCount: 7 };
    const result = assignGroups(p);
    assert.equal(result.groupCount, 1);
    assert.deepEqual(Array.from(result.sizes), [7]);
    assert.deepEqual(Array.from(result.rowSlot), [0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(Array.from(result.groupSlot), [0]);
  });
});
