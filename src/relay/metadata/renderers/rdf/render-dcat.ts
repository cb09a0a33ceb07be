// DCAT-AP 3.0.1 JSON-LD of a (scoped) model: the catalog, its datasets with one JSON distribution per data service
// serving them, the data services, publishers and the codelists as SKOS concept schemes. Every referenced node
// carries the rdf:type DCAT-AP's range checks expect, and texts carry a language.

import { SDMX_SCHEMA_URL } from '../../../aggregates/render-aggregate-sdmx.ts';
import { type MetadataLinks, publishedEntitySchema } from '../../model/metadata-links.ts';
import type { AggregateMeta, DataService, DatasetMeta, MetadataModel } from '../../model/metadata-model.ts';
import {
  agentId,
  agentNode,
  catalogIri,
  codelistScheme,
  conceptRef,
  defaultLanguage,
  legalResourceNode,
  licenceNode,
  location,
  standard,
} from './common-nodes.ts';
import {
  ACCESS_RIGHTS,
  CSV_FILE_TYPE,
  CSV_MEDIA_TYPE,
  frequencyIri,
  JSON_FILE_TYPE,
  JSON_MEDIA_TYPE,
  languageIri,
} from './controlled-vocabularies.ts';
import {
  contextOf,
  dateLiteral,
  derivedTexts,
  document,
  inLanguage,
  langString,
  mergeNodes,
  type Node,
  optional,
  type Prefix,
  ref,
  texts,
  typedRef,
} from './json-ld.ts';
import { datasetPolicyIri } from './render-odrl-policies.ts';

export const DCAT_PREFIXES: readonly Prefix[] = [
  'dcat',
  'dcatap',
  'dct',
  'eli',
  'foaf',
  'odrl',
  'rdfs',
  'skos',
  'xsd',
];

export function renderDcat(model: MetadataModel, links: MetadataLinks) {
  return document(contextOf(...DCAT_PREFIXES), dcatGraph(model, links));
}

/** The DCAT-AP nodes, merged by `@id` (an agent publishing several datasets appears once). */
export function dcatGraph(model: MetadataModel, links: MetadataLinks): Node[] {
  const language = defaultLanguage(model);
  const services = servicesOf(model, links);
  const { catalog } = model;
  const catalogNode: Node = {
    '@id': catalogIri(model),
    '@type': 'dcat:Catalog',
    'dct:identifier': catalog.id,
    'dct:title': texts(catalog.title, language),
    // DCAT-AP requires a description; the title stands in when the catalog has none.
    'dct:description': texts(catalog.description ?? catalog.title, language),
    'dct:publisher': ref(agentId(catalog.publisher)),
    ...optional('dct:issued', catalog.issued && dateLiteral(catalog.issued)),
    ...optional('dct:modified', catalog.modified && dateLiteral(catalog.modified)),
    ...optional(
      'dct:language',
      catalog.languages.map((tag) => typedRef(languageIri(tag), 'dct:LinguisticSystem')),
    ),
    ...optional('dct:spatial', catalog.spatialCoverage && location(catalog.spatialCoverage)),
    ...optional(
      'dcat:dataset',
      model.datasets.map((dataset) => ref(dataset.iri)),
    ),
    ...optional(
      'dcat:service',
      services.map((service) => ref(service.iri)),
    ),
  };
  return mergeNodes([
    catalogNode,
    agentNode(catalog.publisher, language),
    ...model.datasets.flatMap((dataset) => datasetNodes(model, dataset, services, links)),
    ...services.map((service) => dataServiceNode(model, service)),
    ...model.codelists.map((codelist) => codelistScheme(codelist, language)),
  ]);
}

function datasetNodes(
  model: MetadataModel,
  dataset: DatasetMeta,
  services: readonly DataService[],
  links: MetadataLinks,
): Node[] {
  const language = defaultLanguage(model);
  const publisher = dataset.publisher ?? model.catalog.publisher;
  const serving = services.filter((service) => service.servesDatasets.includes(dataset.id));
  const distributions = [
    ...serving.map((service) => distributionNode(model, dataset, service, links)),
    ...dataset.aggregates.flatMap((aggregate) =>
      AGGREGATE_REPRESENTATIONS.map((representation) =>
        aggregateDistributionNode(model, dataset, aggregate, representation),
      ),
    ),
  ];
  const node: Node = {
    '@id': dataset.iri,
    '@type': 'dcat:Dataset',
    'dct:identifier': dataset.id,
    'dct:title': texts(dataset.title, language),
    'dct:description': texts(dataset.description ?? dataset.title, language),
    'dct:publisher': ref(agentId(publisher)),
    'dct:accessRights': typedRef(ACCESS_RIGHTS[dataset.accessRights], 'dct:RightsStatement'),
    'dct:accrualPeriodicity': typedRef(frequencyIri(dataset.updateFrequency), 'dct:Frequency'),
    ...optional('dct:conformsTo', dataset.conformsTo.map(standard)),
    ...optional(
      'dcatap:applicableLegislation',
      dataset.applicableLegislation.map((legislation) => legalResourceNode(legislation, language)),
    ),
    ...optional('dct:spatial', dataset.spatialCoverage && location(dataset.spatialCoverage)),
    ...optional(
      'dcat:keyword',
      dataset.keywords.map((keyword) => langString(keyword, language)),
    ),
    ...optional(
      'dcat:theme',
      dataset.themes.map((iri) => conceptRef(iri, language)),
    ),
    ...optional('dct:issued', dataset.issued && dateLiteral(dataset.issued)),
    ...optional('dct:modified', dataset.modified && dateLiteral(dataset.modified)),
    'dcat:landingPage': typedRef(links.dataset(dataset.id), 'foaf:Document'),
    ...optional(
      'dcat:distribution',
      distributions.map((distribution) => ref(distribution['@id'] as string)),
    ),
  };
  return [node, agentNode(publisher, language), ...distributions];
}

