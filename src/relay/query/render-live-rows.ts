// Renders rows read live from PostgreSQL as the entity's public JSON, through the same coercion as snapshot cells,
// so one table gives byte-identical records whether it is served as a snapshot or live.
import type { CatalogField } from '../catalog/catalog.ts';
import { relayProblem } from '../problems.ts';
import type { LiveRow } from '../sources/postgres/live-table.ts';
import { coerceValue, INVALID } from '../store/coerce-cell.ts';

export interface LiveLayout {
  /** Columns to SELECT, in order: every rendered field's column, then the primary key if not among them. */
  readonly columns: readonly string[];
  /** Position in `columns` of each rendered field. */
  readonly positions: readonly number[];
  readonly keyPosition: number;
  /** JSON object key prefixes (`{"name":`, `,"age":`). */
  readonly keys: readonly string[];
}

export function liveLayout(fields: readonly CatalogField[], primaryKey: CatalogField): LiveLayout {
  const columns: string[] = [];
  const positionOf = (column: string) => {
    let position = columns.indexOf(column);
    if (position < 0) position = columns.push(column) - 1;
    return position;
  };
  const positions = fields.map((field) => positionOf(field.column));
  return {
    columns,
    positions,
    keyPosition: positionOf(primaryKey.column),
    keys: fields.map((field, index) => `${index === 0 ? '{' : ','}${JSON.stringify(field.name)}:`),
  };
}

export function liveRowJson(fields: readonly CatalogField[], layout: LiveLayout, row: LiveRow): string {
  const parts: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as CatalogField;
    const raw = row[layout.positions[i] as number] ?? null;
    parts.push(layout.keys[i] as string, cellText(field, raw));
  }
  parts.push('}');
  return parts.join('');
}

function cellText(field: CatalogField, raw: string | null): string {
  const value = coerceValue(raw, field.type, false);
  // The checks a snapshot load applies to every cell, applied to each cell served.
  if (value === INVALID || (value === null && !field.nullable)) {
    throw relayProblem(
      'datasource.row_invalid',
      `a value of field \`${field.name}\` read from the database is ${value === null ? 'empty in a non-nullable field' : `not a valid ${field.type}`}`,
    );
  }
  if (value !== null && field.type === 'timestamp')
    return JSON.stringify(new Date(value as number).toISOString());
  return JSON.stringify(value);
}
