// Executes a filtered, keyset-paginated read over a snapshot using its indexes.
import type { CellKey, Column } from '../store/column.ts';
import { cellKey } from '../store/column.ts';
import { compareKeys, hasHighUnits } from '../store/compare-keys.ts';
import { lookup } from '../store/hash-index.ts';
import { rangeBounds, rowsInRange } from '../store/sorted-index.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import type { Filter } from './parse-collection-query.ts';

export interface CollectionPage {
  /** Row numbers in primary-key order. */
  readonly rows: readonly number[];
  readonly hasMore: boolean;
}

interface Predicate {
  readonly column: Column;
  readonly filter: Filter;
  /** A bound holds high units: ranges compare by code point (compare-keys.ts); otherwise natively, as fast. */
  readonly codePoints: boolean;
}

/** Rows after `afterRow` (exclusive) that satisfy every filter, at most `limit`. */
export function runCollection(
  table: TableSnapshot,
  filters: readonly Filter[],
  afterRow: number,
  limit: number,
): CollectionPage {
  // Plain loops, no per-call closures: this runs on every collection read.
  const predicates: Predicate[] = [];
  for (const filter of filters) {
    predicates.push({
      column: table.columns.get(filter.field.column) as Column,
      filter,
      codePoints: filter.op !== 'eq' && filter.op !== 'in' && filter.values.some(hasHighUnits),
    });
  }
  // Drive the scan from the smallest candidate list; the other filters are checked row by row.
  let driver: Int32Array | undefined;
  let driverIndex = -1;
  for (let index = 0; index < predicates.length; index++) {
    const candidates = candidateRows(table, (predicates[index] as Predicate).filter);
    if (candidates && (!driver || candidates.length < driver.length)) {
      driver = candidates;
      driverIndex = index;
    }
  }
  const others: Predicate[] = [];
  for (let index = 0; index < predicates.length; index++) {
    if (index !== driverIndex) others.push(predicates[index] as Predicate);
  }
  const rows: number[] = [];
  if (driver) {
    for (let i = firstAfter(driver, afterRow); i < driver.length; i++) {
      const row = driver[i] as number;
      if (matchesAll(others, row)) {
        rows.push(row);
        if (rows.length > limit) break;
      }
    }
  } else {
    for (let row = afterRow + 1; row < table.rowCount; row++) {
      if (matchesAll(others, row)) {
        rows.push(row);
        if (rows.length > limit) break;
      }
    }
  }
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  return { rows, hasMore };
}

function candidateRows(table: TableSnapshot, filter: Filter): Int32Array | undefined {
  const column = filter.field.column;
  switch (filter.op) {
    case 'eq':
      return lookup(table.hashIndex(column), filter.values[0] as CellKey);
    case 'in':
      return unionSorted(filter.values.map((value) => lookup(table.hashIndex(column), value)));
    case 'gte':
      return boundedRange(table, column, filter.values[0], undefined);
    case 'lte':
      return boundedRange(table, column, undefined, filter.values[0]);
    case 'between':
      return boundedRange(table, column, filter.values[0], filter.values[1]);
  }
}

// A wide range is cheaper to check row by row than to gather and sort.
function boundedRange(
  table: TableSnapshot,
  column: string,
  lower?: CellKey,
  upper?: CellKey,
): Int32Array | undefined {
  const index = table.sortedIndex(column);
  const bounds = rangeBounds(index, lower, upper);
  return bounds[1] - bounds[0] > table.rowCount / 4 ? undefined : rowsInRange(index, bounds);
}

function matchesAll(predicates: readonly Predicate[], row: number): boolean {
  for (const predicate of predicates) if (!matches(predicate, row)) return false;
  return true;
}

function matches(predicate: Predicate, row: number): boolean {
  const value = cellKey(predicate.column, row);
  if (value === null) return false;
  const { op, values } = predicate.filter;
  if (predicate.codePoints) return inRange(op, value, values);
  switch (op) {
    case 'eq':
      return value === values[0];
    case 'in':
      return values.includes(value);
    case 'gte':
      return value >= (values[0] as CellKey);
    case 'lte':
      return value <= (values[0] as CellKey);
    case 'between':
      return value >= (values[0] as CellKey) && value <= (values[1] as CellKey);
  }
}

/** A range filter by code point order (a bound with high units). */
function inRange(op: Filter['op'], value: CellKey, values: readonly CellKey[]): boolean {
  const lower = op === 'lte' ? undefined : (values[0] as CellKey);
  const upper = op === 'gte' ? undefined : (values[op === 'between' ? 1 : 0] as CellKey);
  return (
    (lower === undefined || compareKeys(value, lower) >= 0) &&
    (upper === undefined || compareKeys(value, upper) <= 0)
  );
}

/** The index of the first of the ascending `rows` above `afterRow` (a cursor's position), by binary search. */
export function firstAfter(rows: Int32Array, afterRow: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as number) <= afterRow) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function unionSorted(lists: Int32Array[]): Int32Array {
  if (lists.length === 1) return lists[0] as Int32Array;
  const total = lists.reduce((sum, list) => sum + list.length, 0);
  const merged = new Int32Array(total);
  let offset = 0;
  for (const list of lists) {
    merged.set(list, offset);
    offset += list.length;
  }
  merged.sort();
  // Values are distinct per list and a row holds one value, so the union has no duplicates.
  return merged;
}
