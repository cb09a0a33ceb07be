// Nodes several RDF documents share: agents, SKOS concepts and codelists, and the small typed value nodes
// (location, standard, licence) that DCAT-AP's range checks want typed in the data graph.
import { type LegalResource, RESOURCE_TYPE_SCHEME } from '../../model/legal-resource.ts';
import type { Agent, Codelist, MetadataModel } from '../../model/metadata-model.ts';
import { labelFromIri } from './controlled-vocabularies.ts';
import { blankNode, langString, type Node, ref, texts, typedRef } from './json-ld.ts';

/** The language given to texts the manifest did not tag: the catalog's first language, else English. */
export function defaultLanguage(model: MetadataModel): string {
  return model.catalog.languages[0] ?? 'en';
}

/** The catalog's own IRI (an identifier; the same in relay and static documents). */
export function catalogIri(model: MetadataModel): string {
  return `${model.catalog.baseUrl}/metadata/catalog`;
}

export function agentId(agent: Agent): string {
  return agent.iri ?? blankNode('agent', agent.name);
}

/** A SKOS concept known by IRI only, labelled from the IRI so it satisfies `skos:prefLabel` 1..*. */
export function conceptRef(iri: string, language: string): Node {
  return { '@id': iri, '@type': 'skos:Concept', 'skos:prefLabel': langString(labelFromIri(iri), language) };
}

export function agentNode(agent: Agent, language: string): Node {
  return {
    '@id': agentId(agent),
    '@type': 'foaf:Agent',
    'foaf:name': agent.name,
    ...(agent.authorityType === undefined ? {} : { 'dct:type': conceptRef(agent.authorityType, language) }),
  };
}

/**
 * A legal resource with its type from the EU resource-type table, as BRegDCAT-AP requires (an `eli:ResourceType`
 * concept in that scheme); without a known type, the bare typed reference DCAT-AP's range check needs.
 */
export function legalResourceNode(legislation: LegalResource, language: string): Node {
  if (legislation.type === undefined) return typedRef(legislation.iri, 'eli:LegalResource');
  return {
    '@id': legislation.iri,
    '@type': 'eli:LegalResource',
    'dct:type': {
      ...conceptRef(legislation.type, language),
      '@type': ['skos:Concept', 'eli:ResourceType'],
      'skos:inScheme': {
        '@id': RESOURCE_TYPE_SCHEME,
        '@type': 'skos:ConceptScheme',
        'dct:title': langString('Resource type', 'en'),
      },
    },
  };
}

export const location = (iri: string) => typedRef(iri, 'dct:Location');
export const standard = (iri: string) => typedRef(iri, 'dct:Standard');

/** A licence written as an IRI (the manifest check refuses one that holds characters no IRI may hold). */
export const LICENCE_IRI = /^(https?:\/\/|urn:)/i;

/** A licence: its IRI when the manifest gives one, else a licence document labelled with the given text. */
export function licenceNode(licence: string): Node {
  if (LICENCE_IRI.test(licence)) return typedRef(licence, 'dct:LicenseDocument');
  return { '@id': blankNode('licence', licence), '@type': 'dct:LicenseDocument', 'rdfs:label': licence };
}

/** A codelist as a SKOS concept scheme with its concepts embedded (each labelled; the code is the notation). */
export function codelistScheme(codelist: Codelist, language: string): Node {
  const title = codelist.title ?? { text: codelist.id, languages: {} };
  return {
    '@id': codelist.schemeIri,
    '@type': 'skos:ConceptScheme',
    'dct:identifier': codelist.id,
    'dct:title': texts(title, language),
    ...(codelist.description === undefined
      ? {}
      : { 'dct:description': texts(codelist.description, language) }),
    'skos:hasTopConcept': codelist.concepts.map((concept) => ({
      '@id': concept.iri,
      '@type': 'skos:Concept',
      'skos:notation': concept.code,
      'skos:prefLabel': texts(concept.label ?? { text: concept.code, languages: {} }, language),
      ...(concept.definition === undefined ? {} : { 'skos:definition': texts(concept.definition, language) }),
      'skos:inScheme': ref(codelist.schemeIri),
      'skos:topConceptOf': ref(codelist.schemeIri),
    })),
  };
}
