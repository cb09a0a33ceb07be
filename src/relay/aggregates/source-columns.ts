// Per-generation column views over an aggregate's source rows: dictionary codes, relationship row maps, numbers.
import type { CatalogEntity, CatalogRelationship } from '../catalog/catalog.ts';
import { type CellKey, type Column, cellKey } from '../store/column.ts';
import type { Generation } from '../store/generation.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import type { FieldPath } from './aggregate-model.ts';

/** A field dictionary-encoded over the source rows: `values[codes[row]]` is the row's value. */
export interface Encoded {
  readonly codes: Int32Array;
  /** Distinct values in first-seen row order; null appears at most once. */
  readonly values: readonly (CellKey | null)[];
  /** The code of null, or -1 when no source row is null (or unrelated) here. */
  readonly nullCode: number;
}

/** A number field over the source rows; `nulls[row] === 1` marks a null (or unrelated) row. */
export interface NumericInput {
  readonly values: Float64Array;
  readonly nulls: Uint8Array;
  /** False when no source row is null, so folds may skip the null check. */
  readonly hasNulls: boolean;
}

// Built once per generation and field path; a reload drops them with the generation.
const caches = new WeakMap<Generation, Map<string, unknown>>();

function cached<T>(generation: Generation, key: string, build: () => T): T {
  let cache = caches.get(generation);
  if (!cache) {
    cache = new Map();
    caches.set(generation, cache);
  }
  let value = cache.get(key) as T | undefined;
  if (value === undefined) {
    value = build();
    cache.set(key, value);
  }
  return value;
}

export function sourceTable(generation: Generation, source: CatalogEntity): TableSnapshot {
  return generation.table(source.datasetId, source.tableId);
}

export function encodedPath(generation: Generation, source: CatalogEntity, path: FieldPath): Encoded {
  const key = `codes:${source.datasetId}/${source.name}:${path.path}`;
  return cached(generation, key, () => {
    const target = generation.table(path.entity.datasetId, path.entity.tableId);
    const direct = encodeColumn(target.columns.get(path.field.column) as Column, target.rowCount);
    if (!path.via) return direct;
    return throughRelationship(direct, relationshipRows(generation, source, path));
  });
}

export function numericPath(generation: Generation, source: CatalogEntity, path: FieldPath): NumericInput {
  const key = `numbers:${source.datasetId}/${source.name}:${path.path}`;
  return cached(generation, key, () => {
    const target = generation.table(path.entity.datasetId, path.entity.tableId);
    const column = target.columns.get(path.field.column) as Column;
    if (column.kind !== 'numeric') throw new TypeError(`${path.path} is not numeric`);
    if (!path.via) return { values: column.values, nulls: column.nulls, hasNulls: column.nulls.includes(1) };
    const map = relationshipRows(generation, source, path);
    const values = new Float64Array(map.length);
    const nulls = new Uint8Array(map.length);
    for (let row = 0; row < map.length; row++) {
      const related = map[row] as number;
      if (related < 0 || column.nulls[related] === 1) nulls[row] = 1;
      else values[row] = column.values[related] as number;
    }
    return { values, nulls, hasNulls: nulls.includes(1) };
  });
}

/** Source row -> related target row through the path's belongs_to relationship, or -1 when there is none. */
export function relationshipRows(generation: Generation, source: CatalogEntity, path: FieldPath): Int32Array {
  const via = path.via as CatalogRelationship;
  const key = `rows:${source.datasetId}/${source.name}:${via.name}`;
  return cached(generation, key, () => {
    const table = sourceTable(generation, source);
    const target = generation.table(path.entity.datasetId, path.entity.tableId);
    const fkColumn = table.columns.get(source.fieldByName.get(via.foreignKey)?.column as string) as Column;
    const map = new Int32Array(table.rowCount);
    for (let row = 0; row < table.rowCount; row++) {
      const value = cellKey(fkColumn, row);
      map[row] = value === null ? -1 : (target.rowOf(value) ?? -1);
    }
    return map;
  });
}

function encodeColumn(column: Column, rowCount: number): Encoded {
  const codes = new Int32Array(rowCount);
  const values: (CellKey | null)[] = [];
  const index = new Map<CellKey | null, number>();
  for (let row = 0; row < rowCount; row++) {
    const value = cellKey(column, row);
    let code = index.get(value);
    if (code === undefined) {
      code = values.length;
      values.push(value);
      index.set(value, code);
    }
    codes[row] = code;
  }
  return { codes, values, nullCode: index.get(null) ?? -1 };
}

function throughRelationship(target: Encoded, map: Int32Array): Encoded {
  // Re-coded in source row order so values appear as the source rows meet them; an unrelated row is null.
  const codes = new Int32Array(map.length);
  const values: (CellKey | null)[] = [];
  const missing = target.nullCode >= 0 ? target.nullCode : target.values.length;
  const recode = new Int32Array(target.values.length + 1).fill(-1);
  for (let row = 0; row < map.length; row++) {
    const related = map[row] as number;
    const old = related < 0 ? missing : (target.codes[related] as number);
    let code = recode[old] as number;
    if (code < 0) {
      code = values.length;
      values.push(old === target.values.length ? null : (target.values[old] as CellKey | null));
      recode[old] = code;
    }
    codes[row] = code;
  }
  return { codes, values, nullCode: values.indexOf(null) };
}
