// Runs a plan: in one pass when it is the common shape, else rows are assigned to group slots and each measure
// input is folded in one tight pass over its column.
import { assignGroups } from './assign-groups.ts';
import { foldOnePass } from './fold-one-pass.ts';
import type { AggregatePlan, PlannedInput } from './plan-aggregate.ts';
import type { Encoded, NumericInput } from './source-columns.ts';

export interface GroupedResult {
  readonly groupCount: number;
  /** Dimension codes of group `g` at `codes[g * dimensionCount + d]`, in plan dimension order. */
  readonly codes: Int32Array;
  /** Source rows per group. */
  readonly sizes: Int32Array;
  /** `values[m][g]`: measure `m` of group `g`, null when the group has no value for it. */
  readonly values: (number | null)[][];
  /**
   * `contributors[m][g]`: how many rows of group `g` gave measure `m` a value, where that can be fewer than the
   * group's rows (a measure over a column with nulls, counts included); undefined where every row of a group counts.
   */
  readonly contributors: readonly (Float64Array | undefined)[];
}

/** Visited rows and their slots, shared by every fold; folds accumulate per slot. */
interface Visits {
  readonly rows: Int32Array;
  readonly rowSlot: Int32Array;
  readonly direct: boolean;
  readonly slotCount: number;
  readonly slotSizes: Int32Array;
}

interface Stats {
  readonly count: Float64Array;
  readonly sum: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
}

export function executeAggregate(plan: AggregatePlan): GroupedResult {
  return foldOnePass(plan) ?? executeGeneral(plan);
}

/** Any plan: group slots first, then one fold per measure input (and a second pass where a measure needs it). */
export function executeGeneral(plan: AggregatePlan): GroupedResult {
  const groups = assignGroups(plan);
  // A stddev needs the extremes too: equal values have no spread, though they deviate from their rounded mean.
  const stats = plan.inputs.map((input) =>
    input.extremes || input.spread || input.input.hasNulls
      ? numericStats(groups, input.input)
      : sums(groups, input.input),
  );
  const spreads = plan.inputs.map((input, i) =>
    input.spread ? squaredDeviations(groups, input.input, stats[i] as Stats) : undefined,
  );
  const medians = plan.inputs.map((input, i) =>
    input.median ? medianValues(groups, input.input, stats[i] as Stats) : undefined,
  );
  const { groupCount, groupSlot } = groups;
  // Per slot, the rows with a value in a counted field: the count itself, and what a distinct count rests on.
  const present = plan.measures.map((planned) =>
    planned.kind === 'present' || (planned.kind === 'distinct' && planned.encoded.nullCode >= 0)
      ? presentCounts(groups, planned.encoded)
      : undefined,
  );
  const contributors = plan.measures.map((planned, m) => {
    const counted = present[m];
    if (counted !== undefined) {
      // Without nulls every row of a group counts, as for the row count.
      if (planned.kind === 'present' && planned.encoded.nullCode < 0) return undefined;
      return Float64Array.from(groupSlot, (slot) => counted[slot] as number);
    }
    if (planned.kind !== 'numeric' || !(plan.inputs[planned.input] as PlannedInput).input.hasNulls)
      return undefined;
    const count = (stats[planned.input] as Stats).count;
    return Float64Array.from(groupSlot, (slot) => count[slot] as number);
  });
  const values = plan.measures.map((planned, m) => {
    const out: (number | null)[] = new Array(groupCount);
    if (planned.kind === 'numeric') {
      const stat = stats[planned.input] as Stats;
      const [spread, median] = [spreads[planned.input], medians[planned.input]];
      for (let g = 0; g < groupCount; g++) {
        out[g] = numericValue(planned.measure.fn, stat, groupSlot[g] as number, spread, median);
      }
      return out;
    }
    const counts =
      planned.kind === 'rows'
        ? groups.slotSizes
        : planned.kind === 'present'
          ? (present[m] as Int32Array)
          : distinctCounts(groups, planned.encoded);
    for (let g = 0; g < groupCount; g++) out[g] = counts[groupSlot[g] as number] as number;
    return out;
  });
  return { groupCount, codes: groups.codes, sizes: groups.sizes, values, contributors };
}

function numericValue(
  fn: string,
  stat: Stats,
  g: number,
  spread: Float64Array | undefined,
  median: Float64Array | undefined,
): number | null {
  const n = stat.count[g] as number;
  if (n === 0) return null;
  switch (fn) {
    case 'sum':
      return stat.sum[g] as number;
    case 'avg':
      return (stat.sum[g] as number) / n;
    case 'min':
      return stat.min[g] as number;
    case 'max':
      return stat.max[g] as number;
    case 'stddev':
      // Sample standard deviation: undefined for a single value. Equal values deviate from their double mean
      // (0.1 three times sums to 0.30000000000000004) but not from one another.
      if (n < 2) return null;
      return stat.min[g] === stat.max[g] ? 0 : Math.sqrt((spread?.[g] as number) / (n - 1));
    case 'median':
      return median?.[g] as number;
    default:
      throw new TypeError(`not a numeric function: ${fn}`);
  }
}

