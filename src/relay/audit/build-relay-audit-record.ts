// The relay's audit record (relay contract §2.12 field set): ids and sensitive values only as keyed hashes.
import {
  isoTimestamp,
  jsonNullableNumber,
  jsonNullableString,
  jsonString,
  jsonStringArray,
} from '../../platform/audit/json-text.ts';
import { keyedHash, redactedQueryJson } from '../../platform/audit/keyed-hash.ts';
import { UNROUTED_PATH } from '../../platform/audit/unrouted-path.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import type { AggregateAuditFacts } from '../aggregates/authorize-aggregate.ts';
import { FILTER_OPS } from '../config/schema-parts.ts';

export interface RelayAuditContext {
  readonly secret: Buffer;
  readonly now: number;
}

/**
 * The record as JSON text (what JSON.stringify would write for the object of these fields in this order): it is
 * built for every response, and text costs a fraction of an object serialised afterwards.
 */
export function buildRelayAuditRecord(
  request: RouteRequest,
  reply: RouteReply,
  context: RelayAuditContext,
): string {
  const ctx = request.ctx;
  const facts = ctx.audit as AggregateAuditFacts;
  const entity = facts.entity;
  const status = reply.statusCode;
  const principal = ctx.principal;
  const primaryKey =
    facts.recordId !== undefined && entity
      ? keyedHash(context.secret, `primary_key:${entity.datasetId}:${entity.name}`, facts.recordId)
      : null;
  return (
    `{"ts":"${isoTimestamp(context.now)}"` +
    `,"request_id":${jsonString(ctx.requestId)}` +
    `,"client_request_id":${jsonNullableString(ctx.clientRequestId)}` +
    `,"principal_id":${jsonNullableString(principal?.id)}` +
    `,"auth_mode":${jsonNullableString(principal?.authMode)}` +
    `,"remote_addr":${jsonNullableString(request.ip)}` +
    `,"method":${jsonString(request.method)}` +
    `,"path":${jsonString(templatedPath(request, facts))}` +
    `,"endpoint_kind":${jsonString(facts.endpointKind ?? 'other')}` +
    `,"dataset_id":${jsonNullableString(facts.datasetId)}` +
    `,"entity_name":${jsonNullableString(entity?.name)}` +
    `,"table_id_hash":${jsonNullableString(tableIdHash(facts, context.secret))}` +
    `,"relationship":${jsonNullableString(facts.relationship)}` +
    `,"aggregate_id":${jsonNullableString(facts.aggregate?.id)}` +
    `,"primary_key":${jsonNullableString(primaryKey)}` +
    `,"scopes_used":${jsonStringArray(distinct(facts.scopesUsed ?? []))}` +
    `,"query_params":${facts.query ? redactedQuery(facts, context.secret) : '{}'}` +
    `,"purpose":${jsonNullableString(rawPurpose(request))}` +
    `,"status_code":${status}` +
    `,"row_count":${jsonNullableNumber(facts.rowCount)}` +
    `,"suppressed_groups":${jsonNullableNumber(facts.suppressedGroups)}` +
    `,"duration_ms":${Math.max(0, context.now - ctx.startedAt)}` +
    `,"error_code":${status >= 400 ? jsonNullableString(ctx.errorCode) : 'null'}}`
  );
}

const AGGREGATE_PARAMS: ReadonlySet<string> = new Set(['f', 'group_by', 'measures', 'max_rows']);

// Query objects shared by many requests (the fast lane's remembered matches, known aggregate requests) are frozen;
// their redacted form is remembered with them. Objects of a single request are not: remembering them would only
// load the garbage collector.
const redactedShared = new WeakMap<object, { readonly owner: object | undefined; readonly json: string }>();

function redactedQuery(facts: AggregateAuditFacts, secret: Buffer): string {
  const query = facts.query ?? {};
  const owner = facts.aggregate ?? facts.entity;
  if (!Object.isFrozen(query)) return redact(query, facts, secret);
  const known = redactedShared.get(query);
  if (known !== undefined && known.owner === owner) return known.json;
  const json = redact(query, facts, secret);
  redactedShared.set(query, { owner, json });
  return json;
}

const FILTER_OP_NAMES: ReadonlySet<string> = new Set(FILTER_OPS);

