// The frozen model routes read: datasets, entities and their fields, scopes and API rules, built from config.
import type { CatalogAggregate } from '../aggregates/aggregate-model.ts';
import type { DatasetConfig, FieldType, FilterOp, RelayConfig } from '../config/schema.ts';

export interface CatalogField {
  readonly name: string;
  /** Private table column behind the public field. */
  readonly column: string;
  readonly type: FieldType;
  readonly nullable: boolean;
  readonly sensitive: boolean;
  readonly conceptUri: string | undefined;
  readonly codelist: string | undefined;
  readonly unit: string | undefined;
  readonly language: string | undefined;
  readonly description: string | undefined;
}

export interface CatalogRelationship {
  readonly name: string;
  readonly kind: 'belongs_to' | 'has_many' | 'has_one';
  readonly target: string;
  /** belongs_to: field of this entity holding the target key; has_*: field of the target holding this key. */
  readonly foreignKey: string;
  readonly conceptUri: string | undefined;
}

export interface EntityScopes {
  readonly metadata: string;
  readonly rows: string;
  readonly aggregate: string;
  readonly evidenceVerification: string;
}

export interface EntityApi {
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly requirePurpose: boolean;
  readonly requiredFilters: readonly string[];
  readonly allowedFilters: ReadonlyMap<string, ReadonlySet<FilterOp>>;
  readonly allowedExpansions: ReadonlySet<string>;
}

export interface CatalogEntity {
  readonly datasetId: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly conceptUri: string | undefined;
  readonly tableId: string;
  readonly fields: readonly CatalogField[];
  readonly fieldByName: ReadonlyMap<string, CatalogField>;
  readonly primaryKey: CatalogField;
  readonly scopes: EntityScopes;
  readonly api: EntityApi;
  readonly relationships: ReadonlyMap<string, CatalogRelationship>;
}

export interface CatalogDataset {
  readonly id: string;
  readonly config: DatasetConfig;
  readonly entities: ReadonlyMap<string, CatalogEntity>;
  /** Declared aggregates by id, in declaration order. */
  readonly aggregates: ReadonlyMap<string, CatalogAggregate>;
}

export interface Catalog {
  readonly config: RelayConfig;
  readonly datasets: ReadonlyMap<string, CatalogDataset>;
}

/** A read by id is an equality on the primary key: it satisfies required filters only when the key is one of them. */
export function isReadableById(entity: CatalogEntity): boolean {
  const required = entity.api.requiredFilters;
  return required.length === 0 || required.includes(entity.primaryKey.name);
}

/** Every scope string the principal could hold on a dataset starts with this. */
export function datasetScopePrefix(datasetId: string): string {
  return `${datasetId}:`;
}
