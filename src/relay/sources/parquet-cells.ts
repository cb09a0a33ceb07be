// Exact conversions of Parquet values hyparquet would alter or leave raw: DECIMAL to its decimal text,
// sub-millisecond timestamps floored to the millisecond, strings decoded strictly, TIME counts to time-of-day text.
import type { ParquetParsers, SchemaElement } from 'hyparquet';
import { NOT_UTF8, ParquetTimeOfDay } from '../store/coerce-cell.ts';
import { decimalText } from '../store/decimal-text.ts';
import type { SourceError } from './source-error.ts';
import { type SourceFile, sourceError } from './source-file.ts';

/**
 * The unscaled integer of a DECIMAL cell as stored: INT32 (number), INT64 (bigint), or FIXED_LEN_BYTE_ARRAY and
 * BYTE_ARRAY (big-endian two's complement bytes). Anything else (a missing cell) is returned as null.
 */
export function unscaledOf(raw: unknown): bigint | null {
  if (typeof raw === 'bigint') return raw;
  if (typeof raw === 'number') return Number.isInteger(raw) ? BigInt(raw) : null;
  if (raw instanceof Uint8Array) {
    if (raw.length === 0) return 0n;
    let value = 0n;
    for (const byte of raw) value = (value << 8n) | BigInt(byte);
    // The top bit of the first byte is the sign.
    return (raw[0] as number) & 0x80 ? value - (1n << BigInt(raw.length * 8)) : value;
  }
  return null;
}

/** Each DECIMAL cell as its exact decimal text (see `decimalText`); a missing cell is null. */
export function decimalTexts(cells: ArrayLike<unknown>, scale: number): (string | null)[] {
  return Array.from(cells, (cell) => {
    const unscaled = unscaledOf(cell);
    return unscaled === null ? null : decimalText(unscaled, scale);
  });
}

/** `Date` of a count of `unit`-ths of a millisecond, floored: -1500µs is …59.998Z, as the CSV text would give. */
function flooredDate(count: bigint, perMs: bigint): Date {
  const quotient = count / perMs;
  // BigInt division truncates toward zero; a negative remainder means the instant lies before `quotient` ms.
  return new Date(Number(count % perMs < 0n ? quotient - 1n : quotient));
}

// hyparquet's own decoder replaces bytes that are not UTF-8 with U+FFFD and drops a leading U+FEFF from each value.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A string cell's text exactly as stored, or NOT_UTF8 (refused by the store) for bytes that are not UTF-8. */
function stringFromBytes(bytes: Uint8Array | undefined): string | typeof NOT_UTF8 | undefined {
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return NOT_UTF8;
  }
}

/**
 * hyparquet's defaults truncate TIMESTAMP MICROS and NANOS (and INT96, read as nanoseconds) toward zero, which
 * moves a pre-1970 instant with a sub-millisecond part one millisecond later than the same instant read from text.
 * A JSON column is kept as its text: parsed, a number past 2^53 would lose digits, `"a"` its quotes, `1.50` its
 * zero and `null` would become an empty cell.
 */
export const EXACT_PARSERS: Pick<
  ParquetParsers,
  'timestampFromMicroseconds' | 'timestampFromNanoseconds' | 'stringFromBytes' | 'jsonFromBytes'
> = {
  timestampFromMicroseconds: (micros: bigint) => flooredDate(BigInt(micros), 1000n),
  timestampFromNanoseconds: (nanos: bigint) => flooredDate(BigInt(nanos), 1_000_000n),
  stringFromBytes,
  jsonFromBytes: stringFromBytes,
};

/**
 * The scale of a leaf annotated DECIMAL (converted or logical type), undefined for any other leaf, or why the scale
 * is refused: the format requires 0 <= scale <= precision, and a few hundred bytes of file could otherwise declare
 * a scale of millions and make every cell a text that long.
 */
