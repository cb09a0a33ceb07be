// Relationships that let a caller read an entity guarded by `api.required_filters` without knowing its values.
import { fieldColumns } from './guarded-fields.ts';
import type { DatasetConfig, EntityConfig } from './schema.ts';

/**
 * A relationship reads its target by one equality on the join field, which the config check requires to be a
 * required filter of a guarded target. From an entity listed without any filter, every join value is one page
 * away: walking the list (the relationship route, or `expand`) reads the guarded entity in full. An entity with
 * required filters of its own can only be walked from values already known, so it is left alone.
 */
export function relationshipWalks(dataset: DatasetConfig): string[] {
  const warnings: string[] = [];
  for (const entity of dataset.entities) {
    if (entity.api.required_filters.length > 0) continue;
    for (const relationship of entity.relationships) {
      const target = dataset.entities.find((candidate) => candidate.name === relationship.target);
      if (target === undefined || target.api.required_filters.length === 0) continue;
      const join = joinField(dataset, relationship, target);
      if (join === undefined || !target.api.required_filters.includes(join)) continue;
      warnings.push(
        `dataset ${dataset.id}, entity ${entity.name}: relationship ${relationship.name} reads entity ${target.name} by ${join}, and ${target.name} requires an equality filter on ${join} (api.required_filters); as ${entity.name} can be listed without a filter, anyone with the rows scopes of both can read every ${target.name}, one ${join} per ${entity.name} listed (the relationship route or expand): require a filter on ${entity.name} too (api.required_filters), or drop the relationship`,
      );
    }
  }
  return warnings;
}

/** The target field a relationship reads by: the target's key for belongs_to, else the foreign key. */
function joinField(
  dataset: DatasetConfig,
  relationship: EntityConfig['relationships'][number],
  target: EntityConfig,
): string | undefined {
  if (relationship.kind !== 'belongs_to') return relationship.foreign_key;
  const key = dataset.tables.find((table) => table.id === target.table)?.primary_key;
  return [...fieldColumns(dataset, target)].find(([, column]) => column === key)?.[0];
}
