// The RDF documents of the metadata surface (JSON-LD): DCAT-AP and its BRegDCAT-AP profile, SHACL shapes, ODRL
// offers and CPSV-AP public services, each from the caller's view like every other metadata document.
import { relayProblem } from '../../problems.ts';
import { STATIC_PATHS } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { METADATA_MEDIA_TYPES } from '../renderers/metadata-media-types.ts';
import { DCAT_PROFILES, renderBregDcatAp } from '../renderers/rdf/render-bregdcat-ap.ts';
import { renderCpsvAp } from '../renderers/rdf/render-cpsv-ap.ts';
import { renderDcat } from '../renderers/rdf/render-dcat.ts';
import { renderDatasetPolicy, renderPolicies } from '../renderers/rdf/render-odrl-policies.ts';
import { renderEntityShacl, renderShacl } from '../renderers/rdf/render-shacl.ts';
import { datasetIn, entityIn } from './lookup-metadata.ts';
import { eachEntity, type MetadataRoute, ONCE, param } from './metadata-route.ts';

const jsonLd = METADATA_MEDIA_TYPES.jsonLd;
const publishesDcat = (model: MetadataModel) => model.catalog.standards.dcat;
const publishesShacl = (model: MetadataModel) => model.catalog.standards.shacl;

export const RDF_METADATA_ROUTES: readonly MetadataRoute[] = [
  {
    path: '/metadata/dcat',
    summary: 'Catalog as DCAT-AP 3.0.1 (JSON-LD)',
    mediaType: jsonLd,
    available: publishesDcat,
    landing: { rel: 'alternate', title: 'Catalog (DCAT-AP 3.0.1, JSON-LD)' },
    publish: { instances: ONCE, file: STATIC_PATHS.dcat },
    render: ({ view, links }) => renderDcat(view, links),
  },
  {
    path: '/metadata/dcat/:profile',
    summary: 'Catalog under a DCAT application profile (JSON-LD); `bregdcat-ap` for BRegDCAT-AP 2.0',
    mediaType: jsonLd,
    available: publishesDcat,
    landing: {
      rel: 'alternate',
      title: 'Catalog (BRegDCAT-AP 2.0, JSON-LD)',
      params: { profile: 'bregdcat-ap' },
    },
    publish: {
      instances: () => DCAT_PROFILES.map((profile) => ({ profile })),
      file: (params) => STATIC_PATHS.dcatProfile(param(params, 'profile')),
    },
    render: ({ view, links, params }) => {
      const profile = param(params, 'profile');
      if (!(DCAT_PROFILES as readonly string[]).includes(profile)) {
        throw relayProblem(
          'schema.unknown_resource',
          `no DCAT profile ${profile}; use ${DCAT_PROFILES.join(', ')}`,
        );
      }
      return renderBregDcatAp(view, links);
    },
  },
  {
    path: '/metadata/shacl',
    summary: 'SHACL shapes of the visible entities (JSON-LD)',
    mediaType: jsonLd,
    available: publishesShacl,
    landing: { rel: 'describedby', title: 'Entity shapes (SHACL, JSON-LD)' },
    publish: { instances: ONCE, file: STATIC_PATHS.shacl },
    render: ({ view }) => renderShacl(view),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities/:entity/shacl',
    summary: 'SHACL shape of one entity (JSON-LD)',
    mediaType: jsonLd,
    available: publishesShacl,
    publish: {
      instances: eachEntity,
      file: (params) => STATIC_PATHS.entityShacl(param(params, 'dataset_id'), param(params, 'entity')),
    },
    render: ({ view, params }) =>
      renderEntityShacl(view, entityIn(view, param(params, 'dataset_id'), param(params, 'entity'))),
  },
  {
    path: '/metadata/policies',
    summary: 'ODRL Offers of the visible datasets (JSON-LD)',
    mediaType: jsonLd,
    landing: { rel: 'describedby', title: 'Dataset policies (ODRL Offers, JSON-LD)' },
    publish: { instances: ONCE, file: STATIC_PATHS.policies },
    render: ({ view }) => renderPolicies(view),
  },
  {
    path: '/metadata/datasets/:dataset_id/policy',
    summary: 'ODRL Offer of one dataset (JSON-LD)',
    mediaType: jsonLd,
    publish: {
      instances: (model) => model.datasets.filter((d) => d.policy).map((d) => ({ dataset_id: d.id })),
      file: (params) => STATIC_PATHS.datasetPolicy(param(params, 'dataset_id')),
    },
    render: ({ view, params }) => {
      const datasetId = param(params, 'dataset_id');
      const offer = renderDatasetPolicy(view, datasetIn(view, datasetId));
      if (!offer) throw relayProblem('schema.unknown_resource', `dataset ${datasetId} declares no policy`);
      return offer;
    },
  },
  {
    path: '/metadata/cpsv-ap',
    summary: 'Public services as CPSV-AP 3.2.0 (JSON-LD)',
    mediaType: jsonLd,
    landing: { rel: 'related', title: 'Public services (CPSV-AP 3.2.0, JSON-LD)' },
    publish: { instances: ONCE, file: STATIC_PATHS.cpsvAp },
    render: ({ view }) => renderCpsvAp(view),
  },
];
