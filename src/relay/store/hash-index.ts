// Equality index: cell value -> ascending row numbers (ascending row order is primary-key order).
import { type CellKey, type Column, cellKey } from './column.ts';

export type HashIndex = ReadonlyMap<CellKey, Int32Array>;

const EMPTY = new Int32Array(0);

export function buildHashIndex(column: Column, rowCount: number): HashIndex {
  const lists = new Map<CellKey, number[]>();
  for (let row = 0; row < rowCount; row++) {
    const key = cellKey(column, row);
    if (key === null) continue;
    const list = lists.get(key);
    if (list) list.push(row);
    else lists.set(key, [row]);
  }
  const index = new Map<CellKey, Int32Array>();
  for (const [key, list] of lists) index.set(key, Int32Array.from(list));
  return index;
}

export function lookup(index: HashIndex, key: CellKey): Int32Array {
  return index.get(key) ?? EMPTY;
}
