// Record reads of an entity over a live PostgreSQL table: the same envelope, cursors and error codes as snapshot
// reads, with filters, order, limit and position pushed down to the database. Live data has no version to hash,
// so these responses carry no ETag (and never answer 304).
import type { Principal } from '../../platform/auth/principal.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import type { CatalogEntity, CatalogField } from '../catalog/catalog.ts';
import { relayProblem } from '../problems.ts';
import { filterIntent, intentDigest } from '../query/cursor.ts';
import type { CollectionQuery } from '../query/parse-collection-query.ts';
import { checkDistinctKeys, type LiveLayout, liveLayout, liveRowJson } from '../query/render-live-rows.ts';
import type { RelayAuditFacts, RelayRuntime } from '../relay-runtime.ts';
import type { LiveTable } from '../sources/postgres/live-table.ts';
import { parseFilterValue } from '../store/coerce-cell.ts';
import { nextLink } from './next-link.ts';
import { sendJson, shapeOf } from './records.ts';
import { renderPage } from './render-page.ts';

export interface LiveRead {
  readonly runtime: RelayRuntime;
  readonly live: LiveTable;
  readonly entity: CatalogEntity;
  readonly facts: RelayAuditFacts;
  readonly request: RouteRequest;
  readonly reply: RouteReply;
}

// Most reads ask for every field of the entity: that layout is built once per entity, a projection's per read.
// Every filtered field is one of the entity's, so only a projection has filtered fields to read without showing.
const entityLayouts = new WeakMap<CatalogEntity, LiveLayout>();

function layoutOf(
  fields: readonly CatalogField[],
  entity: CatalogEntity,
  filtered: readonly CatalogField[] = [],
): LiveLayout {
  if (fields !== entity.fields) return liveLayout(fields, entity.primaryKey, filtered);
  let layout = entityLayouts.get(entity);
  if (layout === undefined) {
    layout = liveLayout(fields, entity.primaryKey);
    entityLayouts.set(entity, layout);
  }
  return layout;
}

/** The collection page: keyset pagination on the primary key, the cursor carrying the last key served. */
export async function sendLiveCollection(
  read: LiveRead,
  query: CollectionQuery,
  purpose: string | undefined,
  principal: Principal,
): Promise<RouteReply> {
  const { runtime, live, entity, facts, request, reply } = read;
  rejectExpansions(query.expand);
  const intent = intentDigest([
    'live-records',
    entity.datasetId,
    entity.name,
    // The entity's declaration, as for snapshot cursors: the table's own digest (live.version) does not see a
    // field served from another column.
    shapeOf(entity),
    filterIntent(query.filters),
    query.fields?.map((field) => field.name) ?? null,
    purpose ?? null,
    principal.credentialTag,
  ]);
  const after =
    query.cursor === undefined ? undefined : runtime.cursors.decodeKey(query.cursor, intent, live.version);
  const fields = query.fields ?? entity.fields;
  const layout = layoutOf(
    fields,
    entity,
    query.filters.map((filter) => filter.field),
  );
  const page = await live.readPage(
    {
      columns: layout.columns,
      filters: query.filters.map((filter) => ({
        column: filter.field.column,
        type: filter.field.type,
        op: filter.op,
        values: filter.values,
      })),
      after,
      limit: query.limit,
      wanted: stillWanted(request),
      checkRows: (rows) => checkDistinctKeys(layout, rows),
    },
    (row) => liveRowJson(layout, row),
  );
  const { items } = page;
  facts.rowCount = items.length;
  const lastKey = page.rows[page.rows.length - 1]?.[layout.keyPosition];
  const nextCursor =
    page.hasMore && typeof lastKey === 'string'
      ? runtime.cursors.encodeKey({ i: intent, g: live.version, k: lastKey })
      : undefined;
  if (nextCursor) reply.header('link', `<${nextLink(request, nextCursor)}>; rel="next"`);
  return sendJson(reply, renderPage(items, page.hasMore, nextCursor));
}

/** One record by primary key: an id that does not parse as the key's type is simply not found, as in snapshots. */
export async function sendLiveRecord(
  read: LiveRead,
  id: string,
  projection: readonly CatalogField[] | undefined,
  expand: readonly string[],
): Promise<RouteReply> {
  const { live, entity, facts, request, reply } = read;
  rejectExpansions(expand);
  const notFound = () => relayProblem('schema.unknown_resource', `no ${entity.name} record with that id`);
  const key = parseFilterValue(id, entity.primaryKey.type);
  if (!key.ok || key.value === null) throw notFound();
  const fields = projection ?? entity.fields;
  const layout = layoutOf(fields, entity);
  let record: string | undefined;
  try {
    record = await live.readByKey(
      layout.columns,
      key.value,
      (row) => liveRowJson(layout, row),
      stillWanted(request),
      (rows) => checkDistinctKeys(layout, rows),
    );
  } catch (error) {
    // An id the column's type refuses (not a uuid, say) names no record.
    if (isProblem(error) && error.code === 'filter.invalid_value') throw notFound();
    throw error;
  }
  if (record === undefined) throw notFound();
  facts.rowCount = 1;
  return sendJson(reply, record);
}

/** Whether the request still waits for its answer: not once it was answered (its client gone, its time up). */
function stillWanted(request: RouteRequest): () => boolean {
  return () => request.ctx.responding !== true;
}

/** Config validation keeps relationships away from live entities; this keeps the route honest regardless. */
function rejectExpansions(expand: readonly string[]): void {
  if (expand.length > 0) {
    throw relayProblem('expand.not_allowed', 'entities over live tables have no expandable relationships');
  }
}
