// OpenAPI path items of the `/metadata/*` surface, from the same route table that mounts it: routes naming a
// dataset or entity are listed once per visible one (like the entity routes), other parameters stay templated.
import type { MetadataModel } from '../metadata/model/metadata-model.ts';
import { isAvailable, type MetadataRoute, type RouteParams } from '../metadata/routes/metadata-route.ts';
import { problemResponse, VARY_ACCEPT, VARY_METADATA } from './openapi-schemas.ts';

/** What the caller's metadata scopes reveal: `dataset/entity` keys. */
export interface MetadataVisibility {
  readonly entities: ReadonlySet<string>;
}

const SCOPED = new Set(['dataset_id', 'entity']);
// Every answer and every 304 carries both: the document depends on the caller, so no cache may keep it.
const SCOPED_HEADERS = {
  ETag: { required: true, schema: { type: 'string' } },
  'Cache-Control': { required: true, schema: { type: 'string', const: 'private, no-store' } },
  ...VARY_METADATA,
};

export function metadataPaths(
  routes: readonly MetadataRoute[],
  model: MetadataModel,
  visibility: MetadataVisibility,
): Record<string, unknown> {
  if (visibility.entities.size === 0) return {};
  const paths: Record<string, unknown> = {};
  for (const route of routes) {
    if (!isAvailable(route, model)) continue;
    for (const params of scopedInstances(route, model, visibility)) {
      const path = route.path.replace(/:(\w+)/g, (_match, name: string) => params[name] ?? `{${name}}`);
      paths[path] = { get: operation(route, path) };
    }
  }
  return paths;
}

/** The values of the scope-bearing parameters a route is listed with; `[{}]` for a catalog-wide route. */
function scopedInstances(
  route: MetadataRoute,
  model: MetadataModel,
  visibility: MetadataVisibility,
): RouteParams[] {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  if (!names.includes('dataset_id')) return [{}];
  const visible = (params: RouteParams) =>
    params.entity === undefined
      ? [...visibility.entities].some((key) => key.startsWith(`${params.dataset_id}/`))
      : visibility.entities.has(`${params.dataset_id}/${params.entity}`);
  // Published routes say which instances exist (a dataset's policy only when it declares one).
  const candidates: RouteParams[] = route.publish
    ? [...route.publish.instances(model)]
    : model.datasets.flatMap((dataset) =>
        names.includes('entity')
          ? dataset.entities.map((entity) => ({ dataset_id: dataset.id, entity: entity.name }))
          : [{ dataset_id: dataset.id }],
      );
  return candidates.filter(visible);
}

function operation(route: MetadataRoute, path: string) {
  const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const jsonLike = route.mediaType === 'application/json' ? 'application/json' : route.mediaType;
  return {
    tags: ['metadata'],
    operationId: `metadata${path
      .replace(/^\/metadata/, '')
      .replace(/[{}]/g, '')
      .replace(/\//g, '.')}`,
    summary: route.summary,
    parameters: [
      ...templated
        .filter((name) => !SCOPED.has(name))
        .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(route.query ?? []).map((name) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
      })),
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'ETag of a document this caller received before; 304 when the scoped view is unchanged.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: {
        description: route.summary,
        headers: SCOPED_HEADERS,
        content: { [jsonLike]: { schema: { type: 'object' } } },
      },
      304: {
        description: 'Not modified: the caller’s view of this document is unchanged',
        headers: SCOPED_HEADERS,
      },
      ...(route.query ? { 400: problemResponse('Unknown, repeated or empty filter') } : {}),
      401: problemResponse('Not authenticated'),
      403: problemResponse('No metadata scope on this dataset'),
      404: problemResponse('Unknown resource'),
      406: {
        ...problemResponse(`Accept permits no form of this document (it is sent as ${route.mediaType})`),
        headers: VARY_ACCEPT,
      },
    },
  };
}
