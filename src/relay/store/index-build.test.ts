// Indexes built at once and in slices: the same index however the work is cut, as a plain sort would order it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CellKey, Column } from './column.ts';
import { compareKeys } from './compare-keys.ts';
import { hashIndexBuild, lookup } from './hash-index.ts';
import { buildInSlices, buildNow } from './index-build.ts';
import { sortedIndexBuild } from './sorted-index.ts';

function textColumn(values: (string | null)[]): Column {
  return { kind: 'text', type: 'string', values };
}

function numericColumn(values: (number | null)[]): Column {
  return {
    kind: 'numeric',
    type: 'number',
    values: Float64Array.from(values, (value) => value ?? 0),
    nulls: Uint8Array.from(values, (value) => (value === null ? 1 : 0)),
  };
}

/** The order the index must have: non-null rows by value (code points for text), ties by row. */
function expectedOrder(values: readonly (CellKey | null)[]): number[] {
  const rows = values.flatMap((value, row) => (value === null ? [] : [row]));
  return rows.sort((a, b) => compareKeys(values[a] as CellKey, values[b] as CellKey) || a - b);
}

function expectedLists(values: readonly (CellKey | null)[]): Map<CellKey, number[]> {
  const lists = new Map<CellKey, number[]>();
  values.forEach((value, row) => {
    if (value !== null) lists.set(value, [...(lists.get(value) ?? []), row]);
  });
  return lists;
}

// Few distinct values (many ties), high UTF-16 units that sort differently by code point, nulls.
const text = fc.option(fc.constantFrom('a', 'b', 'B', 'é', '\uffff', '\u{1f600}', 'ab', ''), { freq: 5 });
const number = fc.option(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true })), { freq: 5 });
// Slices smaller than a run, the size of one and beyond it: merges resume at any output position.
const slice = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(65_535, 65_536, 65_537, 200_000));

describe('index builds', () => {
  it('a sorted index is the same at once and in slices, ordered as a plain sort orders it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.array(text, { maxLength: 300 }).map((values) => ({ values, column: textColumn(values) })),
          fc.array(number, { maxLength: 300 }).map((values) => ({ values, column: numericColumn(values) })),
        ),
        slice,
        async ({ values, column }, size) => {
          const order = expectedOrder(values);
          const now = buildNow(sortedIndexBuild(column, values.length));
          const sliced = await buildInSlices(sortedIndexBuild(column, values.length), size);
          assert.deepEqual([...now.rows], order);
          assert.deepEqual([...sliced.rows], order);
          assert.deepEqual(
            sliced.keys,
            order.map((row) => values[row]),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a sorted index over several runs merges them in order', async () => {
    // 140,000 rows: three runs of 65,536, the last one short, merged over two passes.
    const values = Array.from({ length: 140_000 }, (_, row) =>
      row % 97 === 0 ? null : `k${(row * 7919) % 5003}${row % 3 === 0 ? '\u{1f600}' : '\uffff'}`,
    );
    const order = expectedOrder(values);
    const column = textColumn(values);
    for (const size of [1_000, 16_384, 65_536]) {
      const sliced = await buildInSlices(sortedIndexBuild(column, values.length), size);
      assert.deepEqual([...sliced.rows], order, `slices of ${size}`);
    }
    assert.deepEqual([...buildNow(sortedIndexBuild(column, values.length)).rows], order);
  });

  it('a hash index is the same at once and in slices: each value to its rows in ascending order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 300 }), slice, async (values, size) => {
        const expected = expectedLists(values);
        const column = textColumn(values);
        for (const index of [
          buildNow(hashIndexBuild(column, values.length)),
          await buildInSlices(hashIndexBuild(column, values.length), size),
        ]) {
          assert.deepEqual(new Map([...index.keys()].map((key) => [key, [...lookup(index, key)]])), expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a build in slices gives the event loop a turn between slices', async () => {
    const values = Array.from({ length: 50_000 }, (_, row) => row % 101);
    let turns = 0;
    const ticking = setInterval(() => {
      turns += 1;
    }, 0);
    try {
      await buildInSlices(sortedIndexBuild(numericColumn(values), values.length), 1_000);
    } finally {
      clearInterval(ticking);
    }
    assert.ok(turns > 1, `timers ran ${turns} times while the index was built`);
  });
});
