// Runs a plan: rows are assigned to groups, then each measure input is folded in one tight pass over its column.
import { assignGroups } from './assign-groups.ts';
import type { AggregatePlan } from './plan-aggregate.ts';
import type { Encoded, NumericInput } from './source-columns.ts';

export interface GroupedResult {
  readonly groupCount: number;
  /** Dimension codes of group `g` at `codes[g * dimensionCount + d]`, in plan dimension order. */
  readonly codes: Int32Array;
  /** Source rows per group. */
  readonly sizes: Int32Array;
  /** `values[m][g]`: measure `m` of group `g`, null when the group has no value for it. */
  readonly values: (number | null)[][];
}

/** Visited rows and their groups, shared by every fold. */
interface Visits {
  readonly rows: Int32Array;
  readonly rowGroup: Int32Array;
  readonly groupCount: number;
}

interface Stats {
  readonly count: Float64Array;
  readonly sum: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
}

export function executeAggregate(plan: AggregatePlan): GroupedResult {
  const groups = assignGroups(plan);
  const stats = plan.inputs.map((input) =>
    input.extremes || input.input.hasNulls ? numericStats(groups, input.input) : sums(groups, input.input),
  );
  const spreads = plan.inputs.map((input, i) =>
    input.spread ? squaredDeviations(groups, input.input, stats[i] as Stats) : undefined,
  );
  const medians = plan.inputs.map((input, i) =>
    input.median ? medianValues(groups, input.input, stats[i] as Stats) : undefined,
  );
  const values = plan.measures.map((planned) => {
    const out: (number | null)[] = new Array(groups.groupCount);
    if (planned.kind === 'numeric') {
      const stat = stats[planned.input] as Stats;
      const [spread, median] = [spreads[planned.input], medians[planned.input]];
      for (let g = 0; g < groups.groupCount; g++) {
        out[g] = numericValue(planned.measure.fn, stat, g, spread, median);
      }
      return out;
    }
    const counts =
      planned.kind === 'rows'
        ? groups.sizes
        : planned.kind === 'present'
          ? presentCounts(groups, planned.encoded)
          : distinctCounts(groups, planned.encoded);
    for (let g = 0; g < groups.groupCount; g++) out[g] = counts[g] as number;
    return out;
  });
  return { groupCount: groups.groupCount, codes: groups.codes, sizes: groups.sizes, values };
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
      // Sample standard deviation: undefined for a single value.
      return n < 2 ? null : Math.sqrt((spread?.[g] as number) / (n - 1));
    case 'median':
      return median?.[g] as number;
    default:
      throw new TypeError(`not a numeric function: ${fn}`);
  }
}

/** The fold for the most common measures (count, sum, avg) of a column without nulls: the tightest loop. */
function sums({ rows, rowGroup, groupCount }: Visits, input: NumericInput): Stats {
  const count = new Float64Array(groupCount);
  const sum = new Float64Array(groupCount);
  const values = input.values;
  for (let k = 0; k < rows.length; k++) {
    const group = rowGroup[k] as number;
    if (group < 0) continue;
    count[group] = (count[group] as number) + 1;
    sum[group] = (sum[group] as number) + (values[rows[k] as number] as number);
  }
  // Never read: min and max are only computed when asked for.
  return { count, sum, min: count, max: count };
}

/** Count, sum, minimum and maximum of the non-null values per group, in one pass. */
function numericStats({ rows, rowGroup, groupCount }: Visits, input: NumericInput): Stats {
  const count = new Float64Array(groupCount);
  const sum = new Float64Array(groupCount);
  const min = new Float64Array(groupCount).fill(Number.POSITIVE_INFINITY);
  const max = new Float64Array(groupCount).fill(Number.NEGATIVE_INFINITY);
  const { values, nulls } = input;
  for (let k = 0; k < rows.length; k++) {
    const group = rowGroup[k] as number;
    if (group < 0) continue;
    const row = rows[k] as number;
    if (nulls[row] === 1) continue;
    const value = values[row] as number;
    count[group] = (count[group] as number) + 1;
    sum[group] = (sum[group] as number) + value;
    if (value < (min[group] as number)) min[group] = value;
    if (value > (max[group] as number)) max[group] = value;
  }
  return { count, sum, min, max };
}

/** Sum of squared deviations from each group's mean: a second pass, exact where sum-of-squares is not. */
function squaredDeviations(
  { rows, rowGroup, groupCount }: Visits,
  input: NumericInput,
  stat: Stats,
): Float64Array {
  const means = new Float64Array(groupCount);
  for (let g = 0; g < groupCount; g++) means[g] = (stat.sum[g] as number) / (stat.count[g] as number);
  const out = new Float64Array(groupCount);
  const { values, nulls } = input;
  for (let k = 0; k < rows.length; k++) {
    const group = rowGroup[k] as number;
    const row = rows[k] as number;
    if (group < 0 || nulls[row] === 1) continue;
    const delta = (values[row] as number) - (means[group] as number);
    out[group] = (out[group] as number) + delta * delta;
  }
  return out;
}

/** Each group's non-null values gathered into one buffer, sorted per group, the middle taken. */
function medianValues(
  { rows, rowGroup, groupCount }: Visits,
  input: NumericInput,
  stat: Stats,
): Float64Array {
  const starts = new Int32Array(groupCount + 1);
  for (let g = 0; g < groupCount; g++) starts[g + 1] = (starts[g] as number) + (stat.count[g] as number);
  const fill = starts.slice(0, groupCount);
  const buffer = new Float64Array(starts[groupCount] as number);
  const { values, nulls } = input;
  for (let k = 0; k < rows.length; k++) {
    const group = rowGroup[k] as number;
    const row = rows[k] as number;
    if (group < 0 || nulls[row] === 1) continue;
    const at = fill[group] as number;
    buffer[at] = values[row] as number;
    fill[group] = at + 1;
  }
  const out = new Float64Array(groupCount);
  for (let g = 0; g < groupCount; g++) {
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

/** Non-null values of a field per group. */
function presentCounts({ rows, rowGroup, groupCount }: Visits, encoded: Encoded): Int32Array {
  const out = new Int32Array(groupCount);
  const { codes, nullCode } = encoded;
  for (let k = 0; k < rows.length; k++) {
    const group = rowGroup[k] as number;
    if (group >= 0 && codes[rows[k] as number] !== nullCode) out[group] = (out[group] as number) + 1;
  }
  return out;
}

/** Distinct non-null values of a field per group, as distinct (group, code) pairs. */
function distinctCounts({ rows, rowGroup, groupCount }: Visits, encoded: Encoded): Int32Array {
  const out = new Int32Array(groupCount);
  const seen = new Set<number>();
  const { codes, nullCode } = encoded;
  const cardinality = encoded.values.length;
  for (let k = 0; k < rows.length; k++) {
    const group = rowGroup[k] as number;
    if (group < 0) continue;
    const code = codes[rows[k] as number] as number;
    if (code === nullCode) continue;
    const pair = group * cardinality + code;
    if (!seen.has(pair)) {
      seen.add(pair);
      out[group] = (out[group] as number) + 1;
    }
  }
  return out;
}
