// A loaded table: typed columns in primary-key order, its content version and lazily built indexes (built at
// once by the first read that needs one, or in slices by a reload for the indexes the table it replaces had).
import type { TableConfig } from '../config/schema.ts';
import type { CellKey, Column } from './column.ts';
import { buildHashIndex, type HashIndex, hashIndexBuild } from './hash-index.ts';
import { buildInSlices } from './index-build.ts';
import { primaryKeyRow } from './primary-key-row.ts';
import { buildSortedIndex, type SortedIndex, sortedIndexBuild } from './sorted-index.ts';

/** Columns with an equality (hash) index and columns with a range (sorted) index. */
export interface IndexedColumns {
  readonly hash: readonly string[];
  readonly sorted: readonly string[];
}

export interface TableSnapshot {
  readonly id: string;
  readonly config: TableConfig;
  readonly rowCount: number;
  /** Column by table field name; rows are stored in ascending primary-key order. */
  readonly columns: ReadonlyMap<string, Column>;
  readonly primaryKey: string;
  /** Content hash of the source bytes and the declared schema: equal data gives equal versions on every replica. */
  readonly version: string;
  readonly loadedAt: number;
  /** When the source was last modified (a file's modification time); undefined when the source does not say. */
  readonly modifiedAt: number | undefined;
  readonly byteSize: number;
  rowOf(key: CellKey): number | undefined;
  hashIndex(column: string): HashIndex;
  sortedIndex(column: string): SortedIndex;
  /** The indexes built so far. */
  indexedColumns(): IndexedColumns;
  /** Builds these indexes (those of its columns) in slices that yield to the event loop between them. */
  prepareIndexes(columns: IndexedColumns): Promise<void>;
}

/** `columns` must hold the rows in strictly ascending primary-key order, as `buildTable` leaves them. */
export function createTableSnapshot(init: {
  config: TableConfig;
  rowCount: number;
  columns: Map<string, Column>;
  version: string;
  loadedAt: number;
  modifiedAt?: number | undefined;
  byteSize: number;
}): TableSnapshot {
  const hashIndexes = new Map<string, HashIndex>();
  const sortedIndexes = new Map<string, SortedIndex>();
  const pkColumn = init.columns.get(init.config.primary_key) as Column;

  const columnOrThrow = (name: string): Column => {
    const column = init.columns.get(name);
    if (!column) throw new TypeError(`table ${init.config.id} has no column ${name}`);
    return column;
  };
  return {
    id: init.config.id,
    config: init.config,
    rowCount: init.rowCount,
    columns: init.columns,
    primaryKey: init.config.primary_key,
    version: init.version,
    loadedAt: init.loadedAt,
    modifiedAt: init.modifiedAt,
    byteSize: init.byteSize,
    rowOf: (key) => primaryKeyRow(pkColumn, init.rowCount, key),
    hashIndex(name) {
      let index = hashIndexes.get(name);
      if (!index) {
        index = buildHashIndex(columnOrThrow(name), init.rowCount);
        hashIndexes.set(name, index);
      }
      return index;
    },
    sortedIndex(name) {
      let index = sortedIndexes.get(name);
      if (!index) {
        index = buildSortedIndex(columnOrThrow(name), init.rowCount);
        sortedIndexes.set(name, index);
      }
      return index;
    },
    indexedColumns: () => ({ hash: [...hashIndexes.keys()], sorted: [...sortedIndexes.keys()] }),
    async prepareIndexes(columns) {
      for (const name of columns.hash) {
        const column = init.columns.get(name);
        if (column === undefined || hashIndexes.has(name)) continue;
        const index = await buildInSlices(hashIndexBuild(column, init.rowCount));
        hashIndexes.set(name, index);
      }
      for (const name of columns.sorted) {
        const column = init.columns.get(name);
        if (column === undefined || sortedIndexes.has(name)) continue;
        const index = await buildInSlices(sortedIndexBuild(column, init.rowCount));
        sortedIndexes.set(name, index);
      }
    },
  };
}
