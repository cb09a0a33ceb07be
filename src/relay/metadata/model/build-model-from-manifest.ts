// A validated manifest -> the frozen metadata model (compact IRIs expanded, defaults filled, references resolved).
import { deepFreeze } from '../../../platform/config/validate-config.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import { expandIri } from '../../catalog/expand-iri.ts';
import type { Manifest } from '../manifest-schema.ts';
import type { ManifestFormField, ManifestLocalizedText } from '../manifest-service-schema.ts';
import { buildDatasetMeta } from './build-dataset-meta.ts';
import { localizedText, optionalText } from './localized-text.ts';
import type { Agent, FormDataType, FormField, MetadataModel } from './metadata-model.ts';

export interface ManifestModelOptions {
  /** Overrides the manifest `catalog.base_url` (the relay passes its own, so links resolve on the relay). */
  readonly baseUrl?: string;
  /** The relay catalogue the manifest is bound to: fills facts the manifest leaves out (sensitivity, keys). */
  readonly runtime?: Catalog;
}

export type IriExpander = {
  (value: string): string;
  (value: string | undefined): string | undefined;
};

export function buildModelFromManifest(
  manifest: Manifest,
  options: ManifestModelOptions = {},
): MetadataModel {
  const vocabularies = manifest.vocabularies;
  const expand = ((value: string | undefined) => expandIri(value, vocabularies)) as IriExpander;
  const baseUrl = (options.baseUrl ?? manifest.catalog.base_url).replace(/(?<!\/)\/+$/, '');
  const { catalog } = manifest;
  const requirementIri = new Map(manifest.requirements.map((r) => [r.id, expand(r.iri)]));
  const agent = (publisher: Manifest['catalog']['publisher']): Agent => ({
    name: publisher.name,
    iri: expand(publisher.iri),
    authorityType: expand(publisher.authority_type),
  });
  const model: MetadataModel = {
    source: 'manifest',
    catalog: {
      id: catalog.id,
      title: localizedText(catalog.title),
      description: optionalText(catalog.description),
      baseUrl,
      publisher: agent(catalog.publisher),
      participantId: catalog.participant_id,
      conformsTo: catalog.conforms_to.map((value) => expand(value)),
      languages: catalog.languages,
      spatialCoverage: expand(catalog.spatial_coverage),
      issued: catalog.issued,
      modified: catalog.modified,
      standards: {
        dcat: catalog.standards.dcat,
        shacl: catalog.standards.shacl,
        jsonSchema: catalog.standards.json_schema,
      },
    },
    vocabularies,
    applicationProfiles: catalog.application_profiles.map(({ id, version }) => ({ id, version })),
    profiles: manifest.profiles.map((profile) => ({
      id: profile.id,
      version: profile.version,
      title: optionalText(profile.title),
      description: optionalText(profile.description),
      conformsTo: expand(profile.conforms_to),
    })),
    datasets: manifest.datasets.map((dataset) =>
      buildDatasetMeta(dataset, manifest, { baseUrl, expand, agent, runtime: options.runtime }),
    ),
    codelists: manifest.codelists.map((codelist) => {
      const schemeIri = expand(codelist.scheme_iri);
      return {
        id: codelist.id,
        schemeIri,
        title: optionalText(codelist.title),
        description: optionalText(codelist.description),
        concepts: codelist.concepts.map((concept) => ({
          code: concept.code,
          // Concepts without their own IRI get one under the scheme, as SKOS nodes need an identity.
          iri: expand(concept.iri) ?? `${schemeIri.replace(/[/#]$/, '')}/${encodeURIComponent(concept.code)}`,
          label: optionalText(concept.label),
          definition: optionalText(concept.definition),
        })),
      };
    }),
    requirements: manifest.requirements.map((requirement) => ({
      id: requirement.id,
      iri: expand(requirement.iri),
      title: localizedText(requirement.title),
      description: optionalText(requirement.description),
      rdfType: expand(requirement.rdf_type),
      procedureContexts: requirement.procedure_contexts,
      evidenceTypeLists: requirement.evidence_type_lists.map((list) => ({
        id: list.id,
        title: optionalText(list.title),
        description: optionalText(list.description),
        evidenceTypes: list.evidence_types,
      })),
    })),
    evidenceTypes: manifest.evidence_types.map((type) => ({
      id: type.id,
      iri: expand(type.iri),
      title: localizedText(type.title),
      description: optionalText(type.description),
      proves: type.proves,
      requirementIris: type.proves.map((id) => requirementIri.get(id) ?? id),
      informationConcepts: type.information_concepts.map((value) => expand(value)),
    })),
    authorities: manifest.authorities.map((authority) => ({
      id: authority.id,
      ...agent(authority),
      spatial: expand(authority.spatial),
      country: authority.country,
    })),
    publicServices: manifest.public_services.map((service) => ({
      id: service.id,
      iri: expand(service.iri),
      title: localizedText(service.title),
      description: optionalText(service.description),
      competentAuthority: service.competent_authority,
      jurisdiction: expand(service.jurisdiction),
      keywords: service.keywords,
      holdsRequirements: service.holds_requirements,
      produces: service.produces,
      dataServices: service.data_services,
      forms: service.forms,
      channels: service.channels.map((channel) => ({
        id: channel.id,
        iri: expand(channel.iri),
        title: optionalText(channel.title),
        kind: expand(channel.kind),
        accessUrl: channel.access_url,
      })),
    })),
    dataServices: manifest.data_services.map((service) => ({
      id: service.id,
      iri: expand(service.iri),
      title: localizedText(service.title),
      description: optionalText(service.description),
      endpointUrl: service.endpoint_url,
      endpointDescription: service.endpoint_description,
      servesDatasets: service.serves_datasets,
      conformsTo: expand(service.conforms_to),
    })),
    forms: manifest.forms.map((form) => ({
      id: form.id,
      iri: expand(form.iri),
      title: localizedText(form.title),
      description: optionalText(form.description),
      service: form.service,
      channel: form.channel,
      sections: form.sections.map((section) => ({
        id: section.id,
        title: optionalText(section.title),
        description: optionalText(section.description),
        repeatable: section.repeatable,
        minOccurs: section.min_occurs,
        maxOccurs: section.max_occurs,
        visibleWhen: section.visible_when,
        fields: section.fields.map((field) => formField(field, expand)),
      })),
      fields: form.fields.map((field) => formField(field, expand)),
    })),
  };
  return deepFreeze(model);
}

function formField(field: ManifestFormField, expand: IriExpander): FormField {
  return {
    id: field.id,
    name: field.name,
    label: localizedText(field.label as ManifestLocalizedText),
    description: optionalText(field.description),
    widgetType: field.widget_type,
    dataType: field.data_type.slice('xsd:'.length) as FormDataType,
    concept: expand(field.concept),
    codelist: field.codelist,
    supportsRequirement: field.supports_requirement,
    required: field.required,
    fulfillment:
      field.fulfillment === undefined
        ? undefined
        : { modes: field.fulfillment.modes, preferredMode: field.fulfillment.preferred_mode },
  };
}
