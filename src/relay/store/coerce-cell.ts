// Coerces one raw source cell to a declared field type, returning the comparable key or an error reason.
import type { FieldType } from '../config/schema.ts';
import type { CellKey } from './column.ts';

export type Coerced = { ok: true; value: CellKey | null } | { ok: false; reason: string };

const TRUE = new Set(['true', '1', 'yes', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'f', 'n']);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;
// Excel counts days from 1899-12-30 (the 1900 leap-year bug is folded into that epoch).
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;

export interface CoerceOptions {
  /** XLSX sources: numbers in date/timestamp columns are Excel serial day numbers. */
  readonly excelSerials: boolean;
}

const ok = (value: CellKey | null): Coerced => ({ ok: true, value });
const fail = (reason: string): Coerced => ({ ok: false, reason });

export function coerceCell(raw: unknown, type: FieldType, options: CoerceOptions): Coerced {
  if (raw === null || raw === undefined || raw === '') return ok(null);
  switch (type) {
    case 'string':
      return ok(coerceString(raw));
    case 'integer':
      return coerceInteger(raw);
    case 'number':
      return coerceNumber(raw);
    case 'boolean':
      return coerceBoolean(raw);
    case 'date':
      return coerceDate(raw, options);
    case 'timestamp':
      return coerceTimestamp(raw, options);
  }
}

/** Parses a filter value (always text) with the same rules as source cells. */
export function parseFilterValue(text: string, type: FieldType): Coerced {
  const result = coerceCell(text, type, { excelSerials: false });
  return result.ok && result.value === null ? fail('empty value') : result;
}

function coerceString(raw: unknown): string {
  if (raw instanceof Date) return raw.toISOString();
  return String(raw);
}

function coerceInteger(raw: unknown): Coerced {
  if (typeof raw === 'bigint') {
    return raw <= BigInt(Number.MAX_SAFE_INTEGER) && raw >= BigInt(Number.MIN_SAFE_INTEGER)
      ? ok(Number(raw))
      : fail('integer outside the safe range');
  }
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? ok(raw) : fail(`${raw} is not an integer`);
  if (typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw)) {
    const value = Number(raw);
    return Number.isSafeInteger(value) ? ok(value) : fail('integer outside the safe range');
  }
  return fail(`${describe(raw)} is not an integer`);
}

function coerceNumber(raw: unknown): Coerced {
  if (typeof raw === 'bigint') return ok(Number(raw));
  if (typeof raw === 'number') return Number.isFinite(raw) ? ok(raw) : fail('not a finite number');
  if (typeof raw === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw))
    return ok(Number(raw));
  return fail(`${describe(raw)} is not a number`);
}

function coerceBoolean(raw: unknown): Coerced {
  if (typeof raw === 'boolean') return ok(raw);
  if (typeof raw === 'number' && (raw === 0 || raw === 1)) return ok(raw === 1);
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase();
    if (TRUE.has(text)) return ok(true);
    if (FALSE.has(text)) return ok(false);
  }
  return fail(`${describe(raw)} is not a boolean`);
}

function coerceDate(raw: unknown, options: CoerceOptions): Coerced {
  if (raw instanceof Date) {
    return Number.isNaN(raw.getTime()) ? fail('invalid date') : ok(raw.toISOString().slice(0, 10));
  }
  if (typeof raw === 'number' && options.excelSerials) {
    return ok(new Date(EXCEL_EPOCH_MS + Math.floor(raw) * DAY_MS).toISOString().slice(0, 10));
  }
  if (typeof raw === 'string') {
    const text = raw.trim();
    const match = DATE.exec(text);
    if (match && isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) return ok(text);
  }
  return fail(`${describe(raw)} is not a date (YYYY-MM-DD)`);
}

function coerceTimestamp(raw: unknown, options: CoerceOptions): Coerced {
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? fail('invalid timestamp') : ok(raw.getTime());
  if (typeof raw === 'number' && options.excelSerials) return ok(Math.round(EXCEL_EPOCH_MS + raw * DAY_MS));
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (DATE.test(text)) return coerceTimestamp(`${text}T00:00:00Z`, options);
    const match = TIMESTAMP.exec(text);
    if (match) {
      // A timestamp without an offset is read as UTC.
      const iso = `${match[1]}T${match[2]}:${match[3]}:${match[4] ?? '00'}${(match[5] ?? '').slice(0, 4)}${normaliseOffset(match[6])}`;
      const ms = Date.parse(iso);
      if (!Number.isNaN(ms)) return ok(ms);
    }
  }
  return fail(`${describe(raw)} is not an ISO 8601 timestamp`);
}

function normaliseOffset(offset: string | undefined): string {
  if (offset === undefined || offset === 'Z') return 'Z';
  return offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset;
}

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function describe(raw: unknown): string {
  const text =
    typeof raw === 'string' ? JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw) : String(raw);
  return `${typeof raw} ${text}`;
}
