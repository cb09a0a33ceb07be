// Validated config -> frozen catalogue (expanded IRIs, resolved columns, default scopes).
import { deepFreeze } from '../../platform/config/validate-config.ts';
import { buildAggregates } from '../aggregates/build-aggregates.ts';
import type { EntityConfig, RelayConfig, TableConfig } from '../config/schema.ts';
import type { Catalog, CatalogDataset, CatalogEntity, CatalogField, CatalogRelationship } from './catalog.ts';
import { expandIri } from './expand-iri.ts';

export function buildCatalog(config: RelayConfig): Catalog {
  const datasets = new Map<string, CatalogDataset>();
  for (const dataset of config.datasets) {
    const tables = new Map(dataset.tables.map((table) => [table.id, table]));
    const entities = new Map<string, CatalogEntity>();
    for (const entity of dataset.entities) {
      entities.set(
        entity.name,
        buildEntity(config, dataset.id, entity, tables.get(entity.table) as TableConfig),
      );
    }
    const aggregates = buildAggregates(dataset, entities, config.vocabularies);
    datasets.set(dataset.id, { id: dataset.id, config: dataset, entities, aggregates });
  }
  return deepFreezeCatalog({ config, datasets });
}

function buildEntity(
  config: RelayConfig,
  datasetId: string,
  entity: EntityConfig,
  table: TableConfig,
): CatalogEntity {
  const vocab = config.vocabularies;
  const columns = new Map(table.schema.fields.map((field) => [field.name, field]));
  type EntityField = NonNullable<EntityConfig['fields']>[number];
  const declared: readonly Partial<EntityField>[] =
    entity.fields ?? table.schema.fields.map((field) => ({ name: field.name }));
  const fields: CatalogField[] = declared.map((own) => {
    const name = own.name as string;
    const columnName = own.from ?? name;
    const column = columns.get(columnName);
    if (!column) throw new TypeError(`unchecked column ${columnName}`);
    return {
      name,
      column: columnName,
      type: column.type,
      nullable: column.nullable && columnName !== table.primary_key,
      sensitive: own.sensitive ?? column.sensitive,
      conceptUri: expandIri(own.concept_uri ?? column.concept_uri, vocab),
      codelist: own.codelist ?? column.codelist,
      unit: own.unit ?? column.unit,
      language: own.language ?? column.language,
      description: own.description ?? column.description,
    };
  });
  const fieldByName = new Map(fields.map((field) => [field.name, field]));
  const primaryKey = fields.find((field) => field.column === table.primary_key) as CatalogField;
  const relationships = new Map<string, CatalogRelationship>(
    entity.relationships.map((rel) => [
      rel.name,
      {
        name: rel.name,
        kind: rel.kind,
        target: rel.target,
        foreignKey: rel.foreign_key,
        conceptUri: expandIri(rel.concept_uri, vocab),
      },
    ]),
  );
  return {
    datasetId,
    name: entity.name,
    title: entity.title ?? entity.name,
    description: entity.description ?? '',
    conceptUri: expandIri(entity.concept_uri, vocab),
    tableId: table.id,
    fields,
    fieldByName,
    primaryKey,
    scopes: {
      metadata: entity.access.metadata_scope ?? `${datasetId}:metadata`,
      rows: entity.access.read_scope ?? `${datasetId}:rows`,
      aggregate: entity.access.aggregate_scope ?? `${datasetId}:aggregate`,
      evidenceVerification: entity.access.evidence_verification_scope ?? `${datasetId}:evidence_verification`,
    },
    api: {
      defaultLimit: entity.api.default_limit,
      maxLimit: entity.api.max_limit,
      requirePurpose: entity.api.require_purpose_header,
      requiredFilters: entity.api.required_filters,
      allowedFilters: new Map(
        entity.api.allowed_filters.map((filter) => [filter.field, new Set(filter.ops)]),
      ),
      allowedExpansions: new Set(entity.api.allowed_expansions),
    },
    relationships,
  };
}

// Maps and Sets are frozen by reference only; their contents are never handed out for mutation.
function deepFreezeCatalog(catalog: Catalog): Catalog {
  return deepFreeze(catalog);
}
