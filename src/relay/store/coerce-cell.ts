// Coerces one raw source cell to a declared field type, returning the comparable key or an error reason.
// Reasons name the kind of value, never the value: they reach load errors, logs and the cluster IPC channel.
import type { FieldType } from '../config/schema.ts';
import type { CellKey } from './column.ts';

export type Coerced = { ok: true; value: CellKey | null } | { ok: false; reason: string };

/** What `coerceValue` returns for a cell that does not fit its type; `invalidReason()` then says why. */
export const INVALID: unique symbol = Symbol('invalid cell');
export type CoercedValue = CellKey | null | typeof INVALID;

const TRUE = new Set(['true', '1', 'yes', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'f', 'n']);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// The offset may be hours only (`+02`), as PostgreSQL writes whole-hour offsets.
const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
// The point and the digits after it as one optional group: with the point optional between two digit runs, a long
// run of digits with no valid end was split every possible way before it failed (quadratic in its length).
const NUMBER_TEXT = /^\s*[+-]?(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
// Excel counts days from 1899-12-30 (the 1900 leap-year bug is folded into that epoch), or from 1904-01-01 in
// workbooks using the 1904 date system (`<workbookPr date1904="1"/>`, old Mac Excel). The fold holds from serial
// 61 (1900-03-01) on: serial 60 is Excel's 1900-02-29, and serials 1 to 59 count from 1899-12-31.
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const EXCEL_LEAP_DAY = 60;
const EXCEL_1904_EPOCH_MS = Date.UTC(1904, 0, 1);
const DAY_MS = 86_400_000;
// A Date holds at most 100,000,000 days either side of 1970 (±8.64e15 ms).
const MAX_DATE_DAY = 100_000_000;
// Dates are `YYYY-MM-DD` from 0001-01-01 to 9999-12-31 whatever the source: a day beyond would need a sign or more
// digits, and would no longer sort as its text.
const FIRST_CALENDAR_DAY = Date.parse('0001-01-01T00:00:00Z') / DAY_MS;
const LAST_CALENDAR_DAY = Date.parse('9999-12-31T00:00:00Z') / DAY_MS;
// Timestamps are served as `toISOString()` text, which spells a year outside 0000 to 9999 with a sign and six digits
// (`+010000-01-01T...`): no RFC 3339 date-time, and no filter value could name it. A Parquet or XLSX instant, or an
// offset moving text past either end, may land there, so such a cell is refused as a date beyond the years is.
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
// Date columns repeat few distinct days, so the text of days from 1900 to 2099 is cached, indexed by epoch day.
const CACHED_FIRST_DAY = Date.UTC(1900, 0, 1) / DAY_MS;
const CACHED_DAYS = Date.UTC(2100, 0, 1) / DAY_MS - CACHED_FIRST_DAY;
let dayTexts: (string | undefined)[] | undefined;

/**
 * A Parquet string cell whose bytes are not UTF-8 (see parquet-cells.ts). Every field type refuses it, as CSV
 * sources refuse such bytes, rather than serve them as U+FFFD.
 */
export const NOT_UTF8: Readonly<object> = Object.freeze({});

// The reason of the last INVALID result: kept here so that valid cells allocate no result object.
let lastReason = '';

/**
 * A plain number cell of an XLSX workbook using the 1904 date system. It is its `value` for every type but `date`
 * and `timestamp`, which read it as days since 1904-01-01: only the workbook knows its epoch, so its cells carry it.
 */
export class Date1904Number {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

/**
 * The instant of an Excel serial day number, to the nearest millisecond. Serials are binary fractions of a day, so
 * 2024-01-01 00:00:02 is 45292.000023148146, a hair below the second: rounding down would serve 00:00:01.999.
 * Every XLSX serial (date-formatted or not) is converted here, so both kinds of cell give the same instant.
 */
export function excelSerialMs(serial: number, date1904: boolean): number {
  if (date1904) return Math.round(EXCEL_1904_EPOCH_MS + serial * DAY_MS);
  // NaN for Excel's 1900-02-29, a day that never was: no instant could stand for it.
  if (serial >= EXCEL_LEAP_DAY && serial < EXCEL_LEAP_DAY + 1) return Number.NaN;
  const epoch = serial >= 1 && serial < EXCEL_LEAP_DAY ? EXCEL_EPOCH_MS + DAY_MS : EXCEL_EPOCH_MS;
  return Math.round(epoch + serial * DAY_MS);
}

/**
 * A Parquet TIME cell: its time of day as ISO 8601 text (`01:00:00.123`), or null for a count outside the day. Only
 * a `string` field takes it: the count alone does not say its unit, and no other type holds a time of day.
 */
export class ParquetTimeOfDay {
  readonly text: string | null;
  constructor(text: string | null) {
    this.text = text;
  }
}

const NO_SUCH_DAY = 'Excel serial of a day that does not exist';

export interface CoerceOptions {
  /** XLSX sources: numbers in date/timestamp columns are Excel serial day numbers. */
  readonly excelSerials: boolean;
}

/** The allocation-free form used by table loading: the value, or INVALID with the reason in `invalidReason()`. */
export function coerceValue(raw: unknown, type: FieldType, excelSerials: boolean): CoercedValue {
  if (raw === null || raw === undefined || raw === '') return null;
  if (typeof raw === 'object' && raw instanceof Date1904Number)
    return coerce1904(raw.value, type, excelSerials);
  if (typeof raw === 'object' && raw instanceof ParquetTimeOfDay) return coerceTimeOfDay(raw, type);
  switch (type) {
    case 'string':
      // An XLSX number is the double nearest the digits stored; past 2^53 its text may not be those digits.
      if (excelSerials && typeof raw === 'number' && Math.abs(raw) >= 2 ** 53 && Number.isFinite(raw))
        return fail('number past 2^53 in a string field (its digits may not all be kept): store it as text');
      return coerceString(raw);
    case 'integer':
      return coerceInteger(raw);
    case 'number':
      return coerceNumber(raw);
    case 'boolean':
      return coerceBoolean(raw);
    case 'date':
      return coerceDate(raw, excelSerials);
    case 'timestamp':
      return servableInstant(coerceTimestamp(raw, excelSerials));
  }
}

/** A DATE cell given as whole days since 1970-01-01: the result `coerceValue` gives `new Date(day * DAY_MS)`. */
export function coerceEpochDay(day: unknown, type: FieldType, excelSerials: boolean): CoercedValue {
  if (typeof day !== 'number') return coerceValue(day, type, excelSerials);
  // Only the date type skips the Date; it is the only one a Parquet DATE column is normally declared as.
  if (type === 'date' && Number.isInteger(day) && day >= -MAX_DATE_DAY && day <= MAX_DATE_DAY)
    return calendarDay(day);
  return coerceValue(new Date(day * DAY_MS), type, excelSerials);
}

/** Why the last `coerceValue` call returned INVALID. */
export function invalidReason(): string {
  return lastReason;
}

export function coerceCell(raw: unknown, type: FieldType, options: CoerceOptions): Coerced {
  const value = coerceValue(raw, type, options.excelSerials);
  return value === INVALID ? { ok: false, reason: lastReason } : { ok: true, value };
}

/**
 * Parses a filter value (always text) with the same rules as source cells, but for the year range of timestamps:
 * a bound is compared, never served, and a live table sends such years in PostgreSQL's own spelling. RFC 3339
 * (§5.6) lets a date-time spell its `T` and `Z` in lower case, and a caller may, so a filter value means the same
 * in either case. A number whose text is not zero but reads as the double 0 (`1e-400`) is refused: compared as 0,
 * `gte` would take the zeros the caller left out (numbers are compared as doubles, so no comparison is exact).
 */
export function parseFilterValue(text: string, type: FieldType): Coerced {
  if (type === 'timestamp' && text !== '') {
    const value = coerceTimestamp(upperCaseTimestamp(text), false);
    return value === INVALID ? { ok: false, reason: lastReason } : { ok: true, value };
  }
  const result = coerceCell(text, type, { excelSerials: false });
  if (type === 'number' && result.ok && result.value === 0 && /[1-9]/.test(text.split(/[eE]/)[0] as string))
    return { ok: false, reason: 'nonzero number below the smallest double (it would compare as 0)' };
  return result.ok && result.value === null ? { ok: false, reason: 'empty value' } : result;
}

/** `2024-01-02t03:04:05z` as `2024-01-02T03:04:05Z`: only the separator and the UTC designator change case. */
function upperCaseTimestamp(text: string): string {
  return text.replace(/^(\s*\d{4}-\d{2}-\d{2})t/, '$1T').replace(/(\d)z(\s*)$/, '$1Z$2');
}

function fail(reason: string): typeof INVALID {
  lastReason = reason;
  return INVALID;
}

function coerce1904(value: number, type: FieldType, excelSerials: boolean): CoercedValue {
  if (type === 'date') return coerceDate(value, excelSerials, true);
  if (type === 'timestamp') return servableInstant(coerceTimestamp(value, excelSerials, true));
  return coerceValue(value, type, excelSerials);
}

function coerceTimeOfDay(raw: ParquetTimeOfDay, type: FieldType): CoercedValue {
  if (raw.text === null) return fail('Parquet TIME outside the day (00:00:00 to 23:59:59.999999999)');
  if (type === 'string') return raw.text;
  return fail(`a Parquet TIME (a time of day) fits no ${type} field: declare the field as string`);
}

function coerceString(raw: unknown): CoercedValue {
  if (typeof raw === 'string') return raw;
  if (raw instanceof Date) {
    const ms = raw.getTime();
    return Number.isNaN(ms) ? fail('invalid date') : raw.toISOString();
  }
  // A Parquet struct, map or list has no one text: String() would serve `[object Object]` or `a,b`.
  if (typeof raw === 'object') return fail(`the ${kindOf(raw)} is not a string`);
  return String(raw);
}

function coerceInteger(raw: unknown): CoercedValue {
  if (typeof raw === 'number') {
    if (Number.isSafeInteger(raw)) return raw;
    return fail(Number.isInteger(raw) ? 'integer outside the safe range' : 'the number is not an integer');
  }
  if (typeof raw === 'bigint') {
    return raw <= BigInt(Number.MAX_SAFE_INTEGER) && raw >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(raw)
      : fail('integer outside the safe range');
  }
  if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) {
    const value = Number(raw);
    return Number.isSafeInteger(value) ? value : fail('integer outside the safe range');
  }
  return fail(`the ${kindOf(raw)} is not an integer`);
}

function coerceNumber(raw: unknown): CoercedValue {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : fail('not a finite number');
  // Text or a bigint beyond the double range (`1e400`, a large numeric) becomes Infinity, which renders as null.
  if (typeof raw === 'bigint') return finite(Number(raw));
  if (typeof raw === 'string' && NUMBER_TEXT.test(raw)) return finite(Number(raw));
  return fail(`the ${kindOf(raw)} is not a number`);
}

function finite(value: number): CoercedValue {
  return Number.isFinite(value) ? value : fail('number outside the double range');
}

function coerceBoolean(raw: unknown): CoercedValue {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number' && (raw === 0 || raw === 1)) return raw === 1;
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
  }
  return fail(`the ${kindOf(raw)} is not a boolean`);
}

