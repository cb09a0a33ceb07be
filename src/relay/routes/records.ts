// Entity record reads: the paginated collection and a single record by primary key.
import type { FastifyInstance } from 'fastify';
import { isNotModified, strongEtag } from '../../platform/http/etag.ts';
import { addGetRoute } from '../../platform/http/fast-lane.ts';
import { quoted } from '../../platform/http/quote-client-text.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import { addVary, CREDENTIAL_HEADERS } from '../../platform/http/vary.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import type { CatalogEntity } from '../catalog/catalog.ts';
import { relayProblem } from '../problems.ts';
import { filterIntent, intentDigest } from '../query/cursor.ts';
import { expandRow, type Related, relatedOf } from '../query/expand-rows.ts';
import {
  type CollectionQuery,
  parseCollectionQuery,
  parseExpand,
  parseFields,
  type QueryParams,
  reserved,
} from '../query/parse-collection-query.ts';
import { rowJson, rowObject } from '../query/render-rows.ts';
import { runCollection } from '../query/run-collection.ts';
import { auditFacts, type RelayRuntime } from '../relay-runtime.ts';
import { parseFilterValue } from '../store/coerce-cell.ts';
import type { Generation } from '../store/generation.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import { sendLiveCollection, sendLiveRecord } from './live-records.ts';
import { nextLink } from './next-link.ts';
import { cachedPage, pageKey, rememberPage } from './page-cache.ts';
import { renderPage } from './render-page.ts';
import { readPurpose, requireGeneration, requireReadableById, resolveEntity } from './resolve-entity.ts';

/** What a page depends on besides its URL: the credential and the purpose its cursors are bound to. */
export const PAGE_VARY = [...CREDENTIAL_HEADERS, 'Data-Purpose'] as const;

interface EntityParams {
  dataset_id: string;
  entity: string;
  id?: string;
}

