// BRegDCAT-AP 2.0 JSON-LD: the DCAT-AP graph (every catalog, dataset, data service and agent already carries
// its `dct:identifier`) plus the base-registry side: the public services producing the datasets, with their
// competent authorities as public organisations.
import type { MetadataLinks } from '../../model/metadata-links.ts';
import type { MetadataModel, PublicService } from '../../model/metadata-model.ts';
import { agentId, defaultLanguage, location } from './common-nodes.ts';
import {
  contextOf,
  document,
  langString,
  mergeNodes,
  type Node,
  optional,
  type Prefix,
  ref,
  texts,
} from './json-ld.ts';
import { publicOrganisation } from './render-cpsv-ap.ts';
import { DCAT_PREFIXES, dcatGraph } from './render-dcat.ts';

/** The DCAT application profiles served at `/metadata/dcat/{profile}`. */
export const DCAT_PROFILES = ['bregdcat-ap'] as const;

const PREFIXES: readonly Prefix[] = [...DCAT_PREFIXES, 'cpsv', 'cv'];

export function renderBregDcatAp(model: MetadataModel, links: MetadataLinks) {
  const organisations = model.publicServices.flatMap((service) => {
    const authority = model.authorities.find((candidate) => candidate.id === service.competentAuthority);
    return authority ? [publicOrganisation(model, authority, service)] : [];
  });
  return document(
    contextOf(...PREFIXES),
    mergeNodes([
      ...dcatGraph(model, links),
      ...model.publicServices.map((service) => registryService(model, service)),
      ...organisations,
    ]),
  );
}

/** A public service as BRegDCAT-AP has it: what it `produces` is a catalogued dataset itself. */
function registryService(model: MetadataModel, service: PublicService): Node {
  const language = defaultLanguage(model);
  const authority = model.authorities.find((candidate) => candidate.id === service.competentAuthority);
  const datasets = new Map(model.datasets.map((dataset) => [dataset.id, dataset.iri]));
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
    ...optional(
      'cpsv:produces',
      service.produces.flatMap((id) => {
        const iri = datasets.get(id);
        return iri === undefined ? [] : [ref(iri)];
      }),
    ),
  };
}
