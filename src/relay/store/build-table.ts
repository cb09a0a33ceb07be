// Turns source rows into a table snapshot: every row coerced and checked against the declared schema.
import type { TableConfig } from '../config/schema.ts';
import type { ColumnBatch } from '../sources/open-file-source.ts';
import { SourceError } from '../sources/source-error.ts';
import type { CellKey, Column } from './column.ts';
import { type ColumnBuilder, createColumnBuilder } from './column-builder.ts';
import { anyHighUnits, compareKeys } from './compare-keys.ts';
import { createHeapGuard, type HeapGuard } from './heap-guard.ts';
import { createTableSnapshot, type TableSnapshot } from './table-snapshot.ts';

export interface BuildTableInput {
  readonly config: TableConfig;
  readonly columns: readonly string[];
  readonly batches: AsyncIterable<unknown[][]>;
  /** When given, read instead of `batches` (same rows, column by column). */
  readonly columnBatches?: AsyncIterable<ColumnBatch> | undefined;
  readonly excelSerials: boolean;
  /** The content version, or a function computing it from the finished columns (in primary-key order). */
  readonly version: string | ((columns: ReadonlyMap<string, Column>) => string | Promise<string>);
  readonly loadedAt: number;
  /** The source's modification time, when it has one. */
  readonly modifiedAt?: number | undefined;
  /** The data row number errors give for the row at 0-based `index` (SourceRows.rowNumber); `index + 1` if absent. */
  readonly rowNumber?: ((index: number) => number) | undefined;
  /** Bytes read, or a function giving them once every row has been read. */
  readonly byteSize: number | (() => number);
  /** Checked after each batch (heap-guard.ts); this process's heap by default. */
  readonly heapGuard?: HeapGuard | undefined;
}

const NO_CELLS: ArrayLike<unknown> = [];

export async function buildTable(input: BuildTableInput): Promise<TableSnapshot> {
  const { config } = input;
  const fields = config.schema.fields;
  const positions = mapColumns(config, input.columns);
  const pkField = fields.findIndex((field) => field.name === config.primary_key);
  const builders = fields.map((field, f) =>
    createColumnBuilder(field, { primaryKey: f === pkField, excelSerials: input.excelSerials }),
  );
  const rowNumber = input.rowNumber ?? ((index: number) => index + 1);
  const heapGuard = input.heapGuard ?? createHeapGuard(config.id);
  let rowCount = 0;
  if (input.columnBatches) {
    for await (const batch of input.columnBatches) {
      const cellsOf = (f: number) => batch.columns[positions[f] as number];
      const epochDays = (f: number) => batch.epochDays?.[positions[f] as number] === true;
      appendBatch(config, builders, rowCount, batch.rowCount, cellsOf, epochDays, rowNumber);
      rowCount += batch.rowCount;
      heapGuard();
    }
  } else {
    let cells: unknown[] = [];
    for await (const rows of input.batches) {
      if (cells.length < rows.length) cells = new Array(rows.length);
      const cellsOf = (f: number) => {
        const position = positions[f] as number;
        for (let i = 0; i < rows.length; i++) cells[i] = (rows[i] as unknown[])[position];
        return cells;
      };
      appendBatch(config, builders, rowCount, rows.length, cellsOf, () => false, rowNumber);
      rowCount += rows.length;
      heapGuard();
    }
  }
  const order = primaryKeyOrder(config, (builders[pkField] as ColumnBuilder).keys(), rowNumber, (sorting) =>
    heapGuard(finishingBytes(fields, rowCount, sorting), 'to order and lay out the rows'),
  );
  const columns = new Map<string, Column>();
  const finishing: (ColumnBuilder | undefined)[] = builders;
  fields.forEach((field, f) => {
    columns.set(field.name, (finishing[f] as ColumnBuilder).finish(order));
    // Dropped once copied, so the copies never take more than the largest column beside the rows read.
    finishing[f] = undefined;
  });
  return createTableSnapshot({
    config,
    rowCount,
    columns,
    version: typeof input.version === 'function' ? await input.version(columns) : input.version,
    loadedAt: input.loadedAt,
    modifiedAt: input.modifiedAt,
    byteSize: typeof input.byteSize === 'function' ? input.byteSize() : input.byteSize,
  });
}

/**
 * Appends `count` rows field by field. The error reported is the one a row-by-row scan meets first (lowest row,
 * then lowest field), so each later field is only scanned up to the earliest refused row found so far.
 */
