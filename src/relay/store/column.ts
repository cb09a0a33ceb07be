// Typed in-memory columns of a table snapshot, and reading one cell back as a JSON value.
import type { FieldType } from '../config/schema.ts';

/** number, integer and timestamp (epoch ms) values; `nulls[i] === 1` marks a null. */
export interface NumericColumn {
  readonly kind: 'numeric';
  readonly type: 'number' | 'integer' | 'timestamp';
  readonly values: Float64Array;
  readonly nulls: Uint8Array;
}
/** 0 false, 1 true, 2 null. */
export interface BooleanColumn {
  readonly kind: 'boolean';
  readonly type: 'boolean';
  readonly values: Uint8Array;
}
/** string and date (`YYYY-MM-DD`, which sorts correctly as text). */
export interface TextColumn {
  readonly kind: 'text';
  readonly type: 'string' | 'date';
  readonly values: (string | null)[];
}
export type Column = NumericColumn | BooleanColumn | TextColumn;

/** Comparable cell value used by indexes and filters: number (also timestamps), string or boolean. */
export type CellKey = number | string | boolean;

export function cellKey(column: Column, row: number): CellKey | null {
  switch (column.kind) {
    case 'numeric':
      return column.nulls[row] === 1 ? null : (column.values[row] as number);
    case 'boolean': {
      const v = column.values[row];
      return v === 2 ? null : v === 1;
    }
    case 'text':
      return column.values[row] ?? null;
  }
}

/** The JSON value of a cell as the API renders it (timestamps as ISO 8601 UTC). */
export function cellJson(column: Column, row: number): string | number | boolean | null {
  const key = cellKey(column, row);
  if (key !== null && column.type === 'timestamp') return new Date(key as number).toISOString();
  return key;
}

export function columnKindOf(type: FieldType): Column['kind'] {
  if (type === 'boolean') return 'boolean';
  if (type === 'string' || type === 'date') return 'text';
  return 'numeric';
}