/**
 * The records of a dataset as JSON through one data service; each entity's JSON Schema, when the catalog publishes
 * them, is a standard it meets.
 */
function distributionNode(
  model: MetadataModel,
  dataset: DatasetMeta,
  service: DataService,
  links: MetadataLinks,
): Node {
  const language = defaultLanguage(model);
  return {
    '@id': `${model.catalog.baseUrl}/metadata/datasets/${dataset.id}/distributions/${service.id}`,
    '@type': 'dcat:Distribution',
    'dct:title': derivedTexts(
      dataset.title,
      language,
      (title, tag) => `${title} (JSON, ${inLanguage(service.title, tag)})`,
    ),
    'dcat:accessURL': ref(service.endpointUrl),
    'dcat:accessService': ref(service.iri),
    'dcat:mediaType': typedRef(JSON_MEDIA_TYPE, 'dct:MediaType'),
    'dct:format': typedRef(JSON_FILE_TYPE, 'dct:MediaTypeOrExtent'),
    ...optional(
      'dct:conformsTo',
      dataset.entities.flatMap((entity) => {
        const schema = publishedEntitySchema(model, links, dataset.id, entity.name);
        return schema === undefined ? [] : [standard(schema)];
      }),
    ),
    ...optional('dct:license', dataset.license && licenceNode(dataset.license)),
    ...optional(
      'odrl:hasPolicy',
      dataset.policy && typedRef(datasetPolicyIri(model, dataset), ['odrl:Offer', 'odrl:Policy']),
    ),
  };
}

/** The representations an aggregate is served in (`f=`), each published as a distribution of its dataset. */
const AGGREGATE_REPRESENTATIONS = [
  { f: 'json', label: 'JSON', mediaType: JSON_MEDIA_TYPE, fileType: JSON_FILE_TYPE, standard: undefined },
  { f: 'csv', label: 'CSV', mediaType: CSV_MEDIA_TYPE, fileType: CSV_FILE_TYPE, standard: undefined },
  // SDMX-JSON is JSON; what makes it SDMX is the data message schema it conforms to.
  {
    f: 'sdmx-json',
    label: 'SDMX-JSON',
    mediaType: JSON_MEDIA_TYPE,
    fileType: JSON_FILE_TYPE,
    standard: SDMX_SCHEMA_URL,
  },
] as const;

function aggregateDistributionNode(
  model: MetadataModel,
  dataset: DatasetMeta,
  aggregate: AggregateMeta,
  representation: (typeof AGGREGATE_REPRESENTATIONS)[number],
): Node {
  const language = defaultLanguage(model);
  return {
    '@id': `${model.catalog.baseUrl}/metadata/datasets/${dataset.id}/distributions/aggregate-${aggregate.id}-${representation.f}`,
    '@type': 'dcat:Distribution',
    'dct:title': derivedTexts(aggregate.title, language, (title) => `${title} (${representation.label})`),
    ...optional('dct:description', aggregate.description && texts(aggregate.description, language)),
    'dcat:accessURL': ref(`${aggregate.url}?f=${representation.f}`),
    'dcat:mediaType': typedRef(representation.mediaType, 'dct:MediaType'),
    'dct:format': typedRef(representation.fileType, 'dct:MediaTypeOrExtent'),
    ...optional('dct:conformsTo', representation.standard && standard(representation.standard)),
    ...optional('dct:license', dataset.license && licenceNode(dataset.license)),
  };
}

function dataServiceNode(model: MetadataModel, service: DataService): Node {
  const language = defaultLanguage(model);
  const datasets = new Map(model.datasets.map((dataset) => [dataset.id, dataset.iri]));
  return {
    '@id': service.iri,
    '@type': 'dcat:DataService',
    'dct:identifier': service.id,
    'dct:title': texts(service.title, language),
    ...optional('dct:description', service.description && texts(service.description, language)),
    'dct:publisher': ref(agentId(model.catalog.publisher)),
    'dcat:endpointURL': ref(service.endpointUrl),
    ...optional('dcat:endpointDescription', service.endpointDescription && ref(service.endpointDescription)),
    ...optional('dct:conformsTo', service.conformsTo && standard(service.conformsTo)),
    ...optional(
      'dcat:servesDataset',
      service.servesDatasets.flatMap((id) => {
        const iri = datasets.get(id);
        return iri === undefined ? [] : [ref(iri)];
      }),
    ),
  };
}

/**
 * The model's data services; on the relay, datasets no declared service serves are served by the relay's own
 * data API (a static publication has no API of its own to name).
 */
function servicesOf(model: MetadataModel, links: MetadataLinks): DataService[] {
  const declared = [...model.dataServices];
  const served = new Set(declared.flatMap((service) => service.servesDatasets));
  const unserved = model.datasets.filter((dataset) => !served.has(dataset.id));
  if (links.style === 'static' || unserved.length === 0) return declared;
  const { baseUrl, title } = model.catalog;
  return [
    ...declared,
    {
      id: 'relay-data-api',
      iri: `${baseUrl}/v1/datasets`,
      // Named in English (the words added are), from the catalog's English title when it has one.
      title: plainEnglish(`${inLanguage(title, 'en')}: registry data API`),
      description: undefined,
      endpointUrl: `${baseUrl}/v1/datasets`,
      endpointDescription: `${baseUrl}/openapi.json`,
      servesDatasets: unserved.map((dataset) => dataset.id),
      conformsTo: undefined,
    },
  ];
}

const plainEnglish = (text: string) => ({ text, languages: { en: text } });
