// The `/metadata/*` route table: path, media type, accepted query and renderer of each document. New metadata
// documents (DCAT, SHACL, ODRL policies, CPSV-AP) are one entry each; scoping, ETags and headers come for free.
import { relayProblem } from '../../problems.ts';
import { type MetadataLinks, STATIC_PATHS } from '../model/metadata-links.ts';
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

export interface MetadataRouteContext {
  /** The caller's scoped view of the model: render only from this. */
  readonly view: MetadataModel;
  readonly links: MetadataLinks;
  readonly params: Readonly<Record<string, string>>;
  /** Only the route's declared query parameters, each a single non-empty value. */
  readonly query: Readonly<Record<string, string>>;
  /** The catalog-wide documents of this table, for the landing page. */
  readonly documents: readonly LandingLink[];
}

export interface MetadataRoute {
  /** Fastify path; `:dataset_id` is the owning dataset when present (it scopes the audit record). */
  readonly path: string;
  /** Response media type; JSON is sent as `application/json; charset=utf-8`. */
  readonly mediaType: string;
  /** Accepted query parameters (any other answers 400 `filter.not_allowed`); absent: the query is ignored. */
  readonly query?: readonly string[];
  /** Catalog-wide documents (no path parameters) listed in the `/metadata` landing links. */
  readonly landing?: { readonly rel: string; readonly title: string };
  /**
   * Static publication: the file path of each instance (relative to the output directory) and the path
   * parameters of every instance in a model. Absent: the document is relay-only.
   */
  readonly publish?: {
    instances(model: MetadataModel): readonly Readonly<Record<string, string>>[];
    file(params: Readonly<Record<string, string>>): string;
  };
  /** Returns the document (serialised as JSON) or throws a catalogued problem. */
  render(context: MetadataRouteContext): unknown;
}

const ONCE = () => [{}];
const eachDataset = (model: MetadataModel) => model.datasets.map((d) => ({ dataset_id: d.id }));
const eachEntity = (model: MetadataModel) =>
  model.datasets.flatMap((d) => d.entities.map((e) => ({ dataset_id: d.id, entity: e.name })));
const p = (params: Readonly<Record<string, string>>, name: string) => params[name] as string;

const json = METADATA_MEDIA_TYPES.json;

export const METADATA_ROUTES: readonly MetadataRoute[] = [
  {
    path: '/metadata',
    mediaType: json,
    render: ({ view, links, documents }) => renderMetadataLanding(view, links, documents),
  },
  {
    path: '/metadata/catalog',
    mediaType: json,
    landing: { rel: 'describedby', title: 'Catalog (JSON)' },
    publish: { instances: ONCE, file: STATIC_PATHS.catalog },
    render: ({ view, links }) => renderCatalogJson(view, links),
  },
  {
    path: '/metadata/profiles',
    mediaType: json,
    landing: { rel: 'profile', title: 'Application and deployment profiles' },
    publish: { instances: ONCE, file: STATIC_PATHS.profiles },
    render: ({ view }) => renderProfileList(view),
  },
  {
    path: '/metadata/profiles/:profile_id',
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
    mediaType: json,
    landing: { rel: 'collection', title: 'Datasets' },
    publish: { instances: ONCE, file: STATIC_PATHS.datasets },
    render: ({ view, links }) => renderDatasetList(view, links),
  },
  {
    path: '/metadata/datasets/:dataset_id',
    mediaType: json,
    publish: { instances: eachDataset, file: (params) => STATIC_PATHS.dataset(p(params, 'dataset_id')) },
    render: ({ view, links, params }) => renderDataset(view, datasetIn(view, p(params, 'dataset_id')), links),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities',
    mediaType: json,
    publish: { instances: eachDataset, file: (params) => STATIC_PATHS.entities(p(params, 'dataset_id')) },
    render: ({ view, links, params }) => renderEntityList(datasetIn(view, p(params, 'dataset_id')), links),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities/:entity',
    mediaType: json,
    publish: {
      instances: eachEntity,
      file: (params) => STATIC_PATHS.entity(p(params, 'dataset_id'), p(params, 'entity')),
    },
    render: ({ view, links, params }) =>
      renderEntity(entityIn(view, p(params, 'dataset_id'), p(params, 'entity')), links),
  },
  {
    path: '/metadata/datasets/:dataset_id/entities/:entity/schema',
    mediaType: METADATA_MEDIA_TYPES.jsonSchema,
    render: ({ view, links, params }) =>
      renderEntityJsonSchema(view, entityIn(view, p(params, 'dataset_id'), p(params, 'entity')), links),
  },
  {
    path: '/metadata/schema/:dataset_id/:entity/schema.json',
    mediaType: METADATA_MEDIA_TYPES.jsonSchema,
    publish: {
      instances: (model) => (model.catalog.standards.jsonSchema ? eachEntity(model) : []),
      file: (params) => STATIC_PATHS.entitySchema(p(params, 'dataset_id'), p(params, 'entity')),
    },
    render: ({ view, links, params }) =>
      renderEntityJsonSchema(view, entityIn(view, p(params, 'dataset_id'), p(params, 'entity')), links),
  },
  {
    path: '/metadata/forms/:form_id/schema.json',
    mediaType: METADATA_MEDIA_TYPES.jsonSchema,
    publish: {
      instances: (model) =>
        model.catalog.standards.jsonSchema ? model.forms.map((f) => ({ form_id: f.id })) : [],
      file: (params) => STATIC_PATHS.formSchema(p(params, 'form_id')),
    },
    render: ({ view, links, params }) =>
      renderFormJsonSchema(view, formIn(view, p(params, 'form_id')), links),
  },
  {
    path: '/metadata/ogc/records',
    mediaType: METADATA_MEDIA_TYPES.geoJson,
    landing: { rel: 'alternate', title: 'OGC API Records items (GeoJSON, link-free)' },
    publish: { instances: ONCE, file: STATIC_PATHS.ogcRecords },
    render: ({ view }) => renderOgcRecordCollection(view),
  },
  {
    path: '/metadata/ogc/records/:record_id',
    mediaType: METADATA_MEDIA_TYPES.geoJson,
    publish: {
      instances: (model) => model.datasets.map((d) => ({ record_id: d.id })),
      file: (params) => STATIC_PATHS.ogcRecord(p(params, 'record_id')),
    },
    render: ({ view, params }) => renderOgcRecord(view, recordIn(view, p(params, 'record_id'))),
  },
  {
    path: '/metadata/evidence-offerings',
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
    mediaType: json,
    publish: {
      instances: (model) => allOfferings(model).map((o) => ({ offering_id: o.id })),
      file: (params) => STATIC_PATHS.offering(p(params, 'offering_id')),
    },
    render: ({ view, params }) => renderEvidenceOffering(offeringIn(view, p(params, 'offering_id'))),
  },
];

/**
 * The landing links of a route table: every route that declares `landing`, as a relay route or (`style:
 * 'static'`) as the published file, under the given base URL.
 */
export function landingDocuments(
  routes: readonly MetadataRoute[],
  baseUrl: string,
  style: 'relay' | 'static' = 'relay',
): LandingLink[] {
  return routes.flatMap((route) => {
    if (route.landing === undefined) return [];
    if (style === 'static' && route.publish === undefined) return [];
    const href = style === 'relay' ? `${baseUrl}${route.path}` : `${baseUrl}/${route.publish?.file({})}`;
    return [{ rel: route.landing.rel, href, type: route.mediaType, title: route.landing.title }];
  });
}