/** The fold for the most common measures (count, sum, avg) of a column without nulls: the tightest loop. */
function sums({ rows, rowSlot, direct, slotCount, slotSizes }: Visits, input: NumericInput): Stats {
  const sum = new Float64Array(slotCount);
  const values = input.values;
  if (direct) {
    // The hot path of a scan without an index: row k is row k.
    for (let row = 0; row < rowSlot.length; row++) {
      const slot = rowSlot[row] as number;
      if (slot >= 0) sum[slot] = (sum[slot] as number) + (values[row] as number);
    }
  } else {
    for (let k = 0; k < rows.length; k++) {
      const slot = rowSlot[k] as number;
      if (slot >= 0) sum[slot] = (sum[slot] as number) + (values[rows[k] as number] as number);
    }
  }
  // Without nulls every row of a slot has a value; min and max are never read on this path.
  const count = Float64Array.from(slotSizes);
  return { count, sum, min: count, max: count };
}

/** Count, sum, minimum and maximum of the non-null values per slot, in one pass. */
function numericStats({ rows, rowSlot, direct, slotCount }: Visits, input: NumericInput): Stats {
  const count = new Float64Array(slotCount);
  const sum = new Float64Array(slotCount);
  const min = new Float64Array(slotCount).fill(Number.POSITIVE_INFINITY);
  const max = new Float64Array(slotCount).fill(Number.NEGATIVE_INFINITY);
  const { values, nulls } = input;
  for (let k = 0; k < rowSlot.length; k++) {
    const slot = rowSlot[k] as number;
    if (slot < 0) continue;
    const row = direct ? k : (rows[k] as number);
    if (nulls[row] === 1) continue;
    const value = values[row] as number;
    count[slot] = (count[slot] as number) + 1;
    sum[slot] = (sum[slot] as number) + value;
    if (value < (min[slot] as number)) min[slot] = value;
    if (value > (max[slot] as number)) max[slot] = value;
  }
  return { count, sum, min, max };
}

/** Sum of squared deviations from each slot's mean: a second pass, exact where sum-of-squares is not. */
function squaredDeviations(
  { rows, rowSlot, slotCount }: Visits,
  input: NumericInput,
  stat: Stats,
): Float64Array {
  const means = new Float64Array(slotCount);
  for (let g = 0; g < slotCount; g++) means[g] = (stat.sum[g] as number) / (stat.count[g] as number);
  const out = new Float64Array(slotCount);
  const { values, nulls } = input;
  for (let k = 0; k < rows.length; k++) {
    const slot = rowSlot[k] as number;
    const row = rows[k] as number;
    if (slot < 0 || nulls[row] === 1) continue;
    const delta = (values[row] as number) - (means[slot] as number);
    out[slot] = (out[slot] as number) + delta * delta;
  }
  return out;
}

/** Each slot's non-null values gathered into one buffer, sorted per slot, the middle taken. */
function medianValues({ rows, rowSlot, slotCount }: Visits, input: NumericInput, stat: Stats): Float64Array {
  const starts = new Int32Array(slotCount + 1);
  for (let g = 0; g < slotCount; g++) starts[g + 1] = (starts[g] as number) + (stat.count[g] as number);
  const fill = starts.slice(0, slotCount);
  const buffer = new Float64Array(starts[slotCount] as number);
  const { values, nulls } = input;
  for (let k = 0; k < rows.length; k++) {
    const slot = rowSlot[k] as number;
    const row = rows[k] as number;
    if (slot < 0 || nulls[row] === 1) continue;
    const at = fill[slot] as number;
    buffer[at] = values[row] as number;
    fill[slot] = at + 1;
  }
  const out = new Float64Array(slotCount);
  for (let g = 0; g < slotCount; g++) {
    const start = starts[g] as number;
    const n = (starts[g + 1] as number) - start;
    if (n === 0) continue;
    const sorted = buffer.subarray(start, start + n).sort();
    const mid = n >> 1;
    out[g] =
      n % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  }
  return out;
}

/** Non-null values of a field per slot. */
function presentCounts({ rows, rowSlot, slotCount }: Visits, encoded: Encoded): Int32Array {
  const out = new Int32Array(slotCount);
  const { codes, nullCode } = encoded;
  for (let k = 0; k < rows.length; k++) {
    const slot = rowSlot[k] as number;
    if (slot >= 0 && codes[rows[k] as number] !== nullCode) out[slot] = (out[slot] as number) + 1;
  }
  return out;
}

/** Distinct non-null values of a field per slot, as distinct (slot, code) pairs. */
function distinctCounts({ rows, rowSlot, slotCount }: Visits, encoded: Encoded): Int32Array {
  const out = new Int32Array(slotCount);
  const seen = new Set<number>();
  const { codes, nullCode } = encoded;
  const cardinality = encoded.values.length;
  for (let k = 0; k < rows.length; k++) {
    const slot = rowSlot[k] as number;
    if (slot < 0) continue;
    const code = codes[rows[k] as number] as number;
    if (code === nullCode) continue;
    const pair = slot * cardinality + code;
    if (!seen.has(pair)) {
      seen.add(pair);
      out[slot] = (out[slot] as number) + 1;
    }
  }
  return out;
}
