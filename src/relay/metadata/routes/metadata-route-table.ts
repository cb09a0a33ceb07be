// The `/metadata/*` route table: path, media type, accepted query and renderer of each document (the RDF ones in
// metadata-rdf-routes.ts). A new document is one entry; scoping, ETags, headers and publication come for free.
import { relayProblem } from '../../problems.ts';
import { STATIC_PATHS } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { METADATA_MEDIA_TYPES } from '../renderers/metadata-media-types.ts';
import { renderCatalogJson } from '../renderers/render-catalog-json.ts';
import {
  renderDataset,
  renderDatasetList,
  renderEntity,
  renderEntityList,
} from '../renderers/render-dataset-json.ts';
import { renderEntityJsonSchema } from '../renderers/render-entity-json-schema.ts';
import {
  allOfferings,
  filterOfferings,
  renderEvidenceOffering,
  renderEvidenceOfferingList,
} from '../renderers/render-evidence-offerings.ts';
import { renderFormJsonSchema } from '../renderers/render-form-json-schema.ts';
import { type LandingLink, renderMetadataLanding } from '../renderers/render-metadata-landing.ts';
import { renderOgcRecord, renderOgcRecordCollection } from '../renderers/render-ogc-records.ts';
import { renderProfile, renderProfileList } from '../renderers/render-profiles.ts';
import { datasetIn, entityIn, formIn, offeringIn, recordIn } from './lookup-metadata.ts';
import { RDF_METADATA_ROUTES } from './metadata-rdf-routes.ts';
import {
  eachDataset,
  eachEntity,
  isAvailable,
  type MetadataRoute,
  ONCE,
  param,
  type RouteParams,
} from './metadata-route.ts';

export type { MetadataRoute, MetadataRouteContext } from './metadata-route.ts';

const p = param;
const json = METADATA_MEDIA_TYPES.json;
const publishesJsonSchema = (model: MetadataModel) => model.catalog.standards.jsonSchema;

