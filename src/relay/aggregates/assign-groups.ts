// Assigns every visited source row to its group: filter code masks, then combined dimension keys, in tight
// loops over typed arrays.
import type { AggregatePlan } from './plan-aggregate.ts';

export interface GroupAssignment {
  /** The visited source rows, ascending. */
  readonly rows: Int32Array;
  /** Group of each visited row (same index as `rows`), or -1 when a filter rejected it. */
  readonly rowGroup: Int32Array;
  readonly groupCount: number;
  /** Dimension codes of group `g` at `codes[g * dimensionCount + d]`, in plan dimension order. */
  readonly codes: Int32Array;
  /** Source rows per group. */
  readonly sizes: Int32Array;
}

/** Up to this many possible keys, groups are found through a flat array rather than a Map. */
const DENSE_KEYS = 1 << 20;

let identity = new Int32Array(0);

/** 0, 1, ... n-1: the rows of an unfiltered scan, shared between queries. */
function allRows(count: number): Int32Array {
  if (identity.length < count) {
    identity = new Int32Array(count);
    for (let row = 0; row < count; row++) identity[row] = row;
  }
  return identity.subarray(0, count);
}

/** Groups in first-seen order: the key of each, and how many rows it has so far. */
interface Found {
  readonly keys: number[];
  readonly sizes: number[];
}

export function assignGroups(plan: AggregatePlan): GroupAssignment {
  const rows = plan.candidates ?? allRows(plan.rowCount);
  const rowGroup = new Int32Array(rows.length);
  for (const { codes, accept } of plan.checks) {
    for (let k = 0; k < rows.length; k++) {
      if (accept[codes[rows[k] as number] as number] === 0) rowGroup[k] = -1;
    }
  }
  const columns = plan.dimensions.map((d) => d.encoded.codes);
  const cardinalities = plan.dimensions.map((d) => Math.max(1, d.encoded.values.length));
  const keySpace = cardinalities.reduce((product, n) => product * n, 1);
  if (keySpace > Number.MAX_SAFE_INTEGER) return assignByText(columns, rows, rowGroup);
  let found: Found;
  if (keySpace <= DENSE_KEYS && columns.length <= 2) {
    found = groupTwoDense(columns, cardinalities, keySpace, rows, rowGroup);
  } else {
    // A combined key per visit, built a dimension at a time: key = sum of code * stride.
    const keys = keySpace <= 0x7fffffff ? new Int32Array(rows.length) : new Float64Array(rows.length);
    let stride = 1;
    columns.forEach((column, d) => {
      addKeys(keys, column, rows, stride);
      stride *= cardinalities[d] as number;
    });
    found = keySpace <= DENSE_KEYS ? groupDense(keys, keySpace, rowGroup) : groupSparse(keys, rowGroup);
  }
  const dimCount = columns.length;
  const codes = new Int32Array(found.keys.length * dimCount);
  found.keys.forEach((key, g) => {
    let rest = key;
    cardinalities.forEach((cardinality, d) => {
      codes[g * dimCount + d] = rest % cardinality;
      rest = Math.floor(rest / cardinality);
    });
  });
  return { rows, rowGroup, groupCount: found.keys.length, codes, sizes: Int32Array.from(found.sizes) };
}

/** The common case in one pass: at most two dimensions, the key computed in place, groups in a flat array. */
function groupTwoDense(
  columns: readonly Int32Array[],
  cardinalities: readonly number[],
  keySpace: number,
  rows: Int32Array,
  rowGroup: Int32Array,
): Found {
  const none = columns.length === 0;
  const first = columns[0] ?? rowGroup;
  const second = columns[1] ?? first;
  const stride = columns.length === 2 ? (cardinalities[0] as number) : 0;
  const slot = new Int32Array(keySpace).fill(-1);
  const keys: number[] = [];
  const sizes: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    if ((rowGroup[k] as number) < 0) continue;
    const row = rows[k] as number;
    const key = none ? 0 : (first[row] as number) + (second[row] as number) * stride;
    let group = slot[key] as number;
    if (group < 0) {
      group = keys.length;
      slot[key] = group;
      keys.push(key);
      sizes.push(0);
    }
    rowGroup[k] = group;
    sizes[group] = (sizes[group] as number) + 1;
  }
  return { keys, sizes };
}

// Kept apart so each stays a small monomorphic loop over typed arrays.
function addKeys(keys: Int32Array | Float64Array, codes: Int32Array, rows: Int32Array, stride: number): void {
  for (let k = 0; k < rows.length; k++) {
    keys[k] = (keys[k] as number) + (codes[rows[k] as number] as number) * stride;
  }
}

function groupDense(keys: Int32Array | Float64Array, keySpace: number, rowGroup: Int32Array): Found {
  const slot = new Int32Array(keySpace).fill(-1);
  const found: Found = { keys: [], sizes: [] };
  for (let k = 0; k < keys.length; k++) {
    if ((rowGroup[k] as number) < 0) continue;
    const key = keys[k] as number;
    let group = slot[key] as number;
    if (group < 0) {
      group = found.keys.length;
      slot[key] = group;
      found.keys.push(key);
      found.sizes.push(0);
    }
    rowGroup[k] = group;
    found.sizes[group] = (found.sizes[group] as number) + 1;
  }
  return found;
}

function groupSparse(keys: Int32Array | Float64Array, rowGroup: Int32Array): Found {
  const slot = new Map<number, number>();
  const found: Found = { keys: [], sizes: [] };
  for (let k = 0; k < keys.length; k++) {
    if ((rowGroup[k] as number) < 0) continue;
    const key = keys[k] as number;
    let group = slot.get(key);
    if (group === undefined) {
      group = found.keys.length;
      slot.set(key, group);
      found.keys.push(key);
      found.sizes.push(0);
    }
    rowGroup[k] = group;
    found.sizes[group] = (found.sizes[group] as number) + 1;
  }
  return found;
}

/** Key spaces beyond 2^53 (several huge dimensions): slower text keys, same result. */
function assignByText(
  columns: readonly Int32Array[],
  rows: Int32Array,
  rowGroup: Int32Array,
): GroupAssignment {
  const slot = new Map<string, number>();
  const sizes: number[] = [];
  const codes: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    if ((rowGroup[k] as number) < 0) continue;
    const row = rows[k] as number;
    const own = columns.map((column) => column[row] as number);
    const key = own.join(',');
    let group = slot.get(key);
    if (group === undefined) {
      group = sizes.length;
      slot.set(key, group);
      sizes.push(0);
      codes.push(...own);
    }
    rowGroup[k] = group;
    sizes[group] = (sizes[group] as number) + 1;
  }
  const groupCount = sizes.length;
  return { rows, rowGroup, groupCount, codes: Int32Array.from(codes), sizes: Int32Array.from(sizes) };
}
