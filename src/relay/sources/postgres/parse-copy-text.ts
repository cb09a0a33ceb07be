// Decodes rows of PostgreSQL's COPY text format (tab-separated, `\N` for NULL, backslash escapes) straight into
// column batches. Numbers, dates and booleans in their plain forms are read from the bytes without making a string;
// anything else becomes the cell's text, which the store coerces by its usual rules (so errors read the same).
import type { FieldType } from '../../config/schema.ts';
import type { ColumnBatch } from '../open-file-source.ts';

const TAB = 9;
const NEWLINE = 10;
const BACKSLASH = 92;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;

/** Collects rows into per-field arrays, `capacity` rows per batch. */
export class CopyBatchBuilder {
  private readonly types: readonly FieldType[];
  private columns: unknown[][];
  private rows = 0;
  readonly capacity: number;

  constructor(types: readonly FieldType[], capacity: number) {
    this.types = types;
    this.capacity = capacity;
    this.columns = types.map(() => new Array(capacity));
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Decodes one COPY row (the bytes of one CopyData message); throws on a row with the wrong field count. */
  addRow(chunk: Uint8Array): void {
    const types = this.types;
    const row = this.rows;
    let start = 0;
    let field = 0;
    const length = chunk[chunk.length - 1] === NEWLINE ? chunk.length - 1 : chunk.length;
    for (;;) {
      let end = start;
      let escaped = false;
      while (end < length) {
        const byte = chunk[end] as number;
        if (byte === TAB) break;
        if (byte === BACKSLASH) {
          escaped = true;
          end += 2;
        } else end++;
      }
      if (end > length) end = length;
      if (field >= types.length) throw new TypeError(`COPY row has more than ${types.length} fields`);
      (this.columns[field] as unknown[])[row] = decodeCell(
        chunk,
        start,
        end,
        escaped,
        types[field] as FieldType,
      );
      field++;
      if (end >= length) break;
      start = end + 1;
    }
    if (field !== types.length) throw new TypeError(`COPY row has ${field} fields, expected ${types.length}`);
    this.rows++;
  }

  /** The rows added so far as one batch (date fields as epoch days, see ColumnBatch), and a fresh start. */
  take(): ColumnBatch {
    const count = this.rows;
    const columns = this.columns.map((cells) => (count === this.capacity ? cells : cells.slice(0, count)));
    this.columns = this.types.map(() => new Array(this.capacity));
    this.rows = 0;
    return { rowCount: count, columns, epochDays: this.types.map((type) => type === 'date') };
  }
}

function decodeCell(
  chunk: Uint8Array,
  start: number,
  end: number,
  escaped: boolean,
  type: FieldType,
): unknown {
  if (escaped) {
    if (end - start === 2 && chunk[start + 1] === 78) return null; // \N
    return unescapeText(chunk, start, end);
  }
  switch (type) {
    case 'integer':
    case 'number': {
      // An integer field takes digits only ('12.00' goes the text way and is refused there, as in a CSV).
      const value = plainNumber(chunk, start, end, type === 'integer');
      if (value !== undefined) return value;
      break;
    }
    case 'date': {
      const day = plainEpochDay(chunk, start, end);
      if (day !== undefined) return day;
      break;
    }
    case 'boolean':
      if (end - start === 1) {
        if (chunk[start] === 116) return true; // t
        if (chunk[start] === 102) return false; // f
      }
      break;
    default:
      break;
  }
  return utf8(chunk, start, end);
}

const decoder = new TextDecoder();
function utf8(chunk: Uint8Array, start: number, end: number): string {
  return Buffer.isBuffer(chunk)
    ? chunk.toString('utf8', start, end)
    : decoder.decode(chunk.subarray(start, end));
}

/** `[-]digits[.digits]` with at most 15 significant digits, read exactly (the value Number(text) gives). */
export function plainNumber(
  chunk: Uint8Array,
  start: number,
  end: number,
  integerOnly = false,
): number | undefined {
  let i = start;
  const negative = chunk[i] === MINUS;
  if (negative) i++;
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let seenDot = false;
  if (i >= end) return undefined;
  for (; i < end; i++) {
    const byte = chunk[i] as number;
    if (byte === DOT && !seenDot && !integerOnly) {
      seenDot = true;
      if (i === end - 1) return undefined;
      continue;
    }
    const digit = byte - ZERO;
    if (digit < 0 || digit > 9) return undefined;
    mantissa = mantissa * 10 + digit;
    if (mantissa !== 0) digits++;
    if (seenDot) scale++;
    if (digits > 15 || scale > 22) return undefined;
  }
  // An integer below 2^53 divided by an exact power of ten is correctly rounded: the same as parsing the text.
  const value = scale === 0 ? mantissa : mantissa / (POWERS_OF_TEN[scale] as number);
  return negative ? -value : value;
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/** `YYYY-MM-DD` of a real calendar day (years 0001 to 9999) as days since 1970-01-01. */
export function plainEpochDay(chunk: Uint8Array, start: number, end: number): number | undefined {
  if (end - start !== 10 || chunk[start + 4] !== MINUS || chunk[start + 7] !== MINUS) return undefined;
  const year = decimal(chunk, start, 4);
  const month = decimal(chunk, start + 5, 2);
  const day = decimal(chunk, start + 8, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 ? (leap ? 29 : 28) : (DAYS_IN_MONTH[month - 1] as number);
  if (day > monthDays) return undefined;
  // Days from 1970-01-01 to 1 January of `year`, then into the year.
  const y = year - 1;
  const daysToYear = 365 * y + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400) - 719_162;
  return daysToYear + (DAYS_BEFORE_MONTH[month - 1] as number) + (leap && month > 2 ? 1 : 0) + day - 1;
}

function decimal(chunk: Uint8Array, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = (chunk[i] as number) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

const ESCAPES: Record<number, number> = { 98: 8, 102: 12, 110: 10, 114: 13, 116: 9, 118: 11 };

/**
 * The text of a field holding backslash escapes (\\, \t, \n, \r, \b, \f, \v, octal \ooo, hex \xhh). The bytes are
 * unescaped into one buffer of the field's size (an escape never lengthens it): a text cell may be hundreds of MiB.
 */
export function unescapeText(chunk: Uint8Array, start: number, end: number): string {
  const bytes = Buffer.allocUnsafe(end - start);
  let out = 0;
  for (let i = start; i < end; i++) {
    const byte = chunk[i] as number;
    if (byte !== BACKSLASH || i + 1 >= end) {
      bytes[out++] = byte;
      continue;
    }
    const next = chunk[++i] as number;
    const simple = ESCAPES[next];
    if (simple !== undefined) bytes[out++] = simple;
    else if (next >= ZERO && next <= ZERO + 7) {
      let value = next - ZERO;
      for (
        let k = 0;
        k < 2 && i + 1 < end && (chunk[i + 1] as number) >= ZERO && (chunk[i + 1] as number) <= ZERO + 7;
        k++
      ) {
        value = value * 8 + ((chunk[++i] as number) - ZERO);
      }
      bytes[out++] = value & 0xff;
    } else if (next === 120 && i + 1 < end && isHex(chunk[i + 1] as number)) {
      let value = hexValue(chunk[++i] as number);
      if (i + 1 < end && isHex(chunk[i + 1] as number)) value = value * 16 + hexValue(chunk[++i] as number);
      bytes[out++] = value;
    } else bytes[out++] = next;
  }
  return bytes.toString('utf8', 0, out);
}

function isHex(byte: number): boolean {
  return (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102);
}

function hexValue(byte: number): number {
  return byte <= 57 ? byte - 48 : (byte | 32) - 87;
}
