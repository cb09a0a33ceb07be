// The runtime OpenAPI 3.1 document, generated from the catalogue and limited to what the caller may see.
import { withOidcAuthResponses } from '../../platform/auth/oidc-openapi-responses.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import {
  CACHE_HEADER_COMPONENTS,
  CACHE_HEADERS,
  withAuthChallenges,
  withDefaultProblem,
  withOperationHeaders,
  withResponseHeaders,
  withUriTooLong,
} from '../../platform/http/openapi-operations.ts';
import type { Catalog, CatalogEntity } from '../catalog/catalog.ts';
import type { MetadataModel } from '../metadata/model/metadata-model.ts';
import type { MetadataRoute } from '../metadata/routes/metadata-route.ts';
import { aggregatePaths } from './aggregate-paths.ts';
import { AGGREGATE_SCHEMAS } from './aggregate-schemas.ts';
import { datasetPaths, datasetSummarySchema } from './dataset-paths.ts';
import { entityPaths } from './entity-paths.ts';
import { metadataPaths } from './metadata-paths.ts';
import {
  jsonResponse,
  NOT_MODIFIED,
  objectWith,
  problemResponse,
  recordSchema,
  schemaName,
  URI_TOO_LONG,
  VARY_CREDENTIAL,
  VARY_HEADER_COMPONENTS,
} from './openapi-schemas.ts';

/** The metadata surface to describe: its route table and the (unscoped) model it renders from. */
export interface OpenApiMetadata {
  readonly routes: readonly MetadataRoute[];
  readonly model: MetadataModel;
}

/** Visible entities: those whose metadata scope the caller holds (all of them for a public document). */
export function buildOpenApi(
  catalog: Catalog,
  principal: Principal | undefined,
  version: string,
  metadata?: OpenApiMetadata,
) {
  const entities = [...catalog.datasets.values()].flatMap((dataset) =>
    [...dataset.entities.values()].filter(
      (entity) => !principal || principal.scopes.has(entity.scopes.metadata),
    ),
  );
  const paths: Record<string, unknown> = { ...commonPaths() };
  const schemas: Record<string, unknown> = {
    Problem: problemSchema(),
    Pagination: paginationSchema(),
    DatasetSummary: datasetSummarySchema(),
  };
  // The entities the caller sees, by `dataset/entity`: relationships name only these.
  const visible = new Map(entities.map((entity) => [`${entity.datasetId}/${entity.name}`, entity]));
  Object.assign(paths, datasetPaths(new Set(entities.map((entity) => entity.datasetId))));
  for (const entity of entities) {
    schemas[schemaName(entity)] = recordSchema(entity);
    Object.assign(
      paths,
      entityPaths(
        entity,
        schemaName(entity),
        (target) => visible.get(`${entity.datasetId}/${target}`),
        isLive(catalog, entity),
      ),
    );
  }
  const aggregates = aggregatePaths(catalog, principal);
  Object.assign(paths, aggregates);
  if (Object.keys(aggregates).length > 0) Object.assign(schemas, AGGREGATE_SCHEMAS);
  if (metadata) {
    Object.assign(
      paths,
      metadataPaths(metadata.routes, metadata.model, { entities: new Set(visible.keys()) }),
    );
  }
  const apiKeys = catalog.config.auth.mode === 'api_key';
  return {
    openapi: '3.1.0',
    info: {
      title: `${catalog.config.catalog.title} (Ambit Relay)`,
      version,
      description:
        'Read-only, scoped consultation API. This document lists only what the presented credential may see.',
    },
    servers: [{ url: catalog.config.catalog.base_url }],
    security: apiKeys ? [{ bearer: [] }, { apiKey: [] }] : [{ bearer: [] }],
    // An overlong URI is refused before routing (414 on every route); in OIDC mode the token check adds its own
    // 403 and 503 to every route that authenticates; 401s and 403s carry the Bearer challenge.
    // Every answer, the refusals included, carries `Cache-Control` and, where CORS is configured, `Vary: Origin`.
    paths: withResponseHeaders(
      withDefaultProblem(
        withAuthChallenges(
          catalog.config.auth.mode === 'oidc'
            ? withOidcAuthResponses(withUriTooLong(paths, URI_TOO_LONG[414]), problemResponse)
            : withUriTooLong(paths, URI_TOO_LONG[414]),
        ),
        problemResponse(
          'Any other error: 500 `internal.unhandled`, 503 `audit.write_failed`, 504 `internal.timeout`',
        ),
      ),
      CACHE_HEADERS,
    ),
    components: {
      // Only schemes that can succeed: an OIDC relay refuses `x-api-key`, and the docs page offers every scheme.
      securitySchemes: apiKeys
        ? {
            bearer: { type: 'http', scheme: 'bearer', description: 'API key' },
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key' },
          }
        : { bearer: { type: 'http', scheme: 'bearer', description: 'OIDC access token' } },
      schemas,
      headers: { ...CACHE_HEADER_COMPONENTS, ...VARY_HEADER_COMPONENTS },
    },
  };
}

