// Discovery bodies: an aggregate's structure, and the dataset's measures and dimensions merged by id.
import type { CellKey } from '../store/column.ts';
import {
  AGGREGATE_LIMITS,
  type AggregateDimension,
  type AggregateMeasure,
  type CatalogAggregate,
  type FieldPath,
} from './aggregate-model.ts';

export function aggregateUrl(baseUrl: string, aggregate: CatalogAggregate): string {
  return `${baseUrl}/v1/datasets/${aggregate.datasetId}/aggregates/${aggregate.id}`;
}

export function describeDimension(dimension: AggregateDimension) {
  return {
    id: dimension.id,
    label: dimension.label,
    description: dimension.description ?? null,
    field: dimension.path.path,
    type: dimension.path.field.type,
    codelist: dimension.codelist ?? null,
  };
}

/** `definition_uri` belongs to native JSON and discovery only; SDMX output never carries it. */
export function describeMeasure(measure: AggregateMeasure) {
  return {
    id: measure.id,
    label: measure.label,
    description: measure.description ?? null,
    aggregation_method: measure.fn,
    column: measure.column?.path ?? null,
    unit_measure: measure.unitMeasure ?? null,
    unit_multiplier: measure.unitMultiplier ?? null,
    decimals: measure.decimals ?? null,
    frequency: measure.frequency ?? null,
    definition_uri: measure.definitionUri ?? null,
  };
}

export function describeDisclosure(aggregate: CatalogAggregate) {
  const control = aggregate.disclosure;
  return {
    method: control.method,
    min_cell_size: control.minCellSize,
    suppression: control.suppression,
    reports_suppressed_observations: control.reportSuppressed,
  };
}

/** The list item and structure body of one aggregate. */
export function describeAggregate(aggregate: CatalogAggregate, baseUrl: string) {
  const url = aggregateUrl(baseUrl, aggregate);
  return {
    aggregate_id: aggregate.id,
    dataset_id: aggregate.datasetId,
    title: aggregate.title,
    description: aggregate.description,
    source_entity: aggregate.source.name,
    default_group_by: aggregate.defaultGroupBy,
    dimensions: [...aggregate.dimensions.values()].map(describeDimension),
    measures: [...aggregate.measures.values()].map(describeMeasure),
    filters: [...aggregate.allowedFilters].map(([field, rule]) => ({ field, ops: [...rule.ops] })),
    required_filters: aggregate.requiredFilters,
    temporal_field: aggregate.temporal?.path ?? null,
    min_cell_size: aggregate.disclosure.minCellSize,
    disclosure_control: describeDisclosure(aggregate),
    requires_purpose: aggregate.requirePurpose,
    execution: {
      scope: aggregate.scopes.aggregate,
      aggregate_only: aggregate.aggregateOnly,
      also_requires: aggregate.aggregateOnly
        ? []
        : [...new Set(aggregate.entitiesRead.map((entity) => entity.scopes.rows))],
    },
    limits: {
      max_rows: AGGREGATE_LIMITS.maxRows,
      max_measures: AGGREGATE_LIMITS.measures,
      max_group_by: AGGREGATE_LIMITS.groupBy,
      max_filters: AGGREGATE_LIMITS.filters,
    },
    formats: ['json', 'csv', 'sdmx-json'],
    links: [
      { rel: 'self', href: `${url}/structure` },
      { rel: 'data', href: url },
      { rel: 'query', href: `${url}/query` },
      { rel: 'up', href: `${baseUrl}/v1/datasets/${aggregate.datasetId}/aggregates` },
    ],
  };
}

/** Measures of the visible aggregates merged by id, each naming the aggregates that compute it. */
export function mergedMeasures(aggregates: readonly CatalogAggregate[]) {
  const merged = new Map<string, ReturnType<typeof describeMeasure> & { queryable_via: string[] }>();
  for (const aggregate of aggregates) {
    for (const measure of aggregate.measures.values()) {
      const entry = merged.get(measure.id) ?? { ...describeMeasure(measure), queryable_via: [] };
      entry.queryable_via.push(aggregate.id);
      merged.set(measure.id, entry);
    }
  }
  return [...merged.values()];
}

/**
 * Dimensions of the visible aggregates merged by id. The same id may reach its field by different paths in
 * different aggregates (`district` of households, `household.district` of payments), so each names its field.
 */
export function mergedDimensions(aggregates: readonly CatalogAggregate[]) {
  const merged = new Map<
    string,
    Omit<ReturnType<typeof describeDimension>, 'field'> & {
      queryable_via: { aggregate_id: string; field: string }[];
    }
  >();
  for (const aggregate of aggregates) {
    for (const dimension of aggregate.dimensions.values()) {
      const { field, ...rest } = describeDimension(dimension);
      const entry = merged.get(dimension.id) ?? { ...rest, queryable_via: [] };
      entry.queryable_via.push({ aggregate_id: aggregate.id, field });
      merged.set(dimension.id, entry);
    }
  }
  return [...merged.values()];
}

/** A dimension value as JSON: timestamps as ISO 8601 UTC, everything else as stored. */
export function dimensionJson(path: FieldPath, value: CellKey | null): string | number | boolean | null {
  if (value !== null && path.field.type === 'timestamp') return new Date(value as number).toISOString();
  return value;
}
