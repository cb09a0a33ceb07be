// Assigns every visited source row to a group slot: filter code masks, then combined dimension keys, in tight
// loops over typed arrays.
import type { AggregatePlan } from './plan-aggregate.ts';

/**
 * Rows point at slots; a group is a slot some row reached. With few possible keys the slot is the key itself
 * (no lookup at all); otherwise slots are group numbers.
 */
export interface GroupAssignment {
  /** The visited source rows, ascending. */
  readonly rows: Int32Array;
  /** Slot of each visited row (same index as `rows`), or -1 when a filter rejected it. */
  readonly rowSlot: Int32Array;
  /** Every row visited (`rows[k] === k`), so folds may index by row directly; slots may still be -1. */
  readonly direct: boolean;
  readonly slotCount: number;
  /** Rows per slot. */
  readonly slotSizes: Int32Array;
  readonly groupCount: number;
  /** The slot of each group. */
  readonly groupSlot: Int32Array;
  /** Dimension codes of group `g` at `codes[g * dimensionCount + d]`, in plan dimension order. */
  readonly codes: Int32Array;
  /** Source rows per group. */
  readonly sizes: Int32Array;
}

/** Up to this many possible keys (and at most two dimensions) the key is the slot. */
export const SMALL_KEYS = 1 << 16;
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

let scratch = new Int32Array(0);

/**
 * The row-to-slot array, reused by every query: execution is synchronous and nothing keeps the assignment past
 * executeAggregate, so one buffer spares a multi-megabyte allocation (and its collection) per query.
 */
function slotBuffer(length: number): Int32Array {
  if (scratch.length < length) scratch = new Int32Array(length);
  const buffer = scratch.subarray(0, length);
  buffer.fill(0);
  return buffer;
}

/** Groups in first-seen order: the key of each, and how many rows it has so far. */
interface Found {
  readonly keys: number[];
  readonly sizes: number[];
}

export function assignGroups(plan: AggregatePlan): GroupAssignment {
  const rows = plan.candidates ?? allRows(plan.rowCount);
  const rowSlot = slotBuffer(rows.length);
  for (const { codes, accept } of plan.checks) {
    for (let k = 0; k < rows.length; k++) {
      if (accept[codes[rows[k] as number] as number] === 0) rowSlot[k] = -1;
    }
  }
  const columns = plan.dimensions.map((d) => d.encoded.codes);
  const cardinalities = plan.dimensions.map((d) => Math.max(1, d.encoded.values.length));
  const keySpace = cardinalities.reduce((product, n) => product * n, 1);
  if (keySpace <= SMALL_KEYS && columns.length <= 2) {
    const filtered = plan.checks.length > 0;
    return byKey(plan, columns, cardinalities, keySpace, rows, rowSlot, filtered);
  }
  if (keySpace > Number.MAX_SAFE_INTEGER) return assignByText(columns, rows, rowSlot);
  // A combined key per visit, built a dimension at a time: key = sum of code * stride.
  const keys = keySpace <= 0x7fffffff ? new Int32Array(rows.length) : new Float64Array(rows.length);
  let stride = 1;
  columns.forEach((column, d) => {
    addKeys(keys, column, rows, stride);
    stride *= cardinalities[d] as number;
  });
  const found = keySpace <= DENSE_KEYS ? groupDense(keys, keySpace, rowSlot) : groupSparse(keys, rowSlot);
  const sizes = Int32Array.from(found.sizes);
  const groupCount = sizes.length;
  const groupSlot = allRows(groupCount).slice();
  const codes = decode(found.keys, cardinalities);
  const direct = plan.candidates === undefined;
  return {
    rows,
    rowSlot,
    direct,
    slotCount: groupCount,
    slotSizes: sizes,
    groupCount,
    groupSlot,
    codes,
    sizes,
  };
}

/**
 * The common case in one pass: at most two dimensions and few keys, so each row's key is its slot and the
 * rows per key are counted in a small array; the groups are the keys that occur.
 */
