// Range index: row numbers ordered by cell value, searched by binary search for gte/lte/between filters.
import { type CellKey, type Column, cellKey } from './column.ts';
import { compareKeys, hasHighUnits } from './compare-keys.ts';

export interface SortedIndex {
  /** Non-null rows ordered by value (ties by row). */
  readonly rows: Int32Array;
  readonly keys: CellKey[];
}

export function buildSortedIndex(column: Column, rowCount: number): SortedIndex {
  const rows: number[] = [];
  // Whether some value needs the code-point comparison, learnt on the same pass.
  let codePoints = false;
  for (let row = 0; row < rowCount; row++) {
    const value = cellKey(column, row);
    if (value === null) continue;
    rows.push(row);
    if (!codePoints) codePoints = hasHighUnits(value);
  }
  const key = (row: number) => cellKey(column, row) as CellKey;
  if (codePoints) {
    rows.sort((a, b) => compareKeys(key(a), key(b)) || a - b);
  } else {
    rows.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      return ka < kb ? -1 : ka > kb ? 1 : a - b;
    });
  }
  return { rows: Int32Array.from(rows), keys: rows.map(key) };
}

/** Positions [start, end) in the index whose values lie in [lower, upper] (either bound optional). */
export function rangeBounds(
  index: SortedIndex,
  lower: CellKey | undefined,
  upper: CellKey | undefined,
): [start: number, end: number] {
  const start = lower === undefined ? 0 : firstAtLeast(index.keys, lower);
  const end = upper === undefined ? index.keys.length : firstAbove(index.keys, upper);
  return [start, Math.max(start, end)];
}

/** The rows of a bound range in ascending row (primary-key) order. */
export function rowsInRange(index: SortedIndex, [start, end]: [number, number]): Int32Array {
  return index.rows.slice(start, end).sort();
}

// A bound without high units compares natively: against it, both orders agree (see compare-keys.ts).
function firstAtLeast(keys: CellKey[], value: CellKey): number {
  const codePoints = hasHighUnits(value);
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as CellKey;
    if (codePoints ? compareKeys(key, value) < 0 : key < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function firstAbove(keys: CellKey[], value: CellKey): number {
  const codePoints = hasHighUnits(value);
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as CellKey;
    if (codePoints ? compareKeys(key, value) <= 0 : key <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
