// Equality index: cell value -> ascending row numbers (ascending row order is primary-key order). A value held by
// one row maps to that row number, stored in the map itself; only a value held by several gets an array. An array
// per value took about 230 bytes a row for a column of distinct values (an identifier's), several times the
// column, and the first read filtering on it could take the process past its heap limit.
import { type CellKey, type Column, cellKey } from './column.ts';
import { buildNow, type IndexBuild } from './index-build.ts';

/** A value's only row, or its rows in ascending order. */
export type HashIndex = ReadonlyMap<CellKey, number | Int32Array>;

const EMPTY = new Int32Array(0);

export function buildHashIndex(column: Column, rowCount: number): HashIndex {
  return buildNow(hashIndexBuild(column, rowCount));
}

/** The build in two passes: each value to its row or list of rows, then each list into a typed array. */
export function hashIndexBuild(column: Column, rowCount: number): IndexBuild<HashIndex> {
  const index = new Map<CellKey, number | number[] | Int32Array>();
  let row = 0;
  let packing: Iterator<[CellKey, number | number[] | Int32Array]> | undefined;
  return {
    step(budget) {
      const end = Math.min(rowCount, row + budget);
      for (; row < end; row++) {
        const key = cellKey(column, row);
        if (key === null) continue;
        const rows = index.get(key);
        if (rows === undefined) index.set(key, row);
        else if (typeof rows === 'number') index.set(key, [rows, row]);
        else (rows as number[]).push(row);
      }
      if (row < rowCount) return false;
      // Replacing the value of a key does not move it, so the walk sees every key once.
      packing ??= index.entries();
      for (let done = 0; done < budget; ) {
        const next = packing.next();
        if (next.done) return true;
        const [key, rows] = next.value;
        done += 1;
        if (!Array.isArray(rows)) continue;
        index.set(key, Int32Array.from(rows));
        done += rows.length;
      }
      return false;
    },
    result: () => index as HashIndex,
  };
}

export function lookup(index: HashIndex, key: CellKey): Int32Array {
  const rows = index.get(key);
  if (rows === undefined) return EMPTY;
  return typeof rows === 'number' ? Int32Array.of(rows) : rows;
}
