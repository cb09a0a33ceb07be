// The metadata model of a relay without a manifest: catalog block, datasets, entities and fields of its config.
import { deepFreeze } from '../../../platform/config/validate-config.ts';
import type { Catalog, CatalogEntity, CatalogRelationship } from '../../catalog/catalog.ts';
import { expandIri } from '../../catalog/expand-iri.ts';
import { aggregatesOf } from './aggregate-meta.ts';
import { legalResource } from './legal-resource.ts';
import { plainText } from './localized-text.ts';
import type { DatasetMeta, EntityMeta, MetadataModel, RelationshipMeta } from './metadata-model.ts';

export function buildModelFromConfig(catalog: Catalog): MetadataModel {
  const { config } = catalog;
  const vocabularies = config.vocabularies;
  const expand = (value: string | undefined) => expandIri(value, vocabularies);
  const baseUrl = config.catalog.base_url.replace(/(?<!\/)\/+$/, '');
  const datasets: DatasetMeta[] = [...catalog.datasets.values()].map((runtime) => {
    const dataset = runtime.config;
    return {
      id: dataset.id,
      iri: `${baseUrl}/metadata/datasets/${dataset.id}`,
      title: plainText(dataset.title),
      description: dataset.description === '' ? undefined : plainText(dataset.description),
      owner: dataset.owner,
      publisher: undefined,
      sensitivity: dataset.sensitivity,
      accessRights: dataset.access_rights,
      updateFrequency: dataset.update_frequency,
      conformsTo: dataset.conforms_to.map((value) => expand(value) as string),
      applicableLegislation: dataset.applicable_legislation.map((value) =>
        legalResource(expand(value) as string),
      ),
      spatialCoverage: expand(dataset.spatial_coverage ?? config.catalog.default_spatial_coverage),
      status: expand(dataset.status),
      keywords: [],
      themes: [],
      license: undefined,
      issued: undefined,
      modified: undefined,
      policy: undefined,
      publicServices: [],
      entities: [...runtime.entities.values()].map(entityOf),
      offerings: [],
      aggregates: aggregatesOf(runtime, baseUrl),
    };
  });
  const model: MetadataModel = {
    source: 'runtime_config',
    catalog: {
      id: config.instance?.id ?? 'ambit-relay',
      title: plainText(config.catalog.title),
      description:
        config.catalog.description === undefined ? undefined : plainText(config.catalog.description),
      baseUrl,
      publisher: {
        name: config.catalog.publisher,
        iri: expand(config.catalog.publisher_iri),
        authorityType: expand(config.catalog.authority_type),
      },
      participantId: config.catalog.participant_id,
      conformsTo: [],
      languages: [],
      spatialCoverage: expand(config.catalog.default_spatial_coverage),
      issued: undefined,
      modified: undefined,
      standards: { dcat: true, shacl: true, jsonSchema: true },
    },
    vocabularies,
    applicationProfiles: [],
    profiles: [],
    datasets,
    codelists: [],
    requirements: [],
    evidenceTypes: [],
    authorities: [],
    publicServices: [],
    dataServices: [],
    forms: [],
  };
  return deepFreeze(model);
}

function entityOf(entity: CatalogEntity): EntityMeta {
  return {
    datasetId: entity.datasetId,
    name: entity.name,
    title: plainText(entity.title),
    description: entity.description === '' ? undefined : plainText(entity.description),
    conceptUri: entity.conceptUri,
    primaryKey: entity.primaryKey.name,
    fields: entity.fields.map((field) => ({
      name: field.name,
      title: undefined,
      description: field.description === undefined ? undefined : plainText(field.description),
      type: field.type,
      required: !field.nullable,
      nullable: field.nullable,
      sensitive: field.sensitive,
      concepts: field.conceptUri === undefined ? [] : [field.conceptUri],
      codelist: field.codelist,
      unit: field.unit,
      language: field.language,
    })),
    relationships: [...entity.relationships.values()].map((rel) => relationshipOf(entity, rel)),
  };
}

function relationshipOf(entity: CatalogEntity, rel: CatalogRelationship): RelationshipMeta {
  const nullableKey = rel.kind === 'belongs_to' && (entity.fieldByName.get(rel.foreignKey)?.nullable ?? true);
  return {
    name: rel.name,
    target: rel.target,
    cardinality:
      rel.kind === 'has_many' ? 'many' : rel.kind === 'has_one' || nullableKey ? 'zero_or_one' : 'one',
    foreignKey: rel.foreignKey,
    conceptUri: rel.conceptUri,
  };
}
