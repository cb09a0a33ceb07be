// How a filter compares against a live column so that it selects the rows a snapshot of the same column would.
// A snapshot compares the JavaScript values it decoded from the column's text; PostgreSQL compares in the column's
// own type, which refuses some values (1.5 for an integer column, a year 0 timestamp, text with NUL) and accepts others
// in more spellings than its text output (upper-case uuids). Each value is therefore turned, before it reaches the
// database, into a bound of the column's domain: a value the column cannot hold matches nothing or bounds nothing.
import type { FieldType } from '../../config/schema.ts';
import type { CellKey } from '../../store/column.ts';
import { decimalText } from '../../store/decimal-text.ts';

/** A lower or upper bound on a column, as the database can take it. */
export type Bound =
  /** Compare with `param` (`>=`/`<=`, or `>`/`<` when strict). */
  | { readonly param: unknown; readonly strict: boolean }
  /** Every non-null value satisfies it. */
  | 'all'
  /** No value satisfies it. */
  | 'none';

/**
 * Integer column types, and the values their filters are bound by: [lowest, first one above the highest] of bigint
 * (2^63 - 1 is no double) for all three. Parameters on them are bigints (build-live-select.ts): a smallint or integer
 * column widened in the database while the relay serves it compares as before, values beyond its old range
 * included, and bigint bounds never overflow the narrower column's type.
 */
const INTEGER_TYPES = new Set(['int2', 'int4', 'int8']);
const INTEGER_RANGE: readonly [number, number] = [-(2 ** 63), 2 ** 63];
const TEXT_TYPES = new Set(['text', 'varchar', 'uuid']);
/** The only spelling PostgreSQL writes a uuid in, and so the only one a snapshot of it holds. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Text types whose empty string a snapshot reads as null (uuid has no empty value). */
const EMPTY_IS_NULL_TYPES = new Set(['text', 'varchar']);

/**
 * A bigint column served as a `number` field: a snapshot holds its values as doubles, which round beyond 2^53
 * (9007199254740993 reads as 9007199254740992), so it compares as those doubles. (smallint and integer values are
 * exact doubles; a bigint served as `integer` holds only safe integers, as filters on it do.)
 */
export const ROUNDED_INT8 = 'int8 as double';

/**
 * Column types several of whose values read as one double in a snapshot, and so equal it: numeric (0.1 and a stored
 * 0.10000000000000000001 both read as 0.1) and ROUNDED_INT8. `eq` and ranges compare the column itself with the
 * bounds of the values that read as the filter's double (`doubleBound`): exact, cheap, and able to use an index.
 */
const READ_AS_DOUBLE = new Set(['numeric', ROUNDED_INT8]);

/**
 * Timestamp column types. The database keeps microseconds; a snapshot keeps the milliseconds of the text it reads
 * (truncated: 00:00:00.123456 reads as 00:00:00.123), so the values that read as a filter's instant `t` are
 * [t, t + 1 ms): `eq` and the upper bounds (`lte`, `between`) end below t + 1 ms, and `in` compares it truncated.
 */
const TIMESTAMP_TYPES = new Set(['timestamp', 'timestamptz']);

/**
 * The built-in type a parameter compared with a column of `pgType` (as `comparedType` gives it) is cast to, so that
 * a column whose type changed in the database to one the comparison no longer fits fails the read (SQLSTATE class
 * 42) instead of comparing in the new type; undefined for a type outside those a live column may have.
 */
export function paramType(pgType: string): string | undefined {
  if (pgType === ROUNDED_INT8 || INTEGER_TYPES.has(pgType)) return 'int8';
  return PARAM_TYPES.has(pgType) ? pgType : undefined;
}

const PARAM_TYPES = new Set([
  'text',
  'varchar',
  'uuid',
  'numeric',
  'float8',
  'bool',
  'date',
  'timestamp',
  'timestamptz',
]);

/** The type a filter on a column of `pgType` serving a field of `fieldType` compares it as. */
export function comparedType(pgType: string, fieldType: FieldType): string {
  return pgType === 'int8' && fieldType === 'number' ? ROUNDED_INT8 : pgType;
}

/** Below 2^53 every integer is a double of its own: only the bigint equal to a double reads as it. */
const EXACT_INTEGERS = 2 ** 53;

/**
 * Whether `in` compares these values with the column read as doubles (`doubleColumn`): always for numeric, and for
 * a bigint served as number once a value is beyond 2^53 (below it, only the integer itself reads as that double).
 */