export function registerRecordRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  addGetRoute(app, '/v1/datasets/:dataset_id/entities/:entity/records', async (request, reply) => {
    // A page's next cursor is bound to the credential and the purpose; refusals depend on them too.
    addVary(reply, ...PAGE_VARY);
    const { facts, principal, entity, params } = await beginRowsRead(runtime, request);
    // Purpose precedes query parsing: a caller without one learns nothing about the filter rules.
    const entityPurpose = readPurpose(request, [entity]);
    const key = pageKey(
      `${entity.datasetId}/${entity.name}`,
      request.url,
      params,
      entityPurpose,
      principal.credentialTag,
    );
    const current = runtime.state.generation;
    const hit = key === undefined || current === undefined ? undefined : cachedPage(current, key);
    if (hit) {
      facts.scopesUsed = [entity.scopes.rows];
      if (isNotModified(request, hit.etag)) return notModified(reply, hit.etag);
      facts.rowCount = hit.rowCount;
      reply.header('etag', hit.etag);
      if (hit.link) reply.header('link', hit.link);
      return sendJson(reply, hit.body);
    }
    // Expansion targets are checked as the relationship route checks them, scope then purpose, before the rest of
    // the query (docs/decisions/0003-scope-before-existence.md).
    const expand = parseExpand(entity, reserved(params, 'expand'));
    const expansions = authorizeExpansions(runtime, principal.scopes, entity, expand);
    const purpose = readPurpose(request, [entity, ...expansions.map((related) => related.target)]);
    const query = parseCollectionQuery(entity, params);
    facts.scopesUsed = [entity.scopes.rows, ...expansions.map((related) => related.target.scopes.rows)];
    const generation = requireGeneration(runtime.state);
    const live = runtime.postgres.liveTable(entity.datasetId, entity.tableId);
    if (live)
      return sendLiveCollection({ runtime, live, entity, facts, request, reply }, query, purpose, principal);
    const table = generation.table(entity.datasetId, entity.tableId);
    const versions = versionsOf(generation, entity, expansions);
    // Expanded pages also show the targets' rows: a walk must not mix generations of those either.
    const dataVersion = expansions.length === 0 ? table.version : versions.join('.');
    // Only cursors need the intent digest; most reads (and every 304) have neither a cursor nor a next page.
    let intent: string | undefined;
    let afterRow = -1;
    if (query.cursor !== undefined) {
      intent = recordsIntent(entity, expansions, query, purpose, principal.credentialTag);
      afterRow = runtime.cursors.decode(query.cursor, intent, dataVersion);
    }
    // Purpose, credential and cursor key too: the next page's cursor in the body and the Link header is bound to
    // the first two and signed with the last.
    const etag = strongEtag([
      'records',
      entity.datasetId,
      entity.name,
      versions,
      shapesOf(entity, expansions),
      sortedQuery(params),
      purpose ?? null,
      principal.credentialTag,
      runtime.cursors.keyId,
    ]);
    if (isNotModified(request, etag)) return notModified(reply, etag);
    const page = runCollection(table, query.filters, afterRow, query.limit);
    facts.rowCount = page.rows.length;
    const last = page.rows[page.rows.length - 1];
    let nextCursor: string | undefined;
    if (page.hasMore && last !== undefined) {
      intent ??= recordsIntent(entity, expansions, query, purpose, principal.credentialTag);
      nextCursor = runtime.cursors.encode({ i: intent, g: dataVersion, p: last });
    }
    const items = page.rows.map((row) => renderRow(generation, entity, query, expansions, row, table));
    const link = nextCursor ? `<${nextLink(request, nextCursor)}>; rel="next"` : undefined;
    const body = Buffer.from(renderPage(items, page.hasMore, nextCursor));
    if (key !== undefined) rememberPage(generation, key, { etag, body, rowCount: page.rows.length, link });
    reply.header('etag', etag);
    if (link) reply.header('link', link);
    return sendJson(reply, body);
  });

  addGetRoute(app, '/v1/datasets/:dataset_id/entities/:entity/records/:id', async (request, reply) => {
    const { facts, principal, entity, params } = await beginRowsRead(runtime, request);
    const id = (request.params as EntityParams & { id: string }).id;
    facts.recordId = id;
    // Purpose, then the expansion targets' scopes and purposes, precede parameter checks, as on the collection route.
    readPurpose(request, [entity]);
    const expand = parseExpand(entity, reserved(params, 'expand'));
    const expansions = authorizeExpansions(runtime, principal.scopes, entity, expand);
    readPurpose(request, [entity, ...expansions.map((related) => related.target)]);
    requireReadableById(entity);
    // Read before the names are checked: `fields.eq` beside `fields` is a repeat, not another parameter.
    const fieldsParam = reserved(params, 'fields');
    for (const name of Object.keys(params)) {
      if (name !== 'fields' && name !== 'expand') {
        throw relayProblem(
          'filter.not_allowed',
          `a record read accepts only \`fields\` and \`expand\`, not ${quoted(name)}`,
        );
      }
    }
    const fields = parseFields(entity, fieldsParam);
    facts.scopesUsed = [entity.scopes.rows, ...expansions.map((related) => related.target.scopes.rows)];
    const generation = requireGeneration(runtime.state);
    const live = runtime.postgres.liveTable(entity.datasetId, entity.tableId);
    if (live) return sendLiveRecord({ runtime, live, entity, facts, request, reply }, id, fields, expand);
    const row = findRow(entity, generation, id);
    const etag = strongEtag([
      'record',
      entity.datasetId,
      entity.name,
      id,
      versionsOf(generation, entity, expansions),
      shapesOf(entity, expansions),
      sortedQuery(params),
    ]);
    if (isNotModified(request, etag)) return notModified(reply, etag);
    facts.rowCount = 1;
    reply.header('etag', etag);
    return sendJson(reply, renderRow(generation, entity, { fields, expand }, expansions, row));
  });
}

/** The stages every rows read starts with: audit kind, authentication, entity and rows scope, parameters. */
async function beginRowsRead(runtime: RelayRuntime, request: RouteRequest) {
  const facts = auditFacts(request);
  facts.endpointKind = 'rows';
  const principal = await runtime.authenticate(request);
  const { dataset_id, entity: name } = request.params as EntityParams;
  const entity = resolveEntity(runtime.catalog, principal, dataset_id, name, 'rows');
  facts.datasetId = entity.datasetId;
  facts.entity = entity;
  const params = request.query as QueryParams;
  facts.query = params;
  return { facts, principal, entity, params };
}

