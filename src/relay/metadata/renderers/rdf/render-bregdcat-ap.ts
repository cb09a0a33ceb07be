// BRegDCAT-AP 2.0 JSON-LD: the DCAT-AP graph (every catalog, dataset, data service and agent already carries
// its `dct:identifier`) plus the base-registry side: the public services producing the datasets, with their
// competent authorities as public organisations.
import type { MetadataLinks } from '../../model/metadata-links.ts';
import type { MetadataModel, PublicService } from '../../model/metadata-model.ts';
import { defaultLanguage } from './common-nodes.ts';
import { contextOf, document, mergeNodes, type Node, optional, type Prefix, ref } from './json-ld.ts';
import { authorityOf, publicOrganisation, publicServiceCore } from './render-cpsv-ap.ts';
import { DCAT_PREFIXES, dcatGraph } from './render-dcat.ts';

/** The DCAT application profiles served at `/metadata/dcat/{profile}`. */
export const DCAT_PROFILES = ['bregdcat-ap'] as const;

const PREFIXES: readonly Prefix[] = [...DCAT_PREFIXES, 'cpsv', 'cv'];

export function renderBregDcatAp(model: MetadataModel, links: MetadataLinks) {
  const organisations = model.publicServices.flatMap((service) => {
    const authority = authorityOf(model, service);
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
  const datasets = new Map(model.datasets.map((dataset) => [dataset.id, dataset.iri]));
  return {
    ...publicServiceCore(service, authorityOf(model, service), language),
    ...optional(
      'cpsv:produces',
      service.produces.flatMap((id) => {
        const iri = datasets.get(id);
        return iri === undefined ? [] : [ref(iri)];
      }),
    ),
  };
}