function appendBatch(
  config: TableConfig,
  builders: readonly ColumnBuilder[],
  rowsBefore: number,
  count: number,
  cellsOf: (field: number) => ArrayLike<unknown> | undefined,
  epochDays: (field: number) => boolean,
  rowNumber: (index: number) => number,
): void {
  let badRow = count;
  let badField = -1;
  for (let f = 0; f < builders.length; f++) {
    const at = (builders[f] as ColumnBuilder).append(cellsOf(f) ?? NO_CELLS, badRow, epochDays(f));
    if (at >= 0) {
      badRow = at;
      badField = f;
    }
  }
  if (badField === -1) return;
  const { code, detail } = (builders[badField] as ColumnBuilder).problem();
  throw new SourceError({
    tableId: config.id,
    code,
    detail,
    row: rowNumber(rowsBefore + badRow),
    column: config.schema.fields[badField]?.name ?? '',
  });
}

/**
 * Position of each declared field in the source; missing columns fail, extra ones fail under `strict`, and so does
 * a name given to two columns (see `repeatedColumn`).
 */
export function mapColumns(config: TableConfig, sourceColumns: readonly string[]): number[] {
  const declared = new Set(config.schema.fields.map((field) => field.name));
  if (!sourceColumns.some((name) => declared.has(name))) {
    // Not one declared name: most likely the header row is missing and these are a record's values, which must not
    // reach the logs (load errors do), so none of them is named.
    throw new SourceError({
      tableId: config.id,
      code: 'ingest.missing_column',
      detail: `none of the declared columns is in the source's ${sourceColumns.length} columns (is its header row missing?)`,
    });
  }
  const repeated = repeatedColumn(config, sourceColumns, declared);
  if (repeated !== undefined) {
    throw new SourceError({
      tableId: config.id,
      code: 'ingest.duplicate_column',
      detail: `${repeated.count} source columns have this name (at positions ${repeated.positions.join(', ')}): rename all but one`,
      column: repeated.name,
    });
  }
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

/**
 * The first name two source columns share. Only one of them could be served, and which is a guess: the first would
 * be taken and the other dropped, under `strict` too. A file header with a repeated name is refused whether or not
 * a field declares it; a PostgreSQL result only when a field does (the others are never selected, and naming a
 * declared one twice would make its COPY ambiguous).
 */
function repeatedColumn(
  config: TableConfig,
  sourceColumns: readonly string[],
  declared: ReadonlySet<string>,
): { name: string; count: number; positions: number[] } | undefined {
  const seen = new Set<string>();
  for (const name of sourceColumns) {
    if (!seen.has(name)) {
      seen.add(name);
      continue;
    }
    if (config.source.type !== 'file' && !declared.has(name)) continue;
    const positions: number[] = [];
    sourceColumns.forEach((other, at) => {
      if (other === name) positions.push(at + 1);
    });
    return { name, count: positions.length, positions };
  }
  return undefined;
}

/**
 * Bytes the finishing step allocates at most beside the rows read: the sort order (when the rows need sorting) and
 * one column laid out anew (numbers copied, 9 bytes a cell with the null flag; text joined into one array of
 * references, 8 bytes a cell, sorted in place).
 */
function finishingBytes(fields: TableConfig['schema']['fields'], rows: number, sorting: boolean): number {
  let column = 0;
  for (const { type } of fields) {
    const cell = type === 'boolean' ? 1 : type === 'string' || type === 'date' ? 8 : 9;
    column = Math.max(column, cell * rows);
  }
  return (sorting ? 4 * rows : 0) + column;
}

/**
 * Row permutation into ascending primary-key order; duplicates fail naming both source rows. `reserve` is told,
 * before anything is allocated, whether the rows need sorting.
 */
function primaryKeyOrder(
  config: TableConfig,
  keys: ArrayLike<CellKey>,
  rowNumber: (index: number) => number,
  reserve: (sorting: boolean) => void,
): Int32Array | undefined {
  // Code-point order (compare-keys.ts), natively compared unless some key needs the slower comparison.
  const compare = anyHighUnits(keys) ? compareKeys : (a: CellKey, b: CellKey) => (a < b ? -1 : a > b ? 1 : 0);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++)
    sorted = compare(keys[i - 1] as CellKey, keys[i] as CellKey) < 0;
  reserve(!sorted);
  if (sorted) return undefined;
  const order = new Int32Array(keys.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => compare(keys[a] as CellKey, keys[b] as CellKey) || a - b);
  for (let i = 1; i < order.length; i++) {
    const previous = order[i - 1] as number;
    const current = order[i] as number;
    if (keys[previous] === keys[current]) {
      throw new SourceError({
        tableId: config.id,
        code: 'ingest.duplicate_primary_key',
        detail: `duplicate primary key (also in data row ${rowNumber(Math.min(previous, current))})`,
        row: rowNumber(Math.max(previous, current)),
        column: config.primary_key,
      });
    }
  }
  return order;
}
