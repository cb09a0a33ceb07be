// How a filter compares against a live column so that it selects the rows a snapshot of the same column would.
// A snapshot compares the JavaScript values it decoded from the column's text; PostgreSQL compares in the column's
// own type, which refuses some values (1.5 for an integer column, a year 0 timestamp, text with NUL) and accepts others
// in more spellings than its text output (upper-case uuids). Each value is therefore turned, before it reaches the
// database, into a bound of the column's domain: a value the column cannot hold matches nothing or bounds nothing.
import type { CellKey } from '../../store/column.ts';

/** A lower or upper bound on a column, as the database can take it. */
export type Bound =
  /** Compare with `param` (`>=`/`<=`, or `>`/`<` when strict). */
  | { readonly param: unknown; readonly strict: boolean }
  /** Every non-null value satisfies it. */
  | 'all'
  /** No value satisfies it. */
  | 'none';

/** Integer column types and the values they hold: [lowest, first one above the highest] (2^63 - 1 is no double). */
const INTEGER_RANGES: Record<string, readonly [number, number]> = {
  int2: [-(2 ** 15), 2 ** 15],
  int4: [-(2 ** 31), 2 ** 31],
  int8: [-(2 ** 63), 2 ** 63],
};
const TEXT_TYPES = new Set(['text', 'varchar', 'uuid']);
/** The only spelling PostgreSQL writes a uuid in, and so the only one a snapshot of it holds. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Text types whose empty string a snapshot reads as null (uuid has no empty value). */
const EMPTY_IS_NULL_TYPES = new Set(['text', 'varchar']);

/**
 * The column as `eq` and `in` compare it. A numeric column compares as the double a snapshot holds (and a record
 * shows), not exactly: `0.1` then equals a stored 0.10000000000000000001, as it does in the snapshot.
 */
export function exactColumn(quoted: string, pgType: string): string {
  return pgType === 'numeric' ? `(${quoted}::float8)` : quoted;
}

/**
 * The column as a range compares it. A uuid's ranges compare its text byte by byte, as the snapshot compares the
 * strings it holds (uuid order is not text order once the bound is not itself a uuid); a numeric column compares
 * as doubles (see `exactColumn`).
 */
export function rangeColumn(quoted: string, pgType: string): string {
  return pgType === 'uuid' ? `(${quoted}::text COLLATE "C")` : exactColumn(quoted, pgType);
}

/**
 * The lower bound a range needs on a text column: an empty string is null in a snapshot, and null satisfies no
 * filter, so a range selects only strings above '' (the database would take '' as the lowest string).
 */
export function nonEmptyLower(lower: Bound | undefined, pgType: string): Bound | undefined {
  if (!EMPTY_IS_NULL_TYPES.has(pgType) || lower === 'none') return lower;
  if (lower === undefined || lower === 'all' || lower.param === '') return { param: '', strict: true };
  return lower;
}

/** The parameter for `column = value`, or undefined when no row of the column can equal it. */
export function exactParam(value: CellKey, pgType: string): unknown {
  const range = INTEGER_RANGES[pgType];
  if (range !== undefined) {
    return typeof value === 'number' && Number.isInteger(value) && value >= range[0] && value < range[1]
      ? value
      : undefined;
  }
  if (pgType === 'uuid') return typeof value === 'string' && CANONICAL_UUID.test(value) ? value : undefined;
  if (TEXT_TYPES.has(pgType)) return typeof value === 'string' && value.includes('\0') ? undefined : value;
  return temporalParam(value, pgType);
}

/** `column >= value` over the column's domain. */
export function lowerBound(value: CellKey, pgType: string): Bound {
  const range = INTEGER_RANGES[pgType];
  if (range !== undefined && typeof value === 'number') {
    const bound = Math.ceil(value);
    if (bound >= range[1]) return 'none';
    return bound <= range[0] ? 'all' : { param: bound, strict: false };
  }
  if (TEXT_TYPES.has(pgType) && typeof value === 'string') {
    // The database holds no NUL: a string at least `p\0...` is one above `p` (code point order).
    const nul = value.indexOf('\0');
    if (nul >= 0) return { param: value.slice(0, nul), strict: true };
  }
  return { param: temporalParam(value, pgType), strict: false };
}

/** `column <= value` over the column's domain. */
export function upperBound(value: CellKey, pgType: string): Bound {
  const range = INTEGER_RANGES[pgType];
  if (range !== undefined && typeof value === 'number') {
    const bound = Math.floor(value);
    if (bound < range[0]) return 'none';
    return bound >= range[1] - 1 ? 'all' : { param: bound, strict: false };
  }
  if (TEXT_TYPES.has(pgType) && typeof value === 'string') {
    // A string at most `p\0...` is at most `p`.
    const nul = value.indexOf('\0');
    if (nul >= 0) return { param: value.slice(0, nul), strict: false };
  }
  return { param: temporalParam(value, pgType), strict: false };
}

/**
 * Timestamps (epoch ms in the store) as ISO 8601 UTC text, a year before 1 in its BC form (ISO year 0 is 1 BC),
 * which PostgreSQL's input does not take as a year number. (Date filters are years 0001 to 9999 already.)
 */
function temporalParam(value: CellKey, pgType: string): unknown {
  if ((pgType === 'timestamp' || pgType === 'timestamptz') && typeof value === 'number') {
    const date = new Date(value);
    const year = date.getUTCFullYear();
    if (year >= 1 && year <= 9999) return date.toISOString();
    // toISOString writes other years with a sign and six digits; PostgreSQL wants them plain, or BC.
    const iso = date.toISOString();
    const rest = iso.slice(iso.indexOf('-', 1) + 1);
    return year > 9999 ? `${year}-${rest}` : `${String(1 - year).padStart(4, '0')}-${rest} BC`;
  }
  return value;
}
