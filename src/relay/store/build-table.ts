// Turns source rows into a table snapshot: every row coerced and checked against the declared schema.
import type { TableConfig, TableFieldConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { coerceCell } from './coerce-cell.ts';
import { type CellKey, type Column, columnKindOf } from './column.ts';
import { createTableSnapshot, type TableSnapshot } from './table-snapshot.ts';

export interface BuildTableInput {
  readonly config: TableConfig;
  readonly columns: readonly string[];
  readonly batches: AsyncIterable<unknown[][]>;
  readonly excelSerials: boolean;
  readonly version: string;
  readonly loadedAt: number;
  readonly byteSize: number;
}

export async function buildTable(input: BuildTableInput): Promise<TableSnapshot> {
  const { config } = input;
  const fields = config.schema.fields;
  const positions = mapColumns(config, input.columns);
  const values: (CellKey | null)[][] = fields.map(() => []);
  const pkField = fields.findIndex((field) => field.name === config.primary_key);
  const options = { excelSerials: input.excelSerials };
  let rowCount = 0;
  for await (const batch of input.batches) {
    for (const raw of batch) {
      rowCount++;
      for (let f = 0; f < fields.length; f++) {
        const field = fields[f] as TableFieldConfig;
        const result = coerceCell(raw[positions[f] as number], field.type, options);
        if (!result.ok) {
          const reason = field.sensitive ? `value is not a valid ${field.type}` : result.reason;
          throw new SourceError({
            tableId: config.id,
            code: 'ingest.type_mismatch',
            detail: reason,
            row: rowCount,
            column: field.name,
          });
        }
        if (result.value === null && (!field.nullable || f === pkField)) {
          const what = f === pkField ? 'primary key is empty' : 'empty value in a non-nullable field';
          throw new SourceError({
            tableId: config.id,
            code: 'ingest.null_value',
            detail: what,
            row: rowCount,
            column: field.name,
          });
        }
        (values[f] as (CellKey | null)[]).push(result.value);
      }
    }
  }
  const order = primaryKeyOrder(config, values[pkField] as CellKey[]);
  const columns = new Map<string, Column>();
  fields.forEach((field, f) => {
    columns.set(field.name, toColumn(field, values[f] as (CellKey | null)[], order));
  });
  return createTableSnapshot({
    config,
    rowCount,
    columns,
    version: input.version,
    loadedAt: input.loadedAt,
    byteSize: input.byteSize,
  });
}

/** Position of each declared field in the source; missing columns fail, extra ones fail under `strict`. */
function mapColumns(config: TableConfig, sourceColumns: readonly string[]): number[] {
  const declared = new Set(config.schema.fields.map((field) => field.name));
  if (config.schema.strict) {
    const extra = sourceColumns.filter((name) => !declared.has(name));
    if (extra.length > 0) {
      throw new SourceError({
        tableId: config.id,
        code: 'ingest.strict_extra_column',
        detail: `source has undeclared columns: ${extra.join(', ')} (declare them or set schema.strict: false)`,
      });
    }
  }
  const missing = config.schema.fields.filter((field) => !sourceColumns.includes(field.name));
  if (missing.length > 0) {
    throw new SourceError({
      tableId: config.id,
      code: 'ingest.missing_column',
      detail: `source lacks declared columns: ${missing.map((field) => field.name).join(', ')}`,
    });
  }
  return config.schema.fields.map((field) => sourceColumns.indexOf(field.name));
}

/** Row permutation into ascending primary-key order; duplicates fail naming both source rows. */
function primaryKeyOrder(config: TableConfig, keys: CellKey[]): Int32Array | undefined {
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as CellKey) < (keys[i] as CellKey);
  if (sorted) return undefined;
  const order = Int32Array.from(keys.keys());
  order.sort((a, b) => {
    const ka = keys[a] as CellKey;
    const kb = keys[b] as CellKey;
    return ka < kb ? -1 : ka > kb ? 1 : a - b;
  });
  for (let i = 1; i < order.length; i++) {
    const previous = order[i - 1] as number;
    const current = order[i] as number;
    if (keys[previous] === keys[current]) {
      throw new SourceError({
        tableId: config.id,
        code: 'ingest.duplicate_primary_key',
        detail: `duplicate primary key (also in data row ${Math.min(previous, current) + 1})`,
        row: Math.max(previous, current) + 1,
        column: config.primary_key,
      });
    }
  }
  return order;
}

function toColumn(
  field: TableFieldConfig,
  values: (CellKey | null)[],
  order: Int32Array | undefined,
): Column {
  const n = values.length;
  const at = order ? (i: number) => values[order[i] as number] ?? null : (i: number) => values[i] ?? null;
  const kind = columnKindOf(field.type);
  if (kind === 'numeric') {
    const column = new Float64Array(n);
    const nulls = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = at(i);
      if (v === null) nulls[i] = 1;
      else column[i] = v as number;
    }
    return { kind, type: field.type as 'number' | 'integer' | 'timestamp', values: column, nulls };
  }
  if (kind === 'boolean') {
    const column = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = at(i);
      column[i] = v === null ? 2 : v ? 1 : 0;
    }
    return { kind, type: 'boolean', values: column };
  }
  const column: (string | null)[] = new Array(n);
  for (let i = 0; i < n; i++) column[i] = at(i) as string | null;
  return { kind, type: field.type as 'string' | 'date', values: column };
}
