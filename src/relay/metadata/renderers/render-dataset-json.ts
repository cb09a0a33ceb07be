// Dataset and entity descriptors (JSON): the list, one dataset, its entities, one entity with its fields.
import { textOrNull } from '../model/localized-text.ts';
import { type MetadataLinks, publishedEntitySchema } from '../model/metadata-links.ts';
import type { Agent, DatasetMeta, EntityMeta, MetadataModel } from '../model/metadata-model.ts';

export function renderAgent(agent: Agent) {
  return { name: agent.name, iri: agent.iri ?? null, authority_type: agent.authorityType ?? null };
}

export function renderDatasetList(model: MetadataModel, links: MetadataLinks) {
  return {
    datasets: model.datasets.map((dataset) => renderDataset(model, dataset, links)),
    links: { self: links.datasets() },
  };
}

export function renderDataset(model: MetadataModel, dataset: DatasetMeta, links: MetadataLinks) {
  return {
    id: dataset.id,
    iri: dataset.iri,
    title: dataset.title.text,
    description: textOrNull(dataset.description),
    owner: dataset.owner ?? null,
    publisher: renderAgent(dataset.publisher ?? model.catalog.publisher),
    sensitivity: dataset.sensitivity,
    access_rights: dataset.accessRights,
    update_frequency: dataset.updateFrequency,
    conforms_to: dataset.conformsTo,
    applicable_legislation: dataset.applicableLegislation.map((legislation) => legislation.iri),
    spatial_coverage: dataset.spatialCoverage ?? null,
    status: dataset.status ?? null,
    keywords: dataset.keywords,
    themes: dataset.themes,
    license: dataset.license ?? null,
    issued: dataset.issued ?? null,
    modified: dataset.modified ?? null,
    public_services: dataset.publicServices.map((service) => ({
      id: service.id,
      title: service.title.text,
      description: textOrNull(service.description),
    })),
    entities: dataset.entities.map((entity) => ({
      name: entity.name,
      title: entity.title.text,
      description: textOrNull(entity.description),
      concept_uri: entity.conceptUri ?? null,
      links: {
        self: links.entity(dataset.id, entity.name),
        ...schemaLink(model, links, dataset.id, entity.name),
      },
    })),
    evidence_offerings: dataset.offerings.map((offering) => offering.id),
    links: { self: links.dataset(dataset.id), entities: links.entities(dataset.id) },
  };
}

export function renderEntityList(model: MetadataModel, dataset: DatasetMeta, links: MetadataLinks) {
  return {
    dataset_id: dataset.id,
    entities: dataset.entities.map((entity) => renderEntity(model, entity, links)),
    links: { self: links.entities(dataset.id), up: links.dataset(dataset.id) },
  };
}

export function renderEntity(model: MetadataModel, entity: EntityMeta, links: MetadataLinks) {
  return {
    dataset_id: entity.datasetId,
    name: entity.name,
    title: entity.title.text,
    description: textOrNull(entity.description),
    concept_uri: entity.conceptUri ?? null,
    primary_key: entity.primaryKey ?? null,
    fields: entity.fields.map((field) => ({
      name: field.name,
      title: textOrNull(field.title),
      description: textOrNull(field.description),
      type: field.type,
      required: field.required,
      nullable: field.nullable,
      sensitive: field.sensitive,
      concept_uri: field.concepts[0] ?? null,
      concepts: field.concepts,
      codelist: field.codelist ?? null,
      unit: field.unit ?? null,
      language: field.language ?? null,
    })),
    relationships: entity.relationships.map((rel) => ({
      name: rel.name,
      target: rel.target,
      cardinality: rel.cardinality,
      foreign_key: rel.foreignKey ?? null,
      concept_uri: rel.conceptUri ?? null,
    })),
    links: {
      self: links.entity(entity.datasetId, entity.name),
      ...schemaLink(model, links, entity.datasetId, entity.name),
      up: links.entities(entity.datasetId),
    },
  };
}

/** `schema`, the entity's JSON Schema, only when the catalog publishes JSON Schemas. */
function schemaLink(model: MetadataModel, links: MetadataLinks, datasetId: string, entity: string) {
  const schema = publishedEntitySchema(model, links, datasetId, entity);
  return schema === undefined ? {} : { schema };
}
