// Renders snapshot rows as the entity's public JSON: full rows are rendered once and cached per generation.
import type { CatalogEntity, CatalogField } from '../catalog/catalog.ts';
import { type Column, cellJson } from '../store/column.ts';
import type { Generation } from '../store/generation.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';

export type RowObject = Record<string, unknown>;

interface Renderer {
  readonly columns: readonly Column[];
  readonly keys: readonly string[];
}

const renderers = new WeakMap<TableSnapshot, Map<CatalogEntity, Renderer>>();
function rendererOf(entity: CatalogEntity, table: TableSnapshot): Renderer {
  let byEntity = renderers.get(table);
  if (!byEntity) {
    byEntity = new Map();
    renderers.set(table, byEntity);
  }
  let renderer = byEntity.get(entity);
  if (!renderer) {
    renderer = {
      columns: entity.fields.map((field) => table.columns.get(field.column) as Column),
      keys: entity.fields.map((field, index) => `${index === 0 ? '{' : ','}${JSON.stringify(field.name)}:`),
    };
    byEntity.set(entity, renderer);
  }
  return renderer;
}

/** The full public row as JSON text. */
export function rowJson(
  entity: CatalogEntity,
  table: TableSnapshot,
  generation: Generation,
  row: number,
): string {
  const cache = generation.rowCache(entity);
  const cached = cache[row];
  if (cached !== undefined) return cached;
  const { columns, keys } = rendererOf(entity, table);
  // Joined rather than appended with +=: join yields one flat string, which later page joins and socket
  // writes copy cheaply, where += would cache a rope that is walked again on every request.
  const parts: string[] = [];
  for (let i = 0; i < columns.length; i++) {
    parts.push(keys[i] as string, JSON.stringify(cellJson(columns[i] as Column, row)));
  }
  parts.push('}');
  const json = parts.join('');
  cache[row] = json;
  return json;
}

/** The row as an object, optionally projected to some fields. */
export function rowObject(table: TableSnapshot, fields: readonly CatalogField[], row: number): RowObject {
  const object: RowObject = {};
  for (const field of fields) object[field.name] = cellJson(table.columns.get(field.column) as Column, row);
  return object;
}
