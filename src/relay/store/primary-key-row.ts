// Finds a primary-key value's row by binary search: snapshot rows are stored in ascending primary-key order.
import type { CellKey, Column } from './column.ts';

/**
 * The row holding `key` in a primary-key column whose `rowCount` values are non-null and strictly ascending (as
 * `buildTable` stores them), or undefined. A key of another type than the column's never matches.
 */
export function primaryKeyRow(column: Column, rowCount: number, key: CellKey): number | undefined {
  switch (column.kind) {
    case 'numeric':
      // NaN compares neither below nor above anything, so it would stop the search anywhere; no column holds it.
      return typeof key === 'number' && !Number.isNaN(key) ? search(column.values, rowCount, key) : undefined;
    case 'boolean':
      return typeof key === 'boolean' ? search(column.values, rowCount, key ? 1 : 0) : undefined;
    case 'text':
      return typeof key === 'string' ? search(column.values as ArrayLike<string>, rowCount, key) : undefined;
  }
}

function search<T extends number | string>(
  values: ArrayLike<T>,
  rowCount: number,
  key: T,
): number | undefined {
  let lo = 0;
  let hi = rowCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const value = values[mid] as T;
    if (value < key) lo = mid + 1;
    else if (value > key) hi = mid;
    else return mid;
  }
  return undefined;
}
