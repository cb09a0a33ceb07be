// Turns a checked query into a plan over typed arrays: rows to visit, filter code masks, dimension codes, inputs.
import type { CellKey } from '../store/column.ts';
import { compareKeys } from '../store/compare-keys.ts';
import type { Generation } from '../store/generation.ts';
import { lookup } from '../store/hash-index.ts';
import { rangeBounds, rowsInRange } from '../store/sorted-index.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import type { AggregateDimension, AggregateMeasure, CatalogAggregate } from './aggregate-model.ts';
import type { AggregateFilter, AggregateQuery } from './parse-aggregate-request.ts';
import { type Encoded, encodedPath, type NumericInput, numericPath, sourceTable } from './source-columns.ts';

/** A row passes when `accept[codes[row]] === 1`. */
export interface FilterCheck {
  readonly codes: Int32Array;
  readonly accept: Uint8Array;
}

export interface PlannedDimension {
  readonly dimension: AggregateDimension;
  readonly encoded: Encoded;
}

/** How a measure is computed: from the group size, a shared numeric input, or a dictionary-encoded field. */
export type PlannedMeasure =
  | { readonly measure: AggregateMeasure; readonly kind: 'rows' }
  | { readonly measure: AggregateMeasure; readonly kind: 'numeric'; readonly input: number }
  | { readonly measure: AggregateMeasure; readonly kind: 'present' | 'distinct'; readonly encoded: Encoded };

export interface PlannedInput {
  readonly path: string;
  readonly input: NumericInput;
  /** Whether a min or max is asked for (else the fold keeps only counts and sums). */
  readonly extremes: boolean;
  /** A stddev needs a second pass for the squared deviations, a median the values themselves. */
  readonly spread: boolean;
  readonly median: boolean;
}

export interface AggregatePlan {
  readonly rowCount: number;
  /** Source rows to visit in ascending order, or undefined for every row. */
  readonly candidates: Int32Array | undefined;
  readonly checks: readonly FilterCheck[];
  readonly dimensions: readonly PlannedDimension[];
  readonly inputs: readonly PlannedInput[];
  readonly measures: readonly PlannedMeasure[];
}

export function planAggregate(
  generation: Generation,
  aggregate: CatalogAggregate,
  query: AggregateQuery,
): AggregatePlan {
  const { source } = aggregate;
  const table = sourceTable(generation, source);
  const driver = chooseDriver(table, query.filters);
  const checks = query.filters
    .filter((filter) => filter !== driver?.filter)
    .map((filter) => {
      const encoded = encodedPath(generation, source, filter.path);
      return { codes: encoded.codes, accept: acceptMask(encoded, filter) };
    });
  const dimensions = query.groupBy.map((dimension) => ({
    dimension,
    encoded: encodedPath(generation, source, dimension.path),
  }));
  const inputs: PlannedInput[] = [];
  const measures = query.measures.map((measure): PlannedMeasure => {
    const column = measure.column;
    if (!column) return { measure, kind: 'rows' };
    if (measure.fn === 'count' || measure.fn === 'count_distinct') {
      const kind = measure.fn === 'count' ? 'present' : 'distinct';
      return { measure, kind, encoded: encodedPath(generation, source, column) };
    }
    let index = inputs.findIndex((input) => input.path === column.path);
    const asked = {
      extremes: measure.fn === 'min' || measure.fn === 'max',
      spread: measure.fn === 'stddev',
      median: measure.fn === 'median',
    };
    if (index < 0) {
      index = inputs.length;
      inputs.push({ path: column.path, input: numericPath(generation, source, column), ...asked });
    } else {
      const earlier = inputs[index] as PlannedInput;
      inputs[index] = {
        ...earlier,
        extremes: earlier.extremes || asked.extremes,
        spread: earlier.spread || asked.spread,
        median: earlier.median || asked.median,
      };
    }
    return { measure, kind: 'numeric', input: index };
  });
  return { rowCount: table.rowCount, candidates: driver?.rows, checks, dimensions, inputs, measures };
}

/** The smallest candidate list an index gives for one of the source's own fields, if any narrows enough. */
function chooseDriver(
  table: TableSnapshot,
  filters: readonly AggregateFilter[],
): { filter: AggregateFilter; rows: Int32Array } | undefined {
  let best: { filter: AggregateFilter; rows: Int32Array } | undefined;
  for (const filter of filters) {
    if (filter.path.via) continue;
    const rows = indexedRows(table, filter);
    if (rows && (!best || rows.length < best.rows.length)) best = { filter, rows };
  }
  return best;
}

function indexedRows(table: TableSnapshot, filter: AggregateFilter): Int32Array | undefined {
  const column = filter.path.field.column;
  const [first, second] = filter.values;
  switch (filter.op) {
    case 'eq':
      return lookup(table.hashIndex(column), first as CellKey);
    case 'in':
      return union(filter.values.map((value) => lookup(table.hashIndex(column), value)));
    case 'gte':
      return narrowRange(table, column, first, undefined);
    case 'lte':
      return narrowRange(table, column, undefined, first);
    case 'between':
      return narrowRange(table, column, first, second);
  }
}

// A wide range is cheaper to check through its code mask than to gather and sort.
function narrowRange(
  table: TableSnapshot,
  column: string,
  lower: CellKey | undefined,
  upper: CellKey | undefined,
): Int32Array | undefined {
  const index = table.sortedIndex(column);
  const bounds = rangeBounds(index, lower, upper);
  return bounds[1] - bounds[0] > table.rowCount / 4 ? undefined : rowsInRange(index, bounds);
}

function union(lists: readonly Int32Array[]): Int32Array {
  if (lists.length === 1) return lists[0] as Int32Array;
  const merged = new Int32Array(lists.reduce((sum, list) => sum + list.length, 0));
  let offset = 0;
  for (const list of lists) {
    merged.set(list, offset);
    offset += list.length;
  }
  // One row holds one value, so lists of distinct values never share a row.
  return merged.sort();
}

/** Which codes of the encoded field satisfy the filter (null never does). */
function acceptMask(encoded: Encoded, filter: AggregateFilter): Uint8Array {
  const accept = new Uint8Array(encoded.values.length);
  const [first, second] = filter.values as CellKey[];
  const set = filter.op === 'in' ? new Set<CellKey>(filter.values) : undefined;
  encoded.values.forEach((value, code) => {
    if (value === null) return;
    let ok: boolean;
    switch (filter.op) {
      case 'eq':
        ok = value === first;
        break;
      case 'in':
        ok = (set as Set<CellKey>).has(value);
        break;
      // Once per distinct value: the code-point order (compare-keys.ts) costs nothing that matters here.
      case 'gte':
        ok = compareKeys(value, first as CellKey) >= 0;
        break;
      case 'lte':
        ok = compareKeys(value, first as CellKey) <= 0;
        break;
      case 'between':
        ok = compareKeys(value, first as CellKey) >= 0 && compareKeys(value, second as CellKey) <= 0;
        break;
    }
    if (ok) accept[code] = 1;
  });
  return accept;
}