export function inAsDoubles(values: readonly CellKey[], pgType: string): boolean {
  if (pgType === 'numeric') return true;
  return (
    pgType === ROUNDED_INT8 &&
    values.some((value) => typeof value === 'number' && Math.abs(value) >= EXACT_INTEGERS)
  );
}

/**
 * The column as the double a snapshot holds. int8 to float8 never fails; numeric to float8 fails (SQLSTATE 22003)
 * beyond the double range, both ways, for every row a statement reaches: such values are read as a snapshot reads
 * them (1e-400 as 0, 1e400 as infinite, which no filter value equals) before the cast.
 */
export function doubleColumn(quoted: string, pgType: string): string {
  if (pgType !== 'numeric') return `(${quoted}::float8)`;
  return `(CASE WHEN abs(${quoted}) < ${OVERFLOW} THEN CASE WHEN abs(${quoted}) > ${UNDERFLOW} THEN ${quoted}::float8 ELSE 0::float8 END WHEN ${quoted} > 0 THEN 'Infinity'::float8 WHEN ${quoted} < 0 THEN '-Infinity'::float8 END)`;
}

/** The column as `in` compares it: a timestamp truncated to the milliseconds a snapshot holds. */
export function inColumn(quoted: string, pgType: string): string {
  return TIMESTAMP_TYPES.has(pgType) ? `date_trunc('milliseconds', ${quoted})` : quoted;
}

/**
 * The column as a range compares it. A uuid's ranges compare its text byte by byte, as the snapshot compares the
 * strings it holds (uuid order is not text order once the bound is not itself a uuid).
 */
export function rangeColumn(quoted: string, pgType: string): string {
  return pgType === 'uuid' ? `(${quoted}::text COLLATE "C")` : quoted;
}

/**
 * `column = value` over a READ_AS_DOUBLE or timestamp column: the bounds of the values that read as `value` (one
 * integer for a bigint below 2^53, a millisecond of a timestamp), or 'none'; undefined for other columns, which
 * `exactParam` serves.
 */
