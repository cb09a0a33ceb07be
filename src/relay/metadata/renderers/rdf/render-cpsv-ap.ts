// CPSV-AP 3.2.0 JSON-LD: the public services around the visible datasets, with their competent authorities
// (public organisations), channels, the requirements they hold and the evidence types proving them. Texts are
// language-tagged, as CPSV-AP's shapes require.
import type { Authority, MetadataModel, PublicService } from '../../model/metadata-model.ts';
import { agentId, conceptRef, defaultLanguage, location } from './common-nodes.ts';
import {
  compact,
  contextOf,
  document,
  langString,
  mergeNodes,
  type Node,
  optional,
  type Prefix,
  partIri,
  ref,
  texts,
} from './json-ld.ts';

export const CPSV_PREFIXES: readonly Prefix[] = ['cpsv', 'cv', 'dcat', 'dct', 'foaf', 'skos', 'xsd'];

export function renderCpsvAp(model: MetadataModel) {
  return document(contextOf(...CPSV_PREFIXES), cpsvGraph(model));
}

/** Services, then the organisations, requirements and evidence types they reference, merged by `@id`. */
export function cpsvGraph(model: MetadataModel): Node[] {
  const language = defaultLanguage(model);
  const requirements = new Map(model.requirements.map((requirement) => [requirement.id, requirement]));
  const held = new Set(model.publicServices.flatMap((service) => service.holdsRequirements));
  const evidenceTypes = model.evidenceTypes.filter((type) => type.proves.some((id) => held.has(id)));
  return mergeNodes([
    ...model.publicServices.map((service) => serviceNode(model, service)),
    ...model.publicServices.flatMap((service) => {
      const authority = authorityOf(model, service);
      return authority ? [publicOrganisation(model, authority, service)] : [];
    }),
    ...[...held].flatMap((id) => {
      const requirement = requirements.get(id);
      if (!requirement) return [];
      return [
        {
          '@id': requirement.iri,
          '@type': [
            ...new Set([
              'cv:Requirement',
              ...(requirement.rdfType ? [compact(requirement.rdfType, CPSV_PREFIXES)] : []),
            ]),
          ],
          'dct:identifier': requirement.id,
          'dct:title': texts(requirement.title, language),
          ...optional('dct:description', requirement.description && texts(requirement.description, language)),
          ...optional(
            'cv:hasEvidenceTypeList',
            requirement.evidenceTypeLists.map((list) => ({
              '@id': partIri(requirement.iri, list.id),
              '@type': 'cv:EvidenceTypeList',
              'dct:identifier': list.id,
              ...optional('dct:title', list.title && texts(list.title, language)),
              'cv:specifiesEvidenceType': list.evidenceTypes.flatMap((typeId) => {
                const type = model.evidenceTypes.find((candidate) => candidate.id === typeId);
                return type ? [ref(type.iri)] : [];
              }),
            })),
          ),
        },
      ];
    }),
    ...evidenceTypes.map((type) => ({
      '@id': type.iri,
      '@type': 'cv:EvidenceType',
      'dct:identifier': type.id,
      'dct:title': texts(type.title, language),
      ...optional('dct:description', type.description && texts(type.description, language)),
    })),
  ]);
}

function serviceNode(model: MetadataModel, service: PublicService): Node {
  const language = defaultLanguage(model);
  const authority = authorityOf(model, service);
  const requirementIris = new Map(model.requirements.map((requirement) => [requirement.id, requirement.iri]));
  const held = service.holdsRequirements.flatMap((id) => requirementIris.get(id) ?? []);
  const inputTypes = model.evidenceTypes.filter((type) =>
    type.proves.some((id) => service.holdsRequirements.includes(id)),
  );
  const datasets = new Map(model.datasets.map((dataset) => [dataset.id, dataset]));
  return {
    ...publicServiceCore(service, authority, language),
    ...optional('cv:holdsRequirement', held.map(ref)),
    ...optional(
      'cv:hasInputType',
      inputTypes.map((type) => ref(type.iri)),
    ),
    ...optional(
      'cpsv:produces',
      service.produces.flatMap((id) => {
        const dataset = datasets.get(id);
        if (!dataset) return [];
        return [
          {
            '@id': partIri(service.iri, `output-${dataset.id}`),
            '@type': 'cv:Output',
            'dct:identifier': dataset.id,
            'dct:title': texts(dataset.title, language),
            ...optional('dct:description', dataset.description && texts(dataset.description, language)),
          },
        ];
      }),
    ),
    ...optional(
      'cv:hasChannel',
      service.channels.map((channel) => ({
        '@id': channel.iri ?? partIri(service.iri, `channel-${channel.id}`),
        '@type': 'cv:Channel',
        'dct:identifier': channel.id,
        ...optional('dct:description', channel.title && texts(channel.title, language)),
        ...optional('dct:type', channel.kind && conceptRef(channel.kind, language)),
        ...optional('foaf:page', channel.accessUrl && { '@id': channel.accessUrl, '@type': 'foaf:Document' }),
      })),
    ),
  };
}

/** The properties a public service has in both CPSV-AP and BRegDCAT-AP. */
export function publicServiceCore(
  service: PublicService,
  authority: Authority | undefined,
  language: string,
): Node {
  return {
    '@id': service.iri,
    '@type': 'cpsv:PublicService',
    'dct:identifier': service.id,
    'dct:title': texts(service.title, language),
    'dct:description': texts(service.description ?? service.title, language),
    ...optional('cv:hasCompetentAuthority', authority && ref(agentId(authority))),
    ...optional('dct:spatial', service.jurisdiction && location(service.jurisdiction)),
    ...optional(
      'dcat:keyword',
      service.keywords.map((keyword) => langString(keyword, language)),
    ),
  };
}

export function authorityOf(model: MetadataModel, service: PublicService): Authority | undefined {
  return model.authorities.find((authority) => authority.id === service.competentAuthority);
}

/**
 * A competent authority as a CPSV-AP public organisation (and agent). Its spatial coverage is required: the
 * authority's own, else the service's jurisdiction, else the catalog's.
 */
export function publicOrganisation(
  model: MetadataModel,
  authority: Authority,
  service?: PublicService,
): Node {
  const language = defaultLanguage(model);
  const spatial = authority.spatial ?? service?.jurisdiction ?? model.catalog.spatialCoverage;
  return {
    '@id': agentId(authority),
    '@type': ['cv:PublicOrganisation', 'foaf:Agent'],
    'dct:identifier': authority.id,
    'dct:title': langString(authority.name, language),
    'skos:prefLabel': langString(authority.name, language),
    'foaf:name': authority.name,
    ...optional('dct:spatial', spatial && location(spatial)),
    ...optional('dct:type', authority.authorityType && conceptRef(authority.authorityType, language)),
  };
}
