// The portable catalog JSON: the deployment, its datasets, and the evidence and service vocabulary around them.
import { textOrNull } from '../model/localized-text.ts';
import { type MetadataLinks, publishedFormSchema } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { renderAgent, renderDataset } from './render-dataset-json.ts';
import { renderProfileList } from './render-profiles.ts';

export const CATALOG_SCHEMA_VERSION = 'registry-manifest/v1';

export function renderCatalogJson(model: MetadataModel, links: MetadataLinks) {
  const { catalog } = model;
  return {
    schema_version: CATALOG_SCHEMA_VERSION,
    source: model.source,
    id: catalog.id,
    title: catalog.title.text,
    description: textOrNull(catalog.description),
    publisher: renderAgent(catalog.publisher),
    base_url: catalog.baseUrl,
    participant_id: catalog.participantId ?? null,
    conforms_to: catalog.conformsTo,
    languages: catalog.languages,
    spatial_coverage: catalog.spatialCoverage ?? null,
    issued: catalog.issued ?? null,
    modified: catalog.modified ?? null,
    ...renderProfileList(model),
    datasets: model.datasets.map((dataset) => renderDataset(model, dataset, links)),
    requirements: model.requirements.map((requirement) => ({
      id: requirement.id,
      iri: requirement.iri,
      title: requirement.title.text,
      description: textOrNull(requirement.description),
      rdf_type: requirement.rdfType ?? null,
      procedure_contexts: requirement.procedureContexts,
      evidence_type_lists: requirement.evidenceTypeLists.map((list) => ({
        id: list.id,
        title: textOrNull(list.title),
        description: textOrNull(list.description),
        evidence_types: list.evidenceTypes,
      })),
    })),
    evidence_types: model.evidenceTypes.map((type) => ({
      id: type.id,
      iri: type.iri,
      title: type.title.text,
      description: textOrNull(type.description),
      proves: type.proves,
      requirement_iris: type.requirementIris,
      information_concepts: type.informationConcepts,
    })),
    authorities: model.authorities.map((authority) => ({
      id: authority.id,
      ...renderAgent(authority),
      spatial: authority.spatial ?? null,
      country: authority.country ?? null,
    })),
    public_services: model.publicServices.map((service) => ({
      id: service.id,
      iri: service.iri,
      title: service.title.text,
      description: textOrNull(service.description),
      competent_authority: service.competentAuthority ?? null,
      jurisdiction: service.jurisdiction ?? null,
      keywords: service.keywords,
      holds_requirements: service.holdsRequirements,
      produces: service.produces,
      data_services: service.dataServices,
      forms: service.forms,
      channels: service.channels.map((channel) => ({
        id: channel.id,
        iri: channel.iri ?? null,
        title: textOrNull(channel.title),
        kind: channel.kind ?? null,
        access_url: channel.accessUrl ?? null,
      })),
    })),
    data_services: model.dataServices.map((service) => ({
      id: service.id,
      iri: service.iri,
      title: service.title.text,
      description: textOrNull(service.description),
      endpoint_url: service.endpointUrl,
      endpoint_description: service.endpointDescription ?? null,
      serves_datasets: service.servesDatasets,
      conforms_to: service.conformsTo ?? null,
    })),
    forms: model.forms.map((form) => ({
      id: form.id,
      iri: form.iri ?? null,
      title: form.title.text,
      description: textOrNull(form.description),
      service: form.service ?? null,
      channel: form.channel ?? null,
      schema_url: publishedFormSchema(model, links, form.id) ?? null,
    })),
    codelists: model.codelists.map((codelist) => ({
      id: codelist.id,
      scheme_iri: codelist.schemeIri,
      title: textOrNull(codelist.title),
      description: textOrNull(codelist.description),
      concepts: codelist.concepts.map((concept) => ({
        code: concept.code,
        iri: concept.iri,
        label: textOrNull(concept.label),
        definition: textOrNull(concept.definition),
      })),
    })),
    links: {
      self: links.catalog(),
      datasets: links.datasets(),
      evidence_offerings: links.offerings(),
      profiles: links.profiles(),
    },
  };
}
