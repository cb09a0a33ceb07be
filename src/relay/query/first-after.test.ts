// The has_many route's cursor position: the binary search answers what a scan from the start would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstAfter } from './run-collection.ts';

/** The first index whose row is above `afterRow`, found by walking from the start (the former implementation). */
function scanned(rows: Int32Array, afterRow: number): number {
  let start = 0;
  while (start < rows.length && (rows[start] as number) <= afterRow) start++;
  return start;
}

/** Deterministic ascending row lists with gaps of 1 to `maxGap`. */
function ascending(length: number, maxGap: number, seed: number): Int32Array {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state;
  };
  const rows = new Int32Array(length);
  let row = next() % 5;
  for (let i = 0; i < length; i++) {
    rows[i] = row;
    row += 1 + (next() % maxGap);
  }
  return rows;
}

describe('firstAfter', () => {
  it('finds the same position as a linear scan, for every position in many lists', () => {
    const lists: Int32Array[] = [new Int32Array(0), Int32Array.of(0), Int32Array.of(7)];
    for (const [length, gap, seed] of [
      [2, 1, 1],
      [3, 4, 2],
      [100, 1, 3],
      [101, 7, 4],
      [5000, 3, 5],
      [4097, 50, 6],
    ] as const) {
      lists.push(ascending(length, gap, seed));
    }
    for (const rows of lists) {
      const last = rows.length === 0 ? 0 : (rows[rows.length - 1] as number);
      // Every row served (a cursor's position), the rows between them, and the ends.
      for (let afterRow = -1; afterRow <= last + 2; afterRow++) {
        assert.equal(
          firstAfter(rows, afterRow),
          scanned(rows, afterRow),
          `after ${afterRow} of ${rows.length}`,
        );
      }
    }
  });

  it('resumes a page walk in the middle of a long list at the row after the cursor', () => {
    const rows = ascending(10_000, 9, 7);
    const middle = rows[4321] as number;
    assert.equal(firstAfter(rows, middle), 4322);
    assert.equal(firstAfter(rows, -1), 0);
    assert.equal(firstAfter(rows, rows[rows.length - 1] as number), rows.length);
  });
});
