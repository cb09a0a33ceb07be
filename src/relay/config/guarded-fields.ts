// Which entity's required filter guards the values an aggregate path reads. Values live in columns, so a field
// served from the column of a required filter (another name for it) holds the same values.
import type { DatasetConfig, EntityConfig } from './schema.ts';

export interface GuardedField {
  /** The entity that requires the filter. */
  readonly entity: EntityConfig;
  /** The required filter field. */
  readonly field: string;
  /** The field the path shares its column with, when the path names another one. */
  readonly sameColumnAs?: string;
  /** Each source row holds a value of its own: the path is the source's primary key. */
  readonly uniquePerRow: boolean;
}

const tableOf = (dataset: DatasetConfig, entity: EntityConfig) =>
  dataset.tables.find((table) => table.id === entity.table);

/** The public field names of an entity with the column each is served from. */
export function fieldColumns(dataset: DatasetConfig, entity: EntityConfig): ReadonlyMap<string, string> {
  const fields =
    entity.fields ??
    tableOf(dataset, entity)?.schema.fields.map((field) => ({ name: field.name, from: undefined }));
  const columns = new Map<string, string>();
  for (const field of fields ?? [])
    if (!columns.has(field.name)) columns.set(field.name, field.from ?? field.name);
  return columns;
}

/** The required filter of `entity` served from `column`: `preferred` itself when it is one. */
function requiredOn(
  dataset: DatasetConfig,
  entity: EntityConfig,
  column: string,
  preferred?: string,
): string | undefined {
  const required = entity.api.required_filters;
  if (preferred !== undefined && required.includes(preferred)) return preferred;
  const columns = fieldColumns(dataset, entity);
  return required.find((name) => columns.get(name) === column);
}

const sameColumn = (path: string, field: string) => (path === field ? {} : { sameColumnAs: field });

/**
 * The entity that requires a filter on the values `path` reads from the source's rows: the source's own field, a
 * belongs_to target's field (`relationship.field`), or the target's key through the foreign key that holds it.
 */
export function guardedField(
  dataset: DatasetConfig,
  source: EntityConfig,
  path: string,
): GuardedField | undefined {
  const dot = path.indexOf('.');
  if (dot < 0) {
    const columns = fieldColumns(dataset, source);
    const column = columns.get(path);
    if (column === undefined) return undefined;
    const uniquePerRow = column === tableOf(dataset, source)?.primary_key;
    const own = requiredOn(dataset, source, column, path);
    if (own !== undefined) return { entity: source, field: own, uniquePerRow, ...sameColumn(path, own) };
    // The foreign key of a belongs_to holds the target's key values: guarded when the target requires its key.
    for (const relationship of source.relationships) {
      if (relationship.kind !== 'belongs_to') continue;
      if (columns.get(relationship.foreign_key) !== column) continue;
      const target = dataset.entities.find((entity) => entity.name === relationship.target);
      const key = target === undefined ? undefined : tableOf(dataset, target)?.primary_key;
      const field = target === undefined || key === undefined ? undefined : requiredOn(dataset, target, key);
      if (target !== undefined && field !== undefined)
        return { entity: target, field, uniquePerRow, ...sameColumn(path, relationship.foreign_key) };
    }
    return undefined;
  }
  const name = path.slice(0, dot);
  const targetField = path.slice(dot + 1);
  const relationship = source.relationships.find((rel) => rel.name === name);
  if (relationship?.kind !== 'belongs_to') return undefined;
  const target = dataset.entities.find((entity) => entity.name === relationship.target);
  const column = target === undefined ? undefined : fieldColumns(dataset, target).get(targetField);
  if (target === undefined || column === undefined) return undefined;
  const field = requiredOn(dataset, target, column, targetField);
  // Many source rows may belong to one target: its values repeat across them.
  return field === undefined
    ? undefined
    : { entity: target, field, uniquePerRow: false, ...sameColumn(targetField, field) };
}

/** `path`, and the field whose column it is served from when it names another. */
export const describePath = (path: string, guarded: GuardedField) =>
  guarded.sameColumnAs === undefined ? path : `${path} (served from the column of ${guarded.sameColumnAs})`;