function coerceDate(raw: unknown, excelSerials: boolean, date1904 = false): CoercedValue {
  if (raw instanceof Date) {
    const ms = raw.getTime();
    return Number.isNaN(ms) ? fail('invalid date') : calendarDay(Math.floor(ms / DAY_MS));
  }
  // The day of the serial's instant, as a date-formatted cell (a Date) gives it.
  if (typeof raw === 'number' && excelSerials) {
    const ms = excelSerialMs(raw, date1904);
    return Number.isNaN(ms) ? fail(NO_SUCH_DAY) : calendarDay(Math.floor(ms / DAY_MS));
  }
  if (typeof raw === 'string') {
    const text = raw.length === 10 ? raw : raw.trim();
    if (isDateText(text)) return text;
  }
  return fail(`the ${kindOf(raw)} is not a date (YYYY-MM-DD)`);
}

/** `YYYY-MM-DD` of a UTC day number, or INVALID for a day outside the years 0001 to 9999. */
function calendarDay(day: number): CoercedValue {
  return day >= FIRST_CALENDAR_DAY && day <= LAST_CALENDAR_DAY
    ? dayText(day)
    : fail('date outside the years 0001 to 9999');
}

/** `YYYY-MM-DD` of a UTC day number, exactly as `toISOString()` spells that day. */
function dayText(day: number): string {
  const slot = day - CACHED_FIRST_DAY;
  if (!(slot >= 0 && slot < CACHED_DAYS)) return new Date(day * DAY_MS).toISOString().slice(0, 10);
  dayTexts ??= new Array<string | undefined>(CACHED_DAYS).fill(undefined);
  let text = dayTexts[slot];
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    dayTexts[slot] = text;
  }
  return text;
}

