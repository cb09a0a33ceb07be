// Equality index: cell value -> ascending row numbers (ascending row order is primary-key order).
import { type CellKey, type Column, cellKey } from './column.ts';
import { buildNow, type IndexBuild } from './index-build.ts';

export type HashIndex = ReadonlyMap<CellKey, Int32Array>;

const EMPTY = new Int32Array(0);

export function buildHashIndex(column: Column, rowCount: number): HashIndex {
  return buildNow(hashIndexBuild(column, rowCount));
}

/** The build in two passes: the rows into lists per value, then each list into a typed array. */
export function hashIndexBuild(column: Column, rowCount: number): IndexBuild<HashIndex> {
  const lists = new Map<CellKey, number[]>();
  const index = new Map<CellKey, Int32Array>();
  let row = 0;
  let packing: Iterator<[CellKey, number[]]> | undefined;
  return {
    step(budget) {
      const end = Math.min(rowCount, row + budget);
      for (; row < end; row++) {
        const key = cellKey(column, row);
        if (key === null) continue;
        const list = lists.get(key);
        if (list) list.push(row);
        else lists.set(key, [row]);
      }
      if (row < rowCount) return false;
      packing ??= lists.entries();
      for (let done = 0; done < budget; ) {
        const next = packing.next();
        if (next.done) return true;
        const [key, list] = next.value;
        index.set(key, Int32Array.from(list));
        done += list.length;
      }
      return false;
    },
    result: () => index,
  };
}

export function lookup(index: HashIndex, key: CellKey): Int32Array {
  return index.get(key) ?? EMPTY;
}
