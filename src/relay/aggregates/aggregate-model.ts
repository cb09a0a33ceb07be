// The frozen model of a declared aggregate: resolved field paths, measures, scopes and disclosure rules.
import type { CatalogEntity, CatalogField, CatalogRelationship } from '../catalog/catalog.ts';
import type { AggregateFunction, FilterOp } from '../config/schema.ts';

/** Request limits (relay contract §2.7). */
export const AGGREGATE_LIMITS = {
  measures: 20,
  groupBy: 5,
  filters: 20,
  inValues: 100,
  maxRows: 10_000,
} as const;

/** A field of the source entity, or of the entity one belongs_to relationship away. */
export interface FieldPath {
  /** As written in config and queries: `field` or `relationship.field`. */
  readonly path: string;
  /** The entity holding the field (the source, or the relationship target). */
  readonly entity: CatalogEntity;
  readonly field: CatalogField;
  /** The belongs_to relationship followed from the source, when the field is not the source's own. */
  readonly via: CatalogRelationship | undefined;
}

export interface AggregateDimension {
  readonly id: string;
  readonly label: string;
  readonly description: string | undefined;
  readonly path: FieldPath;
  readonly codelist: string | undefined;
}

export interface AggregateMeasure {
  readonly id: string;
  readonly label: string;
  readonly description: string | undefined;
  readonly fn: AggregateFunction;
  /** Absent only for a row `count`. */
  readonly column: FieldPath | undefined;
  readonly unitMeasure: string | undefined;
  readonly unitMultiplier: number | undefined;
  readonly decimals: number | undefined;
  readonly frequency: string | undefined;
  /** Expanded IRI; shown in native JSON and discovery, never in SDMX output. */
  readonly definitionUri: string | undefined;
}

export interface AggregateFilterRule {
  readonly path: FieldPath;
  readonly ops: ReadonlySet<FilterOp>;
}

export type Suppression = 'omit' | 'mask' | 'null';

export interface DisclosureControl {
  readonly method: readonly string[];
  /** Groups with fewer source rows than this are suppressed. */
  readonly minCellSize: number;
  readonly suppression: Suppression;
  /** Whether the number of suppressed groups is shown to callers. */
  readonly reportSuppressed: boolean;
}

export interface CatalogAggregate {
  readonly datasetId: string;
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly source: CatalogEntity;
  /** The source and every entity reached through a relationship path, each once. */
  readonly entitiesRead: readonly CatalogEntity[];
  /** In declaration order. */
  readonly dimensions: ReadonlyMap<string, AggregateDimension>;
  readonly measures: ReadonlyMap<string, AggregateMeasure>;
  readonly defaultGroupBy: readonly string[];
  /** By field path. */
  readonly allowedFilters: ReadonlyMap<string, AggregateFilterRule>;
  readonly requiredFilters: readonly string[];
  readonly temporal: FieldPath | undefined;
  readonly scopes: { readonly metadata: string; readonly aggregate: string };
  readonly aggregateOnly: boolean;
  readonly requirePurpose: boolean;
  readonly disclosure: DisclosureControl;
}

/** Sensitivity levels treated as personal data by disclosure rules. */
export const PERSONAL_SENSITIVITIES: ReadonlySet<string> = new Set(['personal', 'confidential', 'secret']);
