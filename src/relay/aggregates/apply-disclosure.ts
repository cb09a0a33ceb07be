// The post-pass over computed groups: order, disclosure control (omit or mask small groups), rounding, max_rows.
import type { CellKey } from '../store/column.ts';
import { compareKeys } from '../store/compare-keys.ts';
import type { AggregateMeasure, CatalogAggregate } from './aggregate-model.ts';
import type { GroupedResult } from './execute-aggregate.ts';
import type { AggregateQuery } from './parse-aggregate-request.ts';
import type { AggregatePlan } from './plan-aggregate.ts';

export interface Observation {
  /** Values of the query's group_by dimensions, in that order. */
  readonly keys: readonly (CellKey | null)[];
  /** Values of the query's measures, in that order; all null when masked. */
  readonly values: readonly (number | null)[];
  readonly masked: boolean;
  /**
   * Of a group shown, the measures nulled because fewer rows than the minimum cell size gave them a value (an
   * average of one income in a group of ten is that income); undefined when none was.
   */
  readonly suppressedMeasures: readonly boolean[] | undefined;
}

export interface DisclosedResult {
  readonly observations: readonly Observation[];
  /** Groups below the minimum cell size, omitted or masked, and groups with a suppressed measure (counted before truncation). */
  readonly suppressedGroups: number;
  readonly truncated: boolean;
}

export function applyDisclosure(
  aggregate: CatalogAggregate,
  query: AggregateQuery,
  plan: AggregatePlan,
  grouped: GroupedResult,
): DisclosedResult {
  const { minCellSize, suppression } = aggregate.disclosure;
  const dimCount = plan.dimensions.length;
  const ranks = plan.dimensions.map((d) => rankOf(d.encoded.values));
  const order = Array.from({ length: grouped.groupCount }, (_, g) => g);
  order.sort((a, b) => {
    for (let d = 0; d < dimCount; d++) {
      const rank = ranks[d] as Int32Array;
      const diff =
        (rank[grouped.codes[a * dimCount + d] as number] as number) -
        (rank[grouped.codes[b * dimCount + d] as number] as number);
      if (diff !== 0) return diff;
    }
    return 0;
  });
  const observations: Observation[] = [];
  let suppressedGroups = 0;
  let kept = 0;
  for (const g of order) {
    const small = (grouped.sizes[g] as number) < minCellSize;
    const thin = small ? undefined : thinMeasures(grouped, g, minCellSize);
    if (small || thin) suppressedGroups++;
    if (small && suppression === 'omit') continue;
    kept++;
    if (observations.length >= query.maxRows) continue;
    const keys = plan.dimensions.map(
      (d, i) => d.encoded.values[grouped.codes[g * dimCount + i] as number] as CellKey | null,
    );
    const values = small
      ? query.measures.map(() => null)
      : query.measures.map((measure, m) =>
          thin?.[m] ? null : rounded(measure, grouped.values[m]?.[g] ?? null),
        );
    observations.push({ keys, values, masked: small, suppressedMeasures: thin });
  }
  return { observations, suppressedGroups, truncated: kept > query.maxRows };
}

/**
 * Whether an answer to this query can carry a suppression status (CSV status columns, the SDMX attribute): masked
 * groups, or a numeric measure over a column that can lack values. Fixed per query, so its shape is too.
 */
export function carriesStatus(aggregate: CatalogAggregate, query: AggregateQuery): boolean {
  return aggregate.disclosure.suppression !== 'omit' || query.measures.some(mayLackValues);
}

/** A measure over a column some rows can leave empty: a row count never is, a count of the column's values can be. */
function mayLackValues(measure: AggregateMeasure): boolean {
  const column = measure.column;
  if (column === undefined) return false;
  return column.field.nullable || column.via !== undefined;
}

/** Which measures of group `g` fewer than `minCellSize` rows gave a value, or undefined when none. */
function thinMeasures(grouped: GroupedResult, g: number, minCellSize: number): boolean[] | undefined {
  let thin: boolean[] | undefined;
  grouped.contributors.forEach((counts, m) => {
    // A measure no row gave a value is null (a count of them 0): nothing of anyone's shows.
    const n = counts?.[g] ?? minCellSize;
    if (n > 0 && n < minCellSize) {
      thin ??= grouped.contributors.map(() => false);
      thin[m] = true;
    }
  });
  return thin;
}

/** Position of each code when the values are sorted: null last, then ascending as compareCells orders them. */
function rankOf(values: readonly (CellKey | null)[]): Int32Array {
  const codes = values.map((_, code) => code);
  codes.sort((a, b) => compareCells(values[a] as CellKey | null, values[b] as CellKey | null));
  const rank = new Int32Array(values.length);
  codes.forEach((code, position) => {
    rank[code] = position;
  });
  return rank;
}

/** Null last; else the order filters and indexes use (strings by code point), so max_rows keeps what a range would. */
export function compareCells(a: CellKey | null, b: CellKey | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareKeys(a, b);
}

function rounded(measure: AggregateMeasure, value: number | null): number | null {
  // A sum beyond the double range overflows to Infinity (a stddev over it is NaN): there is no number to report,
  // and every format must say so alike (JSON would write null, CSV the word).
  if (value === null || !Number.isFinite(value)) return null;
  if (measure.decimals === undefined) return value;
  const result = Number(value.toFixed(measure.decimals));
  // -0 renders as 0 in JSON but not everywhere else.
  return result === 0 ? 0 : result;
}