/**
 * What a records cursor is bound to: the query, its purpose, the caller's credential and the declarations of the
 * entities the page shows (a field served from another column on a replica or after a restart is another walk).
 */
function recordsIntent(
  entity: CatalogEntity,
  expansions: readonly Related[],
  query: CollectionQuery,
  purpose: string | undefined,
  credentialTag: string,
): string {
  return intentDigest([
    'records',
    entity.datasetId,
    entity.name,
    shapesOf(entity, expansions),
    filterIntent(query.filters),
    query.fields?.map((field) => field.name) ?? null,
    query.expand,
    purpose ?? null,
    credentialTag,
  ]);
}

export function findRow(entity: CatalogEntity, generation: Generation, id: string): number {
  const table = generation.table(entity.datasetId, entity.tableId);
  const key = parseFilterValue(id, entity.primaryKey.type);
  const row = key.ok && key.value !== null ? table.rowOf(key.value) : undefined;
  if (row === undefined)
    throw relayProblem('schema.unknown_resource', `no ${entity.name} record with that id`);
  return row;
}

export function authorizeExpansions(
  runtime: RelayRuntime,
  scopes: ReadonlySet<string>,
  entity: CatalogEntity,
  names: readonly string[],
): Related[] {
  return names.map((name) => {
    const related = relatedOf(runtime.catalog, entity, name);
    // The same answer as reading the relationship itself: the expansion is allowed, the caller may not read it.
    if (!scopes.has(related.target.scopes.rows)) {
      throw platformProblem(
        'auth.scope_denied',
        `expanding \`${name}\` requires scope ${related.target.scopes.rows}`,
      );
    }
    return related;
  });
}

export function renderRow(
  generation: Generation,
  entity: CatalogEntity,
  query: Pick<CollectionQuery, 'fields' | 'expand'>,
  expansions: readonly Related[],
  row: number,
  // Callers rendering many rows pass the entity's table once instead of a lookup per row.
  table: TableSnapshot = generation.table(entity.datasetId, entity.tableId),
): string {
  if (query.fields === undefined && expansions.length === 0) return rowJson(entity, table, generation, row);
  const object = rowObject(table, query.fields ?? entity.fields, row);
  return JSON.stringify(expandRow(generation, entity, expansions, object, row));
}

export function versionsOf(
  generation: Generation,
  entity: CatalogEntity,
  expansions: readonly Related[],
): string[] {
  return [entity, ...expansions.map((related) => related.target)].map(
    (e) => generation.table(e.datasetId, e.tableId).version,
  );
}

const shapes = new WeakMap<CatalogEntity, string>();

/**
 * What an answer shows of an entity's declaration beyond its table's version: which column each field is served
 * from, the relationships an expansion follows and the cap of a has_many expanded into it. ETags cover it, so the
 * same data declared otherwise (after a restart with another config, or on a replica) never revalidates.
 */
export function shapeOf(entity: CatalogEntity): string {
  let shape = shapes.get(entity);
  if (shape === undefined) {
    shape = intentDigest([
      entity.tableId,
      entity.fields.map((field) => [field.name, field.column, field.type, field.sensitive]),
      [...entity.relationships.values()].map((r) => [r.name, r.kind, r.target, r.foreignKey]),
      entity.api.defaultLimit,
    ]);
    shapes.set(entity, shape);
  }
  return shape;
}

function shapesOf(entity: CatalogEntity, expansions: readonly Related[]): string[] {
  return [shapeOf(entity), ...expansions.map((related) => shapeOf(related.target))];
}

export function sortedQuery(params: QueryParams): [string, unknown][] {
  return Object.keys(params)
    .sort()
    .map((name) => [name, params[name]]);
}

export function notModified(reply: RouteReply, etag: string): RouteReply {
  return reply.code(304).header('etag', etag).send();
}

export function sendJson(reply: RouteReply, body: string | Buffer): RouteReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
}