export function decimalScaleOf(element: SchemaElement): number | string | undefined {
  const logical = element.logical_type?.type === 'DECIMAL' ? element.logical_type : undefined;
  if (logical === undefined && element.converted_type !== 'DECIMAL') return undefined;
  const scale = logical !== undefined ? logical.scale : (element.scale ?? 0);
  const precision = logical !== undefined ? logical.precision : element.precision;
  if (!Number.isInteger(scale) || scale < 0 || precision === undefined || scale > precision) {
    return `declares DECIMAL scale ${String(scale)} with precision ${String(precision)} (the scale must be from 0 to the precision)`;
  }
  return scale;
}

/** A TIME leaf: how many of its counts make a second, and the digits of a fraction of one. */
export interface TimeUnit {
  readonly perSecond: bigint;
  readonly digits: number;
}

const TIME_UNITS: Readonly<Record<string, TimeUnit>> = {
  MILLIS: { perSecond: 1000n, digits: 3 },
  MICROS: { perSecond: 1_000_000n, digits: 6 },
  NANOS: { perSecond: 1_000_000_000n, digits: 9 },
};
const DAY_SECONDS = 86_400n;

/**
 * The unit of a leaf annotated TIME (logical type, or the TIME_MILLIS / TIME_MICROS converted types), else
 * undefined. hyparquet hands such cells over as the raw count since midnight, which would be served as a number.
 * The unit is known whether or not the column is marked adjusted to UTC, and either way the count is the time of
 * day the file stores (most writers mark every TIME column so).
 */
export function timeUnitOf(element: SchemaElement): TimeUnit | undefined {
  if (element.logical_type?.type === 'TIME') return TIME_UNITS[element.logical_type.unit];
  if (element.converted_type === 'TIME_MILLIS') return TIME_UNITS.MILLIS;
  if (element.converted_type === 'TIME_MICROS') return TIME_UNITS.MICROS;
  return undefined;
}

/** Each count as its time of day (see timeOfDayText); a missing cell stays as it is. */
export function timesOfDay(cells: ArrayLike<unknown>, unit: TimeUnit): unknown[] {
  return Array.from(cells, (cell) =>
    typeof cell === 'number' || typeof cell === 'bigint'
      ? new ParquetTimeOfDay(timeOfDayText(cell, unit))
      : cell,
  );
}

/**
 * `HH:MM:SS`, then the fraction of the second in all the digits of the unit when it is not zero (`01:00:00.120`
 * for MILLIS, `01:00:00.120000` for MICROS), so a column's texts are as exact as its counts and sort as they do.
 * Null for a count outside the day (negative, or 24:00:00 and later), which names no time.
 */
export function timeOfDayText(count: number | bigint, unit: TimeUnit): string | null {
  if (typeof count === 'number' && !Number.isSafeInteger(count)) return null;
  const value = BigInt(count);
  if (value < 0n || value >= DAY_SECONDS * unit.perSecond) return null;
  const seconds = Number(value / unit.perSecond);
  const fraction = value % unit.perSecond;
  const two = (n: number) => String(n).padStart(2, '0');
  const text = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  return fraction === 0n ? text : `${text}.${String(fraction).padStart(unit.digits, '0')}`;
}

/**
 * The error for the first cell hyparquet left undefined in a top-level leaf column of the row group starting at
 * data row `groupStart + 1`, or undefined. It gives a value whose dictionary index lies past its dictionary (or
 * one its page ran out of) as undefined, where a null is null: served, it would be an empty cell the file never
 * held. Typed arrays hold no such cell.
 */
export function unreadCell(
  file: SourceFile,
  groupIndex: number,
  groupStart: number,
  column: string,
  cells: ArrayLike<unknown>,
): SourceError | undefined {
  if (ArrayBuffer.isView(cells)) return undefined;
  for (let index = 0; index < cells.length; index++) {
    if (cells[index] !== undefined) continue;
    return sourceError(
      file,
      'ingest.parse_error',
      `${file.displayPath} is not a readable Parquet file: row group ${groupIndex + 1}, column ${JSON.stringify(column)}: its cell refers to no entry of its dictionary (or its page holds fewer values than it declares)`,
      { row: groupStart + index + 1, column },
    );
  }
  return undefined;
}