function redact(
  query: NonNullable<AggregateAuditFacts['query']>,
  facts: AggregateAuditFacts,
  secret: Buffer,
): string {
  const entity = facts.entity;
  const aggregate = facts.aggregate;
  return redactedQueryJson(query, {
    secret,
    domain: entity ? `query:${entity.datasetId}:${entity.name}` : 'query',
    // Unknown names are treated as sensitive: their values are hashed, never kept.
    sensitive: (field) =>
      (aggregate
        ? aggregate.allowedFilters.get(field)?.path.field.sensitive
        : entity?.fieldByName.get(field)?.sensitive) ?? true,
    ...(aggregate ? { reserved: AGGREGATE_PARAMS } : {}),
    // Names other than the entity's fields (or the aggregate's filters) with their operators are not written out.
    known: {
      field: (field) =>
        (aggregate ? aggregate.allowedFilters.has(field) : entity?.fieldByName.has(field)) ?? false,
      ops: FILTER_OP_NAMES,
    },
  });
}

/** `Data-Purpose` is recorded verbatim, as sent. */
function rawPurpose(request: RouteRequest): string | null {
  const value = request.headers['data-purpose'];
  return typeof value === 'string' ? value : null;
}

/** Each scope once: an expansion or relationship within one dataset uses the same rows scope twice. */
function distinct(scopes: readonly string[]): readonly string[] {
  return scopes.length < 2 ? scopes : [...new Set(scopes)];
}

/** The hash of the table the request read (its entity's), or reloaded (the admin table route). */
function tableIdHash(facts: AggregateAuditFacts, secret: Buffer): string | null {
  if (facts.entity) return tableHash(secret, facts.entity);
  if (facts.tableId === undefined || facts.datasetId === undefined) return null;
  return tableKeyHash(secret, facts.datasetId, facts.tableId);
}

/**
 * The route pattern, with the dataset, entity, relationship and aggregate filled in once the request resolved them
 * to what the config declares; every other parameter, and one that named nothing declared (the client's text,
 * which may be an identifier: `/v1/datasets/FAKE-412781/...`), stays `{name}`. Record ids and table ids appear as
 * keyed hashes in their own fields.
 */
function templatedPath(request: RouteRequest, facts: AggregateAuditFacts): string {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return UNROUTED_PATH;
  const params = request.params as Record<string, string | undefined>;
  let out = '';
  for (const part of patternParts(pattern)) {
    if (part.param === undefined) {
      out += part.text;
      continue;
    }
    const value = params[part.param];
    out += value !== undefined && declared(part.param, value, facts) ? value : `{${part.param}}`;
  }
  return out;
}

function declared(param: string, value: string, facts: AggregateAuditFacts): boolean {
  switch (param) {
    case 'dataset_id':
      // Set by the routes only once the dataset is found (and visible to the caller).
      return facts.datasetId === value;
    case 'entity':
      return facts.entity?.name === value;
    case 'relationship':
      return facts.entity?.relationships.has(value) === true;
    case 'aggregate_id':
      return facts.aggregate?.id === value;
    default:
      return false;
  }
}

type PatternPart = { readonly text: string; readonly param?: string };
const patternCache = new Map<string, readonly PatternPart[]>();

/** A route pattern split once into literal text and `:name` parameters (the set of patterns is fixed). */
function patternParts(pattern: string): readonly PatternPart[] {
  let parts = patternCache.get(pattern);
  if (parts === undefined) {
    parts = pattern
      .split(/(:[a-z_]+)/)
      .filter((text) => text !== '')
      .map((text) => (text.startsWith(':') ? { text, param: text.slice(1) } : { text }));
    patternCache.set(pattern, parts);
  }
  return parts;
}

const tableHashes = new WeakMap<object, string>();

// The table id behind an entity never changes, so its keyed hash is computed once per entity.
function tableHash(secret: Buffer, entity: { datasetId: string; tableId: string }): string {
  let hash = tableHashes.get(entity);
  if (hash === undefined) {
    hash = tableKeyHash(secret, entity.datasetId, entity.tableId);
    tableHashes.set(entity, hash);
  }
  return hash;
}

function tableKeyHash(secret: Buffer, datasetId: string, tableId: string): string {
  return keyedHash(secret, 'table', `${datasetId}/${tableId}`);
}
