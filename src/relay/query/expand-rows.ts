// Embeds allow-listed related records into rows (`?expand=`); has_many lists are capped and marked truncated.
import type { Catalog, CatalogEntity, CatalogRelationship } from '../catalog/catalog.ts';
import { type CellKey, type Column, cellKey } from '../store/column.ts';
import type { Generation } from '../store/generation.ts';
import { lookup } from '../store/hash-index.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import { type RowObject, rowObject } from './render-rows.ts';

export interface Related {
  readonly relationship: CatalogRelationship;
  readonly target: CatalogEntity;
}

export function relatedOf(catalog: Catalog, entity: CatalogEntity, name: string): Related {
  const relationship = entity.relationships.get(name) as CatalogRelationship;
  const dataset = catalog.datasets.get(entity.datasetId);
  return { relationship, target: dataset?.entities.get(relationship.target) as CatalogEntity };
}

/** Rows of the target related to one source row, in target primary-key order. */
export function relatedRows(
  generation: Generation,
  entity: CatalogEntity,
  related: Related,
  row: number,
): Int32Array {
  const source = generation.table(entity.datasetId, entity.tableId);
  const target = generation.table(related.target.datasetId, related.target.tableId);
  const { relationship } = related;
  if (relationship.kind === 'belongs_to') {
    const column = entity.fieldByName.get(relationship.foreignKey)?.column as string;
    const key = cellKey(source.columns.get(column) as Column, row);
    const targetRow = key === null ? undefined : target.rowOf(key);
    return targetRow === undefined ? new Int32Array(0) : Int32Array.of(targetRow);
  }
  const ownKey = cellKey(source.columns.get(entity.primaryKey.column) as Column, row) as CellKey;
  const column = related.target.fieldByName.get(relationship.foreignKey)?.column as string;
  return lookup(target.hashIndex(column), ownKey);
}

export function expandRow(
  generation: Generation,
  entity: CatalogEntity,
  expansions: readonly Related[],
  object: RowObject,
  row: number,
): RowObject {
  const marks: Record<string, { truncated: boolean }> = {};
  for (const related of expansions) {
    const target: TableSnapshot = generation.table(related.target.datasetId, related.target.tableId);
    const rows = relatedRows(generation, entity, related, row);
    const name = related.relationship.name;
    if (related.relationship.kind === 'has_many') {
      const cap = related.target.api.defaultLimit;
      const shown = Array.from(rows.subarray(0, cap), (r) => rowObject(target, related.target.fields, r));
      object[name] = shown;
      marks[name] = { truncated: rows.length > cap };
    } else {
      const first = rows[0];
      object[name] = first === undefined ? null : rowObject(target, related.target.fields, first);
    }
  }
  if (Object.keys(marks).length > 0) object._expansion = marks;
  return object;
}