/** The loaded config gives every table its effective materialization. */
function isLive(catalog: Catalog, entity: CatalogEntity): boolean {
  const tables = catalog.datasets.get(entity.datasetId)?.config.tables ?? [];
  return tables.find((table) => table.id === entity.tableId)?.materialization === 'live';
}

// RFC 9727 §2: the catalog links itself with rel="api-catalog".
const API_CATALOG_HEADERS = {
  ...NOT_MODIFIED.headers,
  Link: {
    required: true,
    description: '`</.well-known/api-catalog>; rel="api-catalog"`',
    schema: { type: 'string' },
  },
};

function commonPaths() {
  const open = { security: [] };
  return {
    '/healthz': {
      get: {
        ...open,
        operationId: 'healthz',
        summary: 'Liveness probe',
        responses: {
          200: jsonResponse('Alive', {
            type: 'object',
            required: ['status', 'checks'],
            properties: {
              status: { const: 'ok' },
              checks: { ...objectWith('total', 'ok', 'failed'), properties: HEALTH_COUNTS },
            },
          }),
        },
      },
    },
    '/ready': {
      get: {
        ...open,
        operationId: 'ready',
        summary: 'Readiness probe: 503 until every source is loaded',
        responses: {
          200: jsonResponse('Ready', objectWith('status', 'checks')),
          503: {
            ...problemResponse('Still loading'),
            headers: { 'Retry-After': { required: true, schema: { type: 'string' } } },
          },
        },
      },
    },
    '/.well-known/api-catalog': {
      get: {
        ...open,
        operationId: 'apiCatalog',
        summary: 'API catalog (RFC 9727 linkset): the APIs and metadata of this deployment',
        responses: {
          200: {
            description: 'Linkset',
            headers: API_CATALOG_HEADERS,
            content: {
              'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"': {
                schema: { type: 'object', required: ['linkset'] },
              },
            },
          },
          304: { ...NOT_MODIFIED, headers: API_CATALOG_HEADERS },
        },
      },
    },
    '/v1/datasets': {
      get: withOperationHeaders(
        {
          operationId: 'listDatasets',
          summary: 'Datasets visible to the caller',
          responses: {
            200: jsonResponse('Dataset summaries', {
              type: 'object',
              required: ['data'],
              properties: { data: { type: 'array', items: { $ref: '#/components/schemas/DatasetSummary' } } },
            }),
            401: problemResponse('Not authenticated'),
          },
        },
        VARY_CREDENTIAL,
      ),
    },
  };
}

function problemSchema() {
  return {
    type: 'object',
    required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
    properties: {
      type: { type: 'string', format: 'uri' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      code: { type: 'string', description: 'Stable machine code; branch on this, not on text.' },
      request_id: { type: 'string' },
    },
  };
}

function paginationSchema() {
  return {
    type: 'object',
    required: ['has_more'],
    properties: {
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string', description: 'Opaque; pass as `cursor`.' },
    },
  };
}

/** The liveness body's counts (the reference's): the process answers, which is its one check. */
const HEALTH_COUNTS = {
  total: { type: 'integer', const: 1 },
  ok: { type: 'integer', const: 1 },
  failed: { type: 'integer', const: 0 },
};
