// Checked aggregate config -> frozen aggregate models over the dataset's catalogue entities.
import type { CatalogEntity } from '../catalog/catalog.ts';
import { expandIri } from '../catalog/expand-iri.ts';
import type { AggregateConfig, DatasetConfig } from '../config/schema.ts';
import {
  type AggregateDimension,
  type AggregateFilterRule,
  type AggregateMeasure,
  type CatalogAggregate,
  type FieldPath,
  PERSONAL_SENSITIVITIES,
} from './aggregate-model.ts';

export function buildAggregates(
  dataset: DatasetConfig,
  entities: ReadonlyMap<string, CatalogEntity>,
  vocabularies: Readonly<Record<string, string>>,
): Map<string, CatalogAggregate> {
  return new Map(
    dataset.aggregates.map((config) => [config.id, buildAggregate(dataset, config, entities, vocabularies)]),
  );
}

function buildAggregate(
  dataset: DatasetConfig,
  config: AggregateConfig,
  entities: ReadonlyMap<string, CatalogEntity>,
  vocabularies: Readonly<Record<string, string>>,
): CatalogAggregate {
  const source = entities.get(config.source_entity) as CatalogEntity;
  const paths = new Map<string, FieldPath>();
  const pathOf = (path: string): FieldPath => {
    let resolved = paths.get(path);
    if (!resolved) {
      resolved = resolveFieldPath(source, entities, path);
      paths.set(path, resolved);
    }
    return resolved;
  };
  const dimensions = new Map<string, AggregateDimension>(
    config.dimensions.map((dimension) => [
      dimension.id,
      {
        id: dimension.id,
        label: dimension.label ?? dimension.id,
        description: dimension.description,
        path: pathOf(dimension.field),
        codelist: dimension.codelist,
      },
    ]),
  );
  const measures = new Map<string, AggregateMeasure>(
    config.indicators.map((indicator) => [
      indicator.id,
      {
        id: indicator.id,
        label: indicator.label ?? indicator.id,
        description: indicator.description,
        fn: indicator.function,
        column: indicator.column === undefined ? undefined : pathOf(indicator.column),
        unitMeasure: indicator.unit_measure,
        unitMultiplier: indicator.unit_mult,
        decimals: indicator.decimals,
        frequency: indicator.frequency,
        definitionUri: expandIri(indicator.definition_uri, vocabularies),
      },
    ]),
  );
  const allowedFilters = new Map<string, AggregateFilterRule>(
    config.allowed_filters.map((rule) => [rule.field, { path: pathOf(rule.field), ops: new Set(rule.ops) }]),
  );
  const temporal = config.temporal_field === undefined ? undefined : pathOf(config.temporal_field);
  const entitiesRead = [source];
  for (const path of paths.values()) {
    if (!entitiesRead.includes(path.entity)) entitiesRead.push(path.entity);
  }
  const control = config.disclosure_control;
  const personal = PERSONAL_SENSITIVITIES.has(dataset.sensitivity);
  return {
    datasetId: dataset.id,
    id: config.id,
    title: config.title ?? config.id,
    description: config.description,
    source,
    entitiesRead,
    dimensions,
    measures,
    defaultGroupBy: config.default_group_by,
    allowedFilters,
    requiredFilters: config.required_filters,
    temporal,
    scopes: {
      metadata: config.access.metadata_scope ?? `${dataset.id}:metadata`,
      aggregate: config.access.aggregate_scope ?? `${dataset.id}:aggregate`,
    },
    aggregateOnly: config.access.aggregate_only_execution,
    requirePurpose: entitiesRead.some((entity) => entity.api.requirePurpose),
    disclosure: {
      method: control.method,
      minCellSize: control.min_group_size ?? control.min_cell_size,
      suppression: control.suppression,
      reportSuppressed: control.report_suppressed_rows ?? !personal,
    },
  };
}

/** Resolves a checked `field` or `relationship.field` path from the source entity. */
export function resolveFieldPath(
  source: CatalogEntity,
  entities: ReadonlyMap<string, CatalogEntity>,
  path: string,
): FieldPath {
  const dot = path.indexOf('.');
  if (dot < 0) {
    const field = source.fieldByName.get(path);
    if (!field) throw new TypeError(`unchecked aggregate field path ${path}`);
    return { path, entity: source, field, via: undefined };
  }
  const via = source.relationships.get(path.slice(0, dot));
  const target = via ? entities.get(via.target) : undefined;
  const field = target?.fieldByName.get(path.slice(dot + 1));
  if (!via || !target || !field) throw new TypeError(`unchecked aggregate field path ${path}`);
  return { path, entity: target, field, via };
}
