// Things a relay config may declare and still start with, but that its operator should hear about: each is a line
// of `ambit config check` and a warning logged once at `relay serve` start.
import type { AggregateConfig, DatasetConfig, EntityConfig, RelayConfig } from './schema.ts';

export function relayConfigWarnings(config: RelayConfig): string[] {
  return config.datasets.flatMap((dataset) =>
    dataset.aggregates.flatMap((aggregate) => requiredFilterDimensions(dataset, aggregate)),
  );
}

/**
 * An entity that requires an equality filter on a field serves its rows only to who already knows a value. An
 * aggregate grouping by that field lists every value as a group key when a group of one row is shown (minimum cell
 * size 1) or a small group keeps its keys (suppression mask or null): the aggregate scope alone then enumerates them.
 */
function requiredFilterDimensions(dataset: DatasetConfig, aggregate: AggregateConfig): string[] {
  const reasons = leakingControl(aggregate);
  if (reasons === undefined) return [];
  const source = dataset.entities.find((entity) => entity.name === aggregate.source_entity);
  if (source === undefined) return [];
  const warnings: string[] = [];
  for (const dimension of aggregate.dimensions) {
    const guarded = guardingEntity(dataset, source, dimension.field);
    if (guarded === undefined) continue;
    const { entity, field } = guarded;
    warnings.push(
      `dataset ${dataset.id}, aggregate ${aggregate.id}: dimension ${dimension.id} groups by ${dimension.field}, and entity ${entity.name} requires an equality filter on ${field} (api.required_filters); as ${reasons}, anyone with the aggregate scope can list every ${field} of ${entity.name}: set the minimum cell size (disclosure_control.min_cell_size, or min_group_size when set) to 2 or more with suppression omit, or drop the dimension`,
    );
  }
  return warnings;
}

/** Why small groups show their keys, or undefined when they do not. */
function leakingControl(aggregate: AggregateConfig): string | undefined {
  const control = aggregate.disclosure_control;
  const reasons: string[] = [];
  if ((control.min_group_size ?? control.min_cell_size) <= 1) {
    reasons.push(`${control.min_group_size === undefined ? 'min_cell_size' : 'min_group_size'} is 1`);
  }
  if (control.suppression !== 'omit') {
    reasons.push(`suppression ${control.suppression} keeps the keys of small groups`);
  }
  return reasons.length === 0 ? undefined : reasons.join(' and ');
}

/**
 * The entity that requires a filter on the values a dimension path groups by: the source's own field, a belongs_to
 * target's field, or the target's key through the foreign key that holds it.
 */
function guardingEntity(
  dataset: DatasetConfig,
  source: EntityConfig,
  path: string,
): { entity: EntityConfig; field: string } | undefined {
  const dot = path.indexOf('.');
  if (dot < 0) {
    if (source.api.required_filters.includes(path)) return { entity: source, field: path };
    // The foreign key of a belongs_to holds the target's key values: guarded when the target requires its key.
    for (const relationship of source.relationships) {
      if (relationship.kind !== 'belongs_to' || relationship.foreign_key !== path) continue;
      const target = dataset.entities.find((entity) => entity.name === relationship.target);
      const key = dataset.tables.find((table) => table.id === target?.table)?.primary_key;
      if (target !== undefined && key !== undefined && target.api.required_filters.includes(key))
        return { entity: target, field: key };
    }
    return undefined;
  }
  const name = path.slice(0, dot);
  const field = path.slice(dot + 1);
  const relationship = source.relationships.find((rel) => rel.name === name);
  if (relationship?.kind !== 'belongs_to') return undefined;
  const target = dataset.entities.find((entity) => entity.name === relationship.target);
  return target?.api.required_filters.includes(field) ? { entity: target, field } : undefined;
}
