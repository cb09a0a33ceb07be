// Finds a primary-key value's row by binary search: snapshot rows are stored in ascending primary-key order.
import type { CellKey, Column } from './column.ts';
import { compareKeys, hasHighUnits } from './compare-keys.ts';

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
      if (typeof key !== 'string') return undefined;
      // Rows are in code-point order; JavaScript's own string order agrees with it unless the key has high units.
      return search(column.values as ArrayLike<string>, rowCount, key, hasHighUnits(key));
  }
}

/** `codePoints`: compare as compareKeys does (a key with high units); else natively, which agrees otherwise. */
function search<T extends number | string>(
  values: ArrayLike<T>,
  rowCount: number,
  key: T,
  codePoints = false,
): number | undefined {
  let lo = 0;
  let hi = rowCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const value = values[mid] as T;
    const sign = codePoints ? compareKeys(value, key) : value < key ? -1 : value > key ? 1 : 0;
    if (sign < 0) lo = mid + 1;
    else if (sign > 0) hi = mid;
    else return mid;
  }
  return undefined;
}
