// The common aggregate in a single pass: a scan without an index, at most two dimensions with few keys, and row
// counts, sums and averages of up to three columns without nulls, all accumulated straight into per-key arrays.
import { decode, SMALL_KEYS } from './assign-groups.ts';
import type { GroupedResult } from './execute-aggregate.ts';
import type { AggregatePlan } from './plan-aggregate.ts';

const MAX_INPUTS = 3;

let keepAll = new Uint8Array(0);
let keepSome = new Uint8Array(0);

/**
 * 1 for each row every filter accepts. Buffers are reused between queries (execution is synchronous and the
 * mask does not outlive it); without filters it is all ones, so the loops below need no second variant.
 */
function keepMask(plan: AggregatePlan): Uint8Array {
  const rowCount = plan.rowCount;
  if (plan.checks.length === 0) {
    if (keepAll.length < rowCount) keepAll = new Uint8Array(rowCount).fill(1);
    return keepAll.subarray(0, rowCount);
  }
  if (keepSome.length < rowCount) keepSome = new Uint8Array(rowCount);
  const keep = keepSome.subarray(0, rowCount);
  keep.fill(1);
  for (const { codes, accept } of plan.checks) {
    for (let row = 0; row < rowCount; row++)
      keep[row] = (keep[row] as number) & (accept[codes[row] as number] as number);
  }
  return keep;
}

/** The grouped result, or undefined when the plan needs the general path. */
export function foldOnePass(plan: AggregatePlan): GroupedResult | undefined {
  if (!fits(plan)) return undefined;
  const columns = plan.dimensions.map((d) => d.encoded.codes);
  const cardinalities = plan.dimensions.map((d) => Math.max(1, d.encoded.values.length));
  const keySpace = cardinalities.reduce((product, n) => product * n, 1);
  const rowCount = plan.rowCount;
  const first = columns[0] ?? new Int32Array(rowCount);
  const second = columns[1] ?? first;
  const stride = columns.length === 2 ? (cardinalities[0] as number) : 0;
  const keep = keepMask(plan);
  const sizes = new Float64Array(keySpace);
  const sums = plan.inputs.map(() => new Float64Array(keySpace));
  const values = plan.inputs.map((input) => input.input.values);
  // One loop per input count keeps every array access a plain local: no per-row loop over inputs.
  const [v0, v1, v2] = values as [Float64Array, Float64Array, Float64Array];
  const [s0, s1, s2] = sums as [Float64Array, Float64Array, Float64Array];
  switch (values.length) {
    case 0:
      for (let row = 0; row < rowCount; row++) {
        if (keep[row] === 0) continue;
        const key = (first[row] as number) + (second[row] as number) * stride;
        sizes[key] = (sizes[key] as number) + 1;
      }
      break;
    case 1:
      for (let row = 0; row < rowCount; row++) {
        if (keep[row] === 0) continue;
        const key = (first[row] as number) + (second[row] as number) * stride;
        sizes[key] = (sizes[key] as number) + 1;
        s0[key] = (s0[key] as number) + (v0[row] as number);
      }
      break;
    case 2:
      for (let row = 0; row < rowCount; row++) {
        if (keep[row] === 0) continue;
        const key = (first[row] as number) + (second[row] as number) * stride;
        sizes[key] = (sizes[key] as number) + 1;
        s0[key] = (s0[key] as number) + (v0[row] as number);
        s1[key] = (s1[key] as number) + (v1[row] as number);
      }
      break;
    default:
      for (let row = 0; row < rowCount; row++) {
        if (keep[row] === 0) continue;
        const key = (first[row] as number) + (second[row] as number) * stride;
        sizes[key] = (sizes[key] as number) + 1;
        s0[key] = (s0[key] as number) + (v0[row] as number);
        s1[key] = (s1[key] as number) + (v1[row] as number);
        s2[key] = (s2[key] as number) + (v2[row] as number);
      }
  }
  const keys: number[] = [];
  sizes.forEach((size, key) => {
    if (size > 0) keys.push(key);
  });
  const out = plan.measures.map((planned) =>
    keys.map((key) => {
      const size = sizes[key] as number;
      if (planned.kind !== 'numeric') return size;
      const sum = (sums[planned.input] as Float64Array)[key] as number;
      return planned.measure.fn === 'avg' ? sum / size : sum;
    }),
  );
  return {
    groupCount: keys.length,
    codes: decode(keys, cardinalities),
    sizes: Int32Array.from(keys, (key) => sizes[key] as number),
    values: out,
    // Only null-free columns come here: every row of a group gives each measure a value.
    contributors: plan.measures.map(() => undefined),
  };
}

/** Row counts, and sums or averages of null-free columns, over a scan (not an index) into a small key space. */
function fits(plan: AggregatePlan): boolean {
  if (plan.candidates !== undefined || plan.dimensions.length > 2) return false;
  if (plan.inputs.length > MAX_INPUTS) return false;
  const keySpace = plan.dimensions.reduce((product, d) => product * Math.max(1, d.encoded.values.length), 1);
  if (keySpace > SMALL_KEYS) return false;
  if (plan.inputs.some((i) => i.extremes || i.spread || i.median || i.input.hasNulls)) return false;
  return plan.measures.every(
    (m) => m.kind === 'rows' || (m.kind === 'numeric' && (m.measure.fn === 'sum' || m.measure.fn === 'avg')),
  );
}