function byKey(
  plan: AggregatePlan,
  columns: readonly Int32Array[],
  cardinalities: readonly number[],
  keySpace: number,
  rows: Int32Array,
  rowSlot: Int32Array,
  filtered: boolean,
): GroupAssignment {
  const slotSizes = new Int32Array(keySpace);
  const first = columns[0];
  const second = columns[1] ?? first;
  const stride = columns.length === 2 ? (cardinalities[0] as number) : 0;
  if (!first) {
    for (let k = 0; k < rows.length; k++)
      if ((rowSlot[k] as number) === 0) slotSizes[0] = (slotSizes[0] as number) + 1;
  } else if (plan.candidates === undefined) {
    // Every row: row k is row k.
    for (let row = 0; row < rows.length; row++) {
      if (filtered && (rowSlot[row] as number) < 0) continue;
      const key = (first[row] as number) + ((second as Int32Array)[row] as number) * stride;
      rowSlot[row] = key;
      slotSizes[key] = (slotSizes[key] as number) + 1;
    }
  } else {
    for (let k = 0; k < rows.length; k++) {
      if ((rowSlot[k] as number) < 0) continue;
      const row = rows[k] as number;
      const key = (first[row] as number) + ((second as Int32Array)[row] as number) * stride;
      rowSlot[k] = key;
      slotSizes[key] = (slotSizes[key] as number) + 1;
    }
  }
  const keys: number[] = [];
  const sizes: number[] = [];
  slotSizes.forEach((size, key) => {
    if (size > 0) {
      keys.push(key);
      sizes.push(size);
    }
  });
  return {
    rows,
    rowSlot,
    direct: plan.candidates === undefined,
    slotCount: keySpace,
    slotSizes,
    groupCount: keys.length,
    groupSlot: Int32Array.from(keys),
    codes: decode(keys, cardinalities),
    sizes: Int32Array.from(sizes),
  };
}

/** The dimension codes of each combined key (key = sum of code * stride, first dimension fastest). */
export function decode(keys: readonly number[], cardinalities: readonly number[]): Int32Array {
  const dimCount = cardinalities.length;
  const codes = new Int32Array(keys.length * dimCount);
  keys.forEach((key, g) => {
    let rest = key;
    cardinalities.forEach((cardinality, d) => {
      codes[g * dimCount + d] = rest % cardinality;
      rest = Math.floor(rest / cardinality);
    });
  });
  return codes;
}

// Kept apart so each stays a small monomorphic loop over typed arrays.
function addKeys(keys: Int32Array | Float64Array, codes: Int32Array, rows: Int32Array, stride: number): void {
  for (let k = 0; k < rows.length; k++) {
    keys[k] = (keys[k] as number) + (codes[rows[k] as number] as number) * stride;
  }
}

function groupDense(keys: Int32Array | Float64Array, keySpace: number, rowSlot: Int32Array): Found {
  const slot = new Int32Array(keySpace).fill(-1);
  const found: Found = { keys: [], sizes: [] };
  for (let k = 0; k < keys.length; k++) {
    if ((rowSlot[k] as number) < 0) continue;
    const key = keys[k] as number;
    let group = slot[key] as number;
    if (group < 0) {
      group = found.keys.length;
      slot[key] = group;
      found.keys.push(key);
      found.sizes.push(0);
    }
    rowSlot[k] = group;
    found.sizes[group] = (found.sizes[group] as number) + 1;
  }
  return found;
}

function groupSparse(keys: Int32Array | Float64Array, rowSlot: Int32Array): Found {
  const slot = new Map<number, number>();
  const found: Found = { keys: [], sizes: [] };
  for (let k = 0; k < keys.length; k++) {
    if ((rowSlot[k] as number) < 0) continue;
    const key = keys[k] as number;
    let group = slot.get(key);
    if (group === undefined) {
      group = found.keys.length;
      slot.set(key, group);
      found.keys.push(key);
      found.sizes.push(0);
    }
    rowSlot[k] = group;
    found.sizes[group] = (found.sizes[group] as number) + 1;
  }
  return found;
}

/** Key spaces beyond 2^53 (several huge dimensions): slower text keys, same result. */
function assignByText(
  columns: readonly Int32Array[],
  rows: Int32Array,
  rowSlot: Int32Array,
): GroupAssignment {
  const slot = new Map<string, number>();
  const found: number[] = [];
  const codes: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    if ((rowSlot[k] as number) < 0) continue;
    const row = rows[k] as number;
    const own = columns.map((column) => column[row] as number);
    const key = own.join(',');
    let group = slot.get(key);
    if (group === undefined) {
      group = found.length;
      slot.set(key, group);
      found.push(0);
      codes.push(...own);
    }
    rowSlot[k] = group;
    found[group] = (found[group] as number) + 1;
  }
  const sizes = Int32Array.from(found);
  const groupCount = sizes.length;
  return {
    rows,
    rowSlot,
    direct: false,
    slotCount: groupCount,
    slotSizes: sizes,
    groupCount,
    groupSlot: allRows(groupCount).slice(),
    codes: Int32Array.from(codes),
    sizes,
  };
}