export function equalRange(
  value: CellKey,
  pgType: string,
): { lower: Exclude<Bound, 'none'>; upper: Exclude<Bound, 'none'> } | 'none' | undefined {
  if (TIMESTAMP_TYPES.has(pgType) && typeof value === 'number') {
    const lower = { param: temporalParam(value, pgType), strict: false };
    return { lower, upper: { param: temporalParam(value + 1, pgType), strict: true } };
  }
  if (!READ_AS_DOUBLE.has(pgType) || !Number.isFinite(value)) return undefined;
  const lower = lowerBound(value, pgType);
  const upper = upperBound(value, pgType);
  if (lower === 'none' || upper === 'none') return 'none';
  // A fraction below 2^53 reads from no bigint: its bounds cross.
  if (
    pgType === ROUNDED_INT8 &&
    lower !== 'all' &&
    upper !== 'all' &&
    BigInt(lower.param as number | string) > BigInt(upper.param as number | string)
  ) {
    return 'none';
  }
  return { lower, upper };
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
  if (pgType === ROUNDED_INT8) {
    // Beyond 2^53 several bigints read as the value: `inAsDoubles` compares those as doubles.
    return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < EXACT_INTEGERS
      ? value
      : undefined;
  }
  if (INTEGER_TYPES.has(pgType)) {
    const range = INTEGER_RANGE;
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
  if (READ_AS_DOUBLE.has(pgType) && Number.isFinite(value))
    return doubleBound(value as number, pgType, 'lower');
  const range = INTEGER_TYPES.has(pgType) ? INTEGER_RANGE : undefined;
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
  if (READ_AS_DOUBLE.has(pgType) && Number.isFinite(value))
    return doubleBound(value as number, pgType, 'upper');
  const range = INTEGER_TYPES.has(pgType) ? INTEGER_RANGE : undefined;
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
  // Below the next millisecond: every microsecond of this one reads as it.
  if (TIMESTAMP_TYPES.has(pgType) && typeof value === 'number')
    return { param: temporalParam(value + 1, pgType), strict: true };
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

/**
 * The bound on a READ_AS_DOUBLE column that selects the values a snapshot reads as a double at least (`lower`) or
 * at most (`upper`) `value`. Reading rounds to the nearest double, a tie to the one with an even significand, so
 * those values end halfway to the next double, that halfway point included when `value`'s significand is even. The
 * bound is that point as exact decimal text for numeric, or the first bigint inside it.
 */
function doubleBound(value: number, pgType: string, side: 'lower' | 'upper'): Bound {
  if (pgType === ROUNDED_INT8 && Math.abs(value) < EXACT_INTEGERS) {
    // Only the integers themselves read as doubles here: the bigint bound is the value rounded inwards.
    const bound = side === 'lower' ? Math.ceil(value) : Math.floor(value);
    return { param: bound === 0 ? 0 : bound, strict: false };
  }
  const neighbour = side === 'lower' ? -nextUp(-value) : nextUp(value);
  const edge = halfway(binary(value), binary(neighbour));
  const inclusive = (bitsOf(value) & 1n) === 0n;
  if (pgType === 'numeric') return { param: binaryText(edge), strict: !inclusive };
  if (side === 'lower') {
    const first = ceiling(edge, !inclusive);
    if (first > INT8_MAX) return 'none';
    return first <= INT8_MIN ? 'all' : { param: integerParam(first), strict: false };
  }
  const last = flooring(edge, !inclusive);
  if (last < INT8_MIN) return 'none';
  return last >= INT8_MAX ? 'all' : { param: integerParam(last), strict: false };
}

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

/** An exact binary fraction: mantissa × 2^exponent. */
interface Binary {
  readonly mantissa: bigint;
  readonly exponent: number;
}

/**
 * The least numeric magnitude a snapshot reads as an infinite double (halfway from the largest double to 2^1024;
 * the tie goes to 2^1024), and the greatest nonzero one it reads as 0 (2^-1075, halfway to the least double).
 */
const OVERFLOW = (2n ** 1024n - 2n ** 970n).toString();
const UNDERFLOW = binaryText({ mantissa: 1n, exponent: -1075 });

const bits = new DataView(new ArrayBuffer(8));

function bitsOf(value: number): bigint {
  bits.setFloat64(0, value);
  return bits.getBigUint64(0);
}

/** The next double above a finite one (Infinity above the largest). */
function nextUp(value: number): number {
  if (value === 0) return Number.MIN_VALUE;
  const next = bitsOf(value) + (value > 0 ? 1n : -1n);
  bits.setBigUint64(0, next);
  return bits.getFloat64(0);
}

/** A double as an exact binary fraction; an infinity as ±2^1024, the value a snapshot rounds to it from. */
function binary(value: number): Binary {
  if (!Number.isFinite(value)) return { mantissa: value > 0 ? 1n : -1n, exponent: 1024 };
  const raw = bitsOf(value);
  const biased = Number((raw >> 52n) & 0x7ffn);
  const fraction = raw & 0xfffffffffffffn;
  const mantissa = biased === 0 ? fraction : fraction | 0x10000000000000n;
  return { mantissa: raw >> 63n === 1n ? -mantissa : mantissa, exponent: Math.max(biased, 1) - 1075 };
}

function halfway(a: Binary, b: Binary): Binary {
  const exponent = Math.min(a.exponent, b.exponent);
  return {
    mantissa: (a.mantissa << BigInt(a.exponent - exponent)) + (b.mantissa << BigInt(b.exponent - exponent)),
    exponent: exponent - 1,
  };
}

/** Exact decimal text (a binary fraction always has one: m × 2^-e is m × 5^e × 10^-e). */
function binaryText({ mantissa, exponent }: Binary): string {
  return exponent >= 0
    ? (mantissa << BigInt(exponent)).toString()
    : decimalText(mantissa * 5n ** BigInt(-exponent), -exponent);
}

/** The least integer at or above (`strict`: above) `value`. */
function ceiling({ mantissa, exponent }: Binary, strict: boolean): bigint {
  if (exponent >= 0) return (mantissa << BigInt(exponent)) + (strict ? 1n : 0n);
  const floor = mantissa >> BigInt(-exponent);
  const exact = floor << BigInt(-exponent) === mantissa;
  return exact && !strict ? floor : floor + 1n;
}

/** The greatest integer at or below (`strict`: below) `value`. */
function flooring({ mantissa, exponent }: Binary, strict: boolean): bigint {
  if (exponent >= 0) return (mantissa << BigInt(exponent)) - (strict ? 1n : 0n);
  const floor = mantissa >> BigInt(-exponent);
  const exact = floor << BigInt(-exponent) === mantissa;
  return exact && strict ? floor - 1n : floor;
}

/** A bigint bound as a parameter: a number while it is exact as one, its decimal text beyond. */
function integerParam(value: bigint): number | string {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value.toString();
}
