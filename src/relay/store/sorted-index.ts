// Range index: row numbers ordered by cell value, searched by binary search for gte/lte/between filters.
import { type CellKey, type Column, cellKey } from './column.ts';
import { compareKeys, hasHighUnits } from './compare-keys.ts';
import { buildNow, type IndexBuild } from './index-build.ts';

export interface SortedIndex {
  /** Non-null rows ordered by value (ties by row). */
  readonly rows: Int32Array;
  readonly keys: CellKey[];
}

export function buildSortedIndex(column: Column, rowCount: number): SortedIndex {
  return buildNow(sortedIndexBuild(column, rowCount));
}

/** Rows sorted on their own before runs are merged: a slice's worth of sorting. */
const RUN = 65_536;

/**
 * The build in steps: the non-null rows listed, sorted in runs of `RUN`, the runs merged pairwise pass by pass, then
 * each row's key listed. Ties go by row, so the order is total and the same however the work is cut.
 */
export function sortedIndexBuild(column: Column, rowCount: number): IndexBuild<SortedIndex> {
  const key = (row: number) => cellKey(column, row) as CellKey;
  let listed: number[] | undefined = [];
  // Whether some value needs the code-point comparison, learnt while listing.
  let codePoints = false;
  let row = 0;
  let source = new Int32Array(0);
  let target = new Int32Array(0);
  let sorted = 0;
  let width = RUN;
  let merged = 0;
  const keys: CellKey[] = [];
  // The cells as stored, compared directly (only non-null rows are compared): booleans as 0 and 1 sort as false
  // and true do.
  const cells: ArrayLike<CellKey | null> = column.values;
  const compare = (a: number, b: number): number => {
    const ka = cells[a] as CellKey;
    const kb = cells[b] as CellKey;
    if (codePoints) return compareKeys(ka, kb) || a - b;
    return ka < kb ? -1 : ka > kb ? 1 : a - b;
  };

  /** Merges from `merged` on, output position by output position, up to `budget` rows of this pass. */
  function mergeSome(budget: number): void {
    const n = source.length;
    const stop = Math.min(n, merged + budget);
    while (merged < stop) {
      // The pair of runs the next output position belongs to; a lone last run is copied as it is.
      const left = merged - (merged % (2 * width));
      const middle = Math.min(n, left + width);
      const right = Math.min(n, left + 2 * width);
      const end = Math.min(right, stop);
      let i = left + countFrom(left, middle, right, merged);
      let j = middle + (merged - left) - (i - left);
      for (; merged < end; merged++) {
        if (j >= right || (i < middle && compare(source[i] as number, source[j] as number) <= 0))
          target[merged] = source[i++] as number;
        else target[merged] = source[j++] as number;
      }
    }
  }

  /**
   * How many of the left run's rows come before output position `at` of the merge of [left, middle) and
   * [middle, right): found by binary search, so a merge can resume where an earlier step stopped.
   */
  function countFrom(left: number, middle: number, right: number, at: number): number {
    const taken = at - left;
    let lo = Math.max(0, taken - (right - middle));
    let hi = Math.min(taken, middle - left);
    while (lo < hi) {
      const fromLeft = (lo + hi) >>> 1;
      const fromRight = taken - fromLeft - 1;
      // Take one more from the left run when its next row sorts before the right run's last taken one.
      if (compare(source[left + fromLeft] as number, source[middle + fromRight] as number) <= 0)
        lo = fromLeft + 1;
      else hi = fromLeft;
    }
    return lo;
  }

  return {
    step(budget) {
      if (listed !== undefined) {
        const end = Math.min(rowCount, row + budget);
        for (; row < end; row++) {
          const value = cellKey(column, row);
          if (value === null) continue;
          listed.push(row);
          if (!codePoints) codePoints = hasHighUnits(value);
        }
        if (row < rowCount) return false;
        source = Int32Array.from(listed);
        target = new Int32Array(source.length);
        listed = undefined;
        return false;
      }
      if (sorted < source.length) {
        // All at once when the budget allows (one run: nothing to merge); else runs starting at multiples of RUN,
        // which the merge passes rely on.
        const whole = sorted === 0 && budget >= source.length;
        const size = whole ? source.length : RUN;
        const end = Math.min(source.length, sorted + budget);
        do {
          // A plain array sorts with a comparator faster than a typed array does.
          const run = Array.from(source.subarray(sorted, Math.min(source.length, sorted + size)));
          source.set(run.sort(compare), sorted);
          sorted += size;
        } while (sorted < end);
        if (whole) width = source.length;
        return false;
      }
      if (width < source.length) {
        mergeSome(budget);
        if (merged < source.length) return false;
        [source, target] = [target, source];
        width *= 2;
        merged = 0;
        return false;
      }
      const end = Math.min(source.length, keys.length + budget);
      for (let at = keys.length; at < end; at++) keys.push(key(source[at] as number));
      return keys.length === source.length;
    },
    result: () => ({ rows: source, keys }),
  };
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