export const METADATA_ROUTES: readonly MetadataRoute[] = [
  {
    path: '/metadata',
    summary: 'Metadata landing: the catalog in brief and links to every metadata document',
    mediaType: json,
    render: ({ view, links, documents }) => renderMetadataLanding(view, links, documents),
  },
  {
    path: '/metadata/catalog',
    summary: 'Catalog of the visible datasets, evidence offerings and services (JSON)',
    mediaType: json,
    landing: { rel: 'describedby', title: 'Catalog (JSON)' },
    publish: { instances: ONCE, file: STATIC_PATHS.catalog },
    render: ({ view, links }) => renderCatalogJson(view, links),
  },
  {
    path: '/metadata/profiles',
    summary: 'Application and deployment profiles',
    mediaType: json,
    landing: { rel: 'profile', title: 'Application and deployment profiles' },
    publish: { instances: ONCE, file: STATIC_PATHS.profiles },
    render: ({ view }) => renderProfileList(view),
  },
  {
    path: '/metadata/profiles/:profile_id',
    summary: 'One profile',
    mediaType: json,
    publish: {
      instances: (model) =>
        [...new Set([...model.profiles, ...model.applicationProfiles].map((profile) => profile.id))].map(
          (id) => ({
            profile_id: id,
          }),
        ),
      file: (params) => STATIC_PATHS.profile(p(params, 'profile_id')),
    },
    render: ({ view, params }) => {
      const profile = renderProfile(view, p(params, 'profile_id'));
      if (!profile) throw relayProblem('schema.unknown_resource', 'no profile with that id');
      return profile;
    },
  },
  {
    path: '/metadata/datasets',
    summary: 'Visible datasets',
    mediaType: json,
    landing: { rel: 'collection', title: 'Datasets' },
    publish: { instances: ONCE, file: STATIC_PATHS.datasets },
    render: ({ view, links }) => renderDatasetList(view, links),
  },
  {
    path: '/metadata/datasets/:dataset_id',
    summary: 'One dataset',
    mediaType: json,
    publish: { instances: eachDataset, file: (params) => STATIC_PATHS.dataset(p(params, 'dataset_id')) },
    render: ({ view, links, params }) => renderDataset(view, datasetIn(view, p(params, 'dataset_id')), links),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities',
    summary: 'Entities of a dataset',
    mediaType: json,
    publish: { instances: eachDataset, file: (params) => STATIC_PATHS.entities(p(params, 'dataset_id')) },
    render: ({ view, links, params }) =>
      renderEntityList(view, datasetIn(view, p(params, 'dataset_id')), links),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities/:entity',
    summary: 'One entity with its fields and relationships',
    mediaType: json,
    publish: {
      instances: eachEntity,
      file: (params) => STATIC_PATHS.entity(p(params, 'dataset_id'), p(params, 'entity')),
    },
    render: ({ view, links, params }) =>
      renderEntity(view, entityIn(view, p(params, 'dataset_id'), p(params, 'entity')), links),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities/:entity/schema',
    summary: "JSON Schema (Draft 2020-12) of the entity's records",
    mediaType: METADATA_MEDIA_TYPES.jsonSchema,
    available: publishesJsonSchema,
    render: ({ view, links, params }) =>
      renderEntityJsonSchema(view, entityIn(view, p(params, 'dataset_id'), p(params, 'entity')), links),
  },
  {
    path: '/metadata/schema/:dataset_id/:entity/schema.json',
    summary:
      "JSON Schema (Draft 2020-12) of the entity's records (the offerings' verification_request_schema_url)",
    mediaType: METADATA_MEDIA_TYPES.jsonSchema,
    available: publishesJsonSchema,
    publish: {
      instances: eachEntity,
      file: (params) => STATIC_PATHS.entitySchema(p(params, 'dataset_id'), p(params, 'entity')),
    },
    render: ({ view, links, params }) =>
      renderEntityJsonSchema(view, entityIn(view, p(params, 'dataset_id'), p(params, 'entity')), links),
  },
  {
    path: '/metadata/forms/:form_id/schema.json',
    summary: 'JSON Schema (Draft 2020-12) of a form submission',
    mediaType: METADATA_MEDIA_TYPES.jsonSchema,
    available: publishesJsonSchema,
    publish: {
      instances: (model) => model.forms.map((f) => ({ form_id: f.id })),
      file: (params) => STATIC_PATHS.formSchema(p(params, 'form_id')),
    },
    render: ({ view, links, params }) =>
      renderFormJsonSchema(view, formIn(view, p(params, 'form_id')), links),
  },
  {
    path: '/metadata/ogc/records',
    summary: 'OGC API Records bodies of the visible datasets (link-free)',
    mediaType: METADATA_MEDIA_TYPES.geoJson,
    landing: { rel: 'alternate', title: 'OGC API Records items (GeoJSON, link-free)' },
    publish: { instances: ONCE, file: STATIC_PATHS.ogcRecords },
    render: ({ view }) => renderOgcRecordCollection(view),
  },
  {
    path: '/metadata/ogc/records/:record_id',
    summary: 'One OGC API Records body',
    mediaType: METADATA_MEDIA_TYPES.geoJson,
    publish: {
      instances: (model) => model.datasets.map((d) => ({ record_id: d.id })),
      file: (params) => STATIC_PATHS.ogcRecord(p(params, 'record_id')),
    },
    render: ({ view, params }) => renderOgcRecord(view, recordIn(view, p(params, 'record_id'))),
  },
  {
    path: '/metadata/evidence-offerings',
    summary: 'Evidence offerings (discovery only; verification happens at the verifier)',
    mediaType: json,
    query: ['evidence_type', 'country', 'procedure_context'],
    landing: { rel: 'related', title: 'Evidence offerings' },
    publish: { instances: ONCE, file: STATIC_PATHS.offerings },
    render: ({ view, query }) =>
      renderEvidenceOfferingList(
        filterOfferings(allOfferings(view), {
          evidenceType: query.evidence_type,
          country: query.country,
          procedureContext: query.procedure_context,
        }),
      ),
  },
  {
    path: '/metadata/evidence-offerings/:offering_id',
    summary: 'One evidence offering',
    mediaType: json,
    publish: {
      instances: (model) => allOfferings(model).map((o) => ({ offering_id: o.id })),
      file: (params) => STATIC_PATHS.offering(p(params, 'offering_id')),
    },
    render: ({ view, params }) => renderEvidenceOffering(offeringIn(view, p(params, 'offering_id'))),
  },
  ...RDF_METADATA_ROUTES,
];

/**
 * The landing links of a route table: every route that declares `landing` and that the model publishes, as a
 * relay route or (`style: 'static'`) as the published file, under the given base URL.
 */
export function landingDocuments(
  routes: readonly MetadataRoute[],
  model: MetadataModel,
  style: 'relay' | 'static' = 'relay',
): LandingLink[] {
  const baseUrl = model.catalog.baseUrl;
  return routes.flatMap((route) => {
    if (route.landing === undefined || !isAvailable(route, model)) return [];
    if (style === 'static' && route.publish === undefined) return [];
    const params: RouteParams = route.landing.params ?? {};
    const href =
      style === 'relay'
        ? `${baseUrl}${route.path.replace(/:(\w+)/g, (_match, name: string) => param(params, name))}`
        : `${baseUrl}/${route.publish?.file(params)}`;
    return [{ rel: route.landing.rel, href, type: route.mediaType, title: route.landing.title }];
  });
}
