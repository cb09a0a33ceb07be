// Where each metadata document lives: relay routes, or files of a static publication under the same base URL.
// Renderers take one of these so links in a document resolve wherever the document is served.
import type { MetadataModel } from './metadata-model.ts';

export interface MetadataLinks {
  readonly style: 'relay' | 'static';
  landing(): string;
  catalog(): string;
  profiles(): string;
  profile(id: string): string;
  datasets(): string;
  dataset(datasetId: string): string;
  entities(datasetId: string): string;
  entity(datasetId: string, entity: string): string;
  /** The same URL in both styles: it is the offerings' `verification_request_schema_url`. */
  entitySchema(datasetId: string, entity: string): string;
  offerings(): string;
  offering(id: string): string;
  formSchema(formId: string): string;
  ogcRecords(): string;
  ogcRecord(id: string): string;
  apiCatalog(): string;
  /** RDF documents (JSON-LD). */
  dcat(): string;
  dcatProfile(profile: string): string;
  shacl(): string;
  entityShacl(datasetId: string, entity: string): string;
  policies(): string;
  datasetPolicy(datasetId: string): string;
  cpsvAp(): string;
}

/** Paths of a static publication, relative to its root; `staticLinks` prefixes the base URL. */
export const STATIC_PATHS = {
  landing: () => 'metadata/index.json',
  catalog: () => 'metadata/catalog.json',
  profiles: () => 'metadata/profiles.json',
  profile: (id: string) => `metadata/profiles/${id}.json`,
  datasets: () => 'metadata/datasets.json',
  dataset: (ds: string) => `metadata/datasets/${ds}.json`,
  entities: (ds: string) => `metadata/datasets/${ds}/entities.json`,
  entity: (ds: string, e: string) => `metadata/datasets/${ds}/entities/${e}.json`,
  entitySchema: (ds: string, e: string) => `metadata/schema/${ds}/${e}/schema.json`,
  offerings: () => 'metadata/evidence-offerings.json',
  offering: (id: string) => `metadata/evidence-offerings/${id}.json`,
  formSchema: (id: string) => `metadata/forms/${id}/schema.json`,
  ogcRecords: () => 'metadata/ogc/records.geojson',
  ogcRecord: (id: string) => `metadata/ogc/records/${id}.geojson`,
  apiCatalog: () => '.well-known/api-catalog',
  dcat: () => 'metadata/dcat.jsonld',
  dcatProfile: (profile: string) => `metadata/dcat.${profile}.jsonld`,
  shacl: () => 'metadata/shacl.jsonld',
  entityShacl: (ds: string, e: string) => `metadata/shacl/${ds}/${e}.jsonld`,
  policies: () => 'metadata/policies.jsonld',
  datasetPolicy: (ds: string) => `metadata/policies/${ds}.jsonld`,
  cpsvAp: () => 'metadata/cpsv-ap.jsonld',
} as const;

export function relayMetadataLinks(baseUrl: string): MetadataLinks {
  const at = (path: string) => `${baseUrl}${path}`;
  return {
    style: 'relay',
    landing: () => at('/metadata'),
    catalog: () => at('/metadata/catalog'),
    profiles: () => at('/metadata/profiles'),
    profile: (id) => at(`/metadata/profiles/${id}`),
    datasets: () => at('/metadata/datasets'),
    dataset: (ds) => at(`/metadata/datasets/${ds}`),
    entities: (ds) => at(`/metadata/datasets/${ds}/entities`),
    entity: (ds, e) => at(`/metadata/datasets/${ds}/entities/${e}`),
    entitySchema: (ds, e) => at(`/${STATIC_PATHS.entitySchema(ds, e)}`),
    offerings: () => at('/metadata/evidence-offerings'),
    offering: (id) => at(`/metadata/evidence-offerings/${id}`),
    formSchema: (id) => at(`/${STATIC_PATHS.formSchema(id)}`),
    ogcRecords: () => at('/metadata/ogc/records'),
    ogcRecord: (id) => at(`/metadata/ogc/records/${id}`),
    apiCatalog: () => at('/.well-known/api-catalog'),
    dcat: () => at('/metadata/dcat'),
    dcatProfile: (profile) => at(`/metadata/dcat/${profile}`),
    shacl: () => at('/metadata/shacl'),
    entityShacl: (ds, e) => at(`/metadata/datasets/${ds}/entities/${e}/shacl`),
    policies: () => at('/metadata/policies'),
    datasetPolicy: (ds) => at(`/metadata/datasets/${ds}/policy`),
    cpsvAp: () => at('/metadata/cpsv-ap'),
  };
}

export function staticMetadataLinks(baseUrl: string): MetadataLinks {
  const at = (path: string) => `${baseUrl}/${path}`;
  return {
    style: 'static',
    landing: () => at(STATIC_PATHS.landing()),
    catalog: () => at(STATIC_PATHS.catalog()),
    profiles: () => at(STATIC_PATHS.profiles()),
    profile: (id) => at(STATIC_PATHS.profile(id)),
    datasets: () => at(STATIC_PATHS.datasets()),
    dataset: (ds) => at(STATIC_PATHS.dataset(ds)),
    entities: (ds) => at(STATIC_PATHS.entities(ds)),
    entity: (ds, e) => at(STATIC_PATHS.entity(ds, e)),
    entitySchema: (ds, e) => at(STATIC_PATHS.entitySchema(ds, e)),
    offerings: () => at(STATIC_PATHS.offerings()),
    offering: (id) => at(STATIC_PATHS.offering(id)),
    formSchema: (id) => at(STATIC_PATHS.formSchema(id)),
    ogcRecords: () => at(STATIC_PATHS.ogcRecords()),
    ogcRecord: (id) => at(STATIC_PATHS.ogcRecord(id)),
    apiCatalog: () => at(STATIC_PATHS.apiCatalog()),
    dcat: () => at(STATIC_PATHS.dcat()),
    dcatProfile: (profile) => at(STATIC_PATHS.dcatProfile(profile)),
    shacl: () => at(STATIC_PATHS.shacl()),
    entityShacl: (ds, e) => at(STATIC_PATHS.entityShacl(ds, e)),
    policies: () => at(STATIC_PATHS.policies()),
    datasetPolicy: (ds) => at(STATIC_PATHS.datasetPolicy(ds)),
    cpsvAp: () => at(STATIC_PATHS.cpsvAp()),
  };
}

/**
 * The URL of an entity's JSON Schema, or undefined when the catalog publishes none (`catalog.standards.json_schema`
 * false): no document links to a schema that is not served.
 */
export function publishedEntitySchema(
  model: MetadataModel,
  links: MetadataLinks,
  datasetId: string,
  entity: string,
): string | undefined {
  return model.catalog.standards.jsonSchema ? links.entitySchema(datasetId, entity) : undefined;
}

/** The URL of a form's JSON Schema, or undefined when the catalog publishes none (see `publishedEntitySchema`). */
export function publishedFormSchema(
  model: MetadataModel,
  links: MetadataLinks,
  formId: string,
): string | undefined {
  return model.catalog.standards.jsonSchema ? links.formSchema(formId) : undefined;
}
