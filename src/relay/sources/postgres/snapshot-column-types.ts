// Snapshot columns whose PostgreSQL type can never be read as the field's declared type. A snapshot reads each
// cell's text and coerces it by the store's rules, so a text column may hold integers, an integer column booleans
// (0 and 1), a date column timestamps: those are checked cell by cell as rows are read. But the text of a date is
// never an integer, nor a boolean's a date: such a column is refused when the table is opened, before any row, so
// an empty table does not load only to fail once it has rows, and `config check --connect` reports it.
import type { FieldType, TableConfig } from '../../config/schema.ts';
import { SourceError } from '../source-error.ts';

/** Built-in type OIDs (pg_type), with the name PostgreSQL gives each. */
const TYPES: Readonly<Record<number, string>> = {
  16: 'boolean',
  17: 'bytea',
  20: 'bigint',
  21: 'smallint',
  23: 'integer',
  700: 'real',
  701: 'double precision',
  1700: 'numeric',
  1082: 'date',
  1083: 'time without time zone',
  1114: 'timestamp without time zone',
  1184: 'timestamp with time zone',
  1186: 'interval',
  1266: 'time with time zone',
  2950: 'uuid',
};

const NUMBERS = [20, 21, 23, 700, 701, 1700];
/** Times of day and intervals: no date, no instant, no number. */
const NOT_INSTANTS = [1083, 1186, 1266];
const INSTANTS = [1082, 1114, 1184];
const OPAQUE = [17, 2950];

/** By declared type, the column types whose text it never reads. */
const NEVER_READ: Readonly<Record<FieldType, ReadonlySet<number>>> = {
  string: new Set(),
  integer: new Set([16, ...INSTANTS, ...NOT_INSTANTS, ...OPAQUE]),
  number: new Set([16, ...INSTANTS, ...NOT_INSTANTS, ...OPAQUE]),
  // 0 and 1 read as booleans, so numbers may fit.
  boolean: new Set([...INSTANTS, ...NOT_INSTANTS, ...OPAQUE]),
  // A timestamp's text is not a date's (`2024-01-02 10:00:00`).
  date: new Set([16, ...NUMBERS, 1114, 1184, ...NOT_INSTANTS, ...OPAQUE]),
  timestamp: new Set([16, ...NUMBERS, ...NOT_INSTANTS, ...OPAQUE]),
};

/** The declared type a column of this type is read as. */
function suggested(oid: number): FieldType {
  if (oid === 16) return 'boolean';
  if (oid === 20 || oid === 21 || oid === 23) return 'integer';
  if (NUMBERS.includes(oid)) return 'number';
  if (oid === 1082) return 'date';
  if (oid === 1114 || oid === 1184) return 'timestamp';
  return 'string';
}

/** Throws `ingest.type_mismatch` for the first declared field whose column no cell of could fit. */
export function checkSnapshotColumnTypes(
  table: TableConfig,
  columns: readonly { readonly name: string; readonly dataTypeID: number }[],
): void {
  const typeOf = new Map(columns.map((column) => [column.name, column.dataTypeID]));
  for (const field of table.schema.fields) {
    const oid = typeOf.get(field.name);
    if (oid === undefined || !NEVER_READ[field.type].has(oid)) continue;
    throw new SourceError({
      tableId: table.id,
      code: 'ingest.type_mismatch',
      detail: `column is ${TYPES[oid]}, which a snapshot can never read as ${field.type} (declare it as ${suggested(oid)}, or read it through a query that casts it)`,
      column: field.name,
    });
  }
}
