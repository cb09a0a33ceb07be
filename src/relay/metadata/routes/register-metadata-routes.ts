// Mounts the metadata route table and the public RFC 9727 API catalog. Every `/metadata/*` handler runs the same
// stages: authenticate -> caller's view (403 when empty) -> query -> render (404 outside the view) -> Accept (406)
// -> ETag/304.
import type { FastifyInstance } from 'fastify';
import { acceptsMediaType } from '../../../platform/http/accept-media-type.ts';
import { etagOfBody, isNotModified } from '../../../platform/http/etag.ts';
import { addGetRoute } from '../../../platform/http/fast-lane.ts';
import type { RouteReply, RouteRequest } from '../../../platform/http/route-types.ts';
import { addVary, CREDENTIAL_HEADERS } from '../../../platform/http/vary.ts';
import { platformProblem } from '../../../platform/problem/platform-problems.ts';
import { relayProblem } from '../../problems.ts';
import { auditFacts, type RelayRuntime } from '../../relay-runtime.ts';
import type { LoadedManifest } from '../load-manifest.ts';
import { buildModelFromConfig } from '../model/build-model-from-config.ts';
import { buildModelFromManifest } from '../model/build-model-from-manifest.ts';
import { relayMetadataLinks } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { METADATA_MEDIA_TYPES } from '../renderers/metadata-media-types.ts';
import { renderApiCatalog } from '../renderers/render-api-catalog.ts';
import { isAvailable } from './metadata-route.ts';
import { landingDocuments, METADATA_ROUTES, type MetadataRoute } from './metadata-route-table.ts';
import { createMetadataViews, MAX_DOCUMENTS_PER_VIEW, type RenderedDocument } from './metadata-views.ts';

export function registerMetadataRoutes(
  app: FastifyInstance,
  runtime: RelayRuntime,
  manifest: LoadedManifest | undefined,
  routes: readonly MetadataRoute[] = METADATA_ROUTES,
): { routes: readonly MetadataRoute[]; model: MetadataModel } {
  const baseUrl = runtime.catalog.config.catalog.base_url.replace(/(?<!\/)\/+$/, '');
  const model = manifest
    ? buildModelFromManifest(manifest.manifest, { baseUrl, runtime: runtime.catalog })
    : buildModelFromConfig(runtime.catalog);
  const views = createMetadataViews(model, runtime.catalog);
  const links = relayMetadataLinks(baseUrl);
  const documents = landingDocuments(routes, model);

  for (const route of routes) {
    const hasParams = route.path.includes(':');
    addGetRoute(app, route.path, async (request, reply) => {
      const facts = auditFacts(request);
      facts.endpointKind = 'metadata';
      // Every answer, refusals included, depends on the credential.
      addVary(reply, ...CREDENTIAL_HEADERS);
      const principal = await runtime.authenticate(request);
      const view = views.forPrincipal(principal);
      const params = request.params as Record<string, string>;
      const datasetId = params.dataset_id;
      if (datasetId !== undefined && view.scopesByDataset.has(datasetId)) facts.datasetId = datasetId;
      if (route.query !== undefined) facts.query = request.query as Record<string, string | string[]>;
      facts.scopesUsed = [
        ...(datasetId === undefined ? view.allScopes : (view.scopesByDataset.get(datasetId) ?? [])),
      ];
      const query = acceptedQuery(route, request);
      if (!isAvailable(route, view.model)) {
        throw relayProblem('schema.unknown_resource', 'this catalog does not publish this document');
      }
      const key =
        !hasParams && query === NO_QUERY
          ? route.path
          : `${route.path}\u0000${JSON.stringify(params)}\u0000${JSON.stringify(query)}`;
      let document = view.documents.get(key);
      if (!document) {
        const body = JSON.stringify(route.render({ view: view.model, links, params, query, documents }));
        document = { body: Buffer.from(body), etag: etagOfBody('metadata:', body) };
        if (view.documents.size >= MAX_DOCUMENTS_PER_VIEW) view.documents.clear();
        view.documents.set(key, document);
      }
      // After the document is found (an unknown one is 404 whatever is accepted), before any 304.
      if (!acceptsMediaType(request.headers.accept, route.mediaType)) {
        addVary(reply, 'Accept');
        throw platformProblem('http.not_acceptable', `this document is available as ${route.mediaType} only`);
      }
      return send(request, reply, document, route.mediaType, true);
    });
  }

  const apiCatalogBody = JSON.stringify(renderApiCatalog(model, links));
  const apiCatalog: RenderedDocument = {
    body: Buffer.from(apiCatalogBody),
    etag: etagOfBody('metadata:', apiCatalogBody),
  };
  addGetRoute(app, '/.well-known/api-catalog', async (request, reply) => {
    auditFacts(request).endpointKind = 'api_catalog';
    reply.header('link', '</.well-known/api-catalog>; rel="api-catalog"');
    return send(request, reply, apiCatalog, METADATA_MEDIA_TYPES.linkset, false);
  });
  return { routes, model };
}

/** The declared query parameters, each once and non-empty; routes without a declaration ignore the query. */
const NO_QUERY: Readonly<Record<string, string>> = Object.freeze({});

function acceptedQuery(route: MetadataRoute, request: RouteRequest): Readonly<Record<string, string>> {
  const given = request.query as Record<string, string | string[]>;
  if (route.query === undefined) return NO_QUERY;
  let any = false;
  for (const _ in given) {
    any = true;
    break;
  }
  if (!any) return NO_QUERY;
  const accepted: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!route.query.includes(name)) {
      throw relayProblem(
        'filter.not_allowed',
        `\`${name}\` is not accepted here; use ${route.query.join(', ')}`,
      );
    }
    if (typeof value !== 'string' || value.trim() === '') {
      throw relayProblem('filter.invalid_value', `\`${name}\` must be given once, with a value`);
    }
    accepted[name] = value.trim();
  }
  // Sorted, so the same filters in another order share one cached document.
  return Object.fromEntries(Object.entries(accepted).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function send(
  request: RouteRequest,
  reply: RouteReply,
  document: RenderedDocument,
  mediaType: string,
  scoped: boolean,
): RouteReply {
  reply.header('etag', document.etag);
  if (scoped) {
    // The view depends on the credential (named in Vary before authentication): only the caller may reuse it, and
    // only after revalidating. Whether it is sent at all depends on Accept (406 otherwise).
    reply.header('cache-control', 'private, no-store');
    addVary(reply, 'Accept');
  }
  if (isNotModified(request, document.etag)) return reply.code(304).send();
  const contentType = mediaType === METADATA_MEDIA_TYPES.json ? 'application/json; charset=utf-8' : mediaType;
  return reply.header('content-type', contentType).send(document.body);
}
