// Things a relay config may declare and still start with, but that its operator should hear about: each is a line
// of `ambit config check` and a warning logged once at `relay serve` start.
import { describePath, guardedField } from './guarded-fields.ts';
import { relationshipWalks } from './relationship-walk-warnings.ts';
import type { AggregateConfig, DatasetConfig, RelayConfig } from './schema.ts';

/** Measures whose value in a group is the value of one of its rows. */
const ONE_ROW_FUNCTIONS = new Set(['min', 'max', 'median']);

export function relayConfigWarnings(config: RelayConfig): string[] {
  return config.datasets.flatMap((dataset) => [
    ...dataset.aggregates.flatMap((aggregate) => [
      ...requiredFilterDimensions(dataset, aggregate),
      ...requiredFilterMeasures(dataset, aggregate),
    ]),
    ...relationshipWalks(dataset),
  ]);
}

/**
 * An entity that requires an equality filter on a field serves its rows only to who already knows a value. An
 * aggregate grouping by that field lists values as group keys: every one when a group of one row is shown (minimum
 * cell size 1) or a small group keeps its keys (suppression mask or null), and, where rows share a value (a
 * foreign key, a field through belongs_to), every value that at least the minimum of rows hold, whatever the
 * disclosure control. The aggregate scope alone then enumerates them.
 */
function requiredFilterDimensions(dataset: DatasetConfig, aggregate: AggregateConfig): string[] {
  const source = dataset.entities.find((entity) => entity.name === aggregate.source_entity);
  if (source === undefined) return [];
  const reasons = leakingControl(aggregate);
  const control = aggregate.disclosure_control;
  const minimum = control.min_group_size ?? control.min_cell_size;
  const warnings: string[] = [];
  for (const dimension of aggregate.dimensions) {
    const guarded = guardedField(dataset, source, dimension.field);
    if (guarded === undefined || (guarded.uniquePerRow && reasons === undefined)) continue;
    const { entity, field } = guarded;
    const head = `dataset ${dataset.id}, aggregate ${aggregate.id}: dimension ${dimension.id} groups by ${describePath(dimension.field, guarded)}, and entity ${entity.name} requires an equality filter on ${field} (api.required_filters)`;
    if (guarded.uniquePerRow) {
      warnings.push(
        `${head}; as ${reasons}, anyone with the aggregate scope can list every ${field} of ${entity.name}: set the minimum cell size (disclosure_control.min_cell_size, or min_group_size when set) to 2 or more with suppression omit, or drop the dimension`,
      );
    } else if (reasons !== undefined) {
      warnings.push(
        `${head}; as ${reasons}, anyone with the aggregate scope can list every ${field} of ${entity.name}: drop the dimension (rows of ${source.name} share its values, so a larger minimum cell size with suppression omit still lists every one that many rows hold)`,
      );
    } else {
      warnings.push(
        `${head}; as groups of ${minimum} or more rows show their keys, anyone with the aggregate scope can list every ${field} of ${entity.name} that ${minimum} or more rows of ${source.name} hold: drop the dimension (a larger minimum cell size only shortens the list)`,
      );
    }
  }
  return warnings;
}

/**
 * A minimum, maximum or median is one row's value: over a required-filter field it shows one guarded value per
 * group shown, whatever the minimum cell size.
 */
function requiredFilterMeasures(dataset: DatasetConfig, aggregate: AggregateConfig): string[] {
  const source = dataset.entities.find((entity) => entity.name === aggregate.source_entity);
  if (source === undefined) return [];
  const warnings: string[] = [];
  for (const indicator of aggregate.indicators) {
    if (indicator.column === undefined || !ONE_ROW_FUNCTIONS.has(indicator.function)) continue;
    const guarded = guardedField(dataset, source, indicator.column);
    if (guarded === undefined) continue;
    const { entity, field } = guarded;
    warnings.push(
      `dataset ${dataset.id}, aggregate ${aggregate.id}: measure ${indicator.id} is the ${indicator.function} of ${describePath(indicator.column, guarded)}, and entity ${entity.name} requires an equality filter on ${field} (api.required_filters); as a ${indicator.function} is one row's value, anyone with the aggregate scope can read a ${field} of ${entity.name} for every group shown: drop the measure`,
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