function coerceTimestamp(raw: unknown, excelSerials: boolean, date1904 = false): CoercedValue {
  if (raw instanceof Date) {
    const ms = raw.getTime();
    return Number.isNaN(ms) ? fail('invalid timestamp') : ms;
  }
  if (typeof raw === 'number' && excelSerials) {
    // A serial beyond the years 0000 to 9999 is refused by servableInstant.
    const ms = excelSerialMs(raw, date1904);
    return Number.isNaN(ms) ? fail(NO_SUCH_DAY) : ms;
  }
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (DATE.test(text)) return coerceTimestamp(`${text}T00:00:00Z`, excelSerials);
    const match = TIMESTAMP.exec(text);
    // Date.parse rolls a day past the month's end into the next month (2024-02-30 is March 1st). Year 0000 stays
    // a timestamp's (1 BC, a leap year like 2000), though not a date's.
    if (match && isDateText((match[1] as string).replace(/^0000/, '2000'))) {
      // A timestamp without an offset is read as UTC.
      const iso = `${match[1]}T${match[2]}:${match[3]}:${match[4] ?? '00'}${(match[5] ?? '').slice(0, 4)}${normaliseOffset(match[6])}`;
      const ms = Date.parse(iso);
      if (!Number.isNaN(ms)) return ms;
    }
  }
  return fail(`the ${kindOf(raw)} is not an ISO 8601 timestamp`);
}

/** The instant of a timestamp cell, or INVALID when it lies outside the years 0000 to 9999 (UTC). */
function servableInstant(value: CoercedValue): CoercedValue {
  if (typeof value !== 'number' || (value >= FIRST_INSTANT && value <= LAST_INSTANT)) return value;
  return fail('timestamp outside the years 0000 to 9999');
}

function normaliseOffset(offset: string | undefined): string {
  if (offset === undefined || offset === 'Z') return 'Z';
  if (offset.length === 3) return `${offset}:00`;
  return offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` naming a day of the calendar (years 0001 to 9999), checked by arithmetic: no Date, no regex. */
export function isDateText(text: string): boolean {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return false;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number));
}

/** The decimal number in `text[from, from + count)`, or -1 when a character is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return -1;
    value = value * 10 + code;
  }
  return value;
}

/** What kind of value a refused cell holds (`string`, `list`, ...): its type, never its content. */
function kindOf(raw: unknown): string {
  if (raw instanceof Date) return 'date';
  if (raw === NOT_UTF8) return 'byte string that is not UTF-8';
  if (Array.isArray(raw)) return 'list';
  return typeof raw === 'bigint' ? 'big integer' : typeof raw;
}
