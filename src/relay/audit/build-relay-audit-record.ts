// The relay's audit record (relay contract §2.12 field set): ids and sensitive values only as keyed hashes.
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import { keyedHash, redactQueryParams } from '../../platform/audit/keyed-hash.ts';
import type { AggregateAuditFacts } from '../aggregates/authorize-aggregate.ts';

export interface RelayAuditContext {
  readonly secret: Buffer;
  readonly now: number;
}

export function buildRelayAuditRecord(
  request: RouteRequest,
  reply: RouteReply,
  context: RelayAuditContext,
): Record<string, unknown> {
  const ctx = request.ctx;
  const facts = ctx.audit as AggregateAuditFacts;
  const entity = facts.entity;
  const status = reply.statusCode;
  const path = templatedPath(request);
  return {
    ts: new Date(context.now).toISOString(),
    request_id: ctx.requestId,
    client_request_id: ctx.clientRequestId ?? null,
    principal_id: ctx.principal?.id ?? null,
    auth_mode: ctx.principal?.authMode ?? null,
    remote_addr: request.ip,
    method: request.method,
    path,
    endpoint_kind: facts.endpointKind ?? 'other',
    dataset_id: facts.datasetId ?? null,
    entity_name: entity?.name ?? null,
    table_id_hash: entity ? tableHash(context.secret, entity) : null,
    relationship: facts.relationship ?? null,
    aggregate_id: facts.aggregate?.id ?? null,
    primary_key:
      facts.recordId !== undefined && entity
        ? keyedHash(context.secret, `primary_key:${entity.datasetId}:${entity.name}`, facts.recordId)
        : null,
    scopes_used: facts.scopesUsed ?? [],
    query_params: facts.query ? redactedQuery(facts, context.secret) : {},
    purpose: rawPurpose(request),
    status_code: status,
    row_count: facts.rowCount ?? null,
    suppressed_groups: facts.suppressedGroups ?? null,
    duration_ms: Math.max(0, context.now - ctx.startedAt),
    error_code: status >= 400 ? (ctx.errorCode ?? null) : null,
  };
}

const AGGREGATE_PARAMS: ReadonlySet<string> = new Set(['f', 'group_by', 'measures', 'max_rows']);

function redactedQuery(facts: AggregateAuditFacts, secret: Buffer) {
  const entity = facts.entity;
  const aggregate = facts.aggregate;
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(facts.query ?? {}))
    if (value !== undefined) params[name] = value;
  return redactQueryParams(params, {
    secret,
    domain: entity ? `query:${entity.datasetId}:${entity.name}` : 'query',
    // Unknown names are treated as sensitive: their values are hashed, never kept.
    sensitive: (field) =>
      (aggregate
        ? aggregate.allowedFilters.get(field)?.path.field.sensitive
        : entity?.fieldByName.get(field)?.sensitive) ?? true,
    ...(aggregate ? { reserved: AGGREGATE_PARAMS } : {}),
  });
}

/** `Data-Purpose` is recorded verbatim, as sent. */
function rawPurpose(request: RouteRequest): string | null {
  const value = request.headers['data-purpose'];
  return typeof value === 'string' ? value : null;
}

/** The route pattern with dataset and entity filled in and the record id left as `{id}`. */
function templatedPath(request: RouteRequest): string {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return request.url.split('?')[0] ?? '';
  const params = request.params as Record<string, string | undefined>;
  let out = '';
  for (const part of patternParts(pattern)) {
    if (part.param === undefined) out += part.text;
    else out += part.param === 'id' ? '{id}' : (params[part.param] ?? part.text);
  }
  return out;
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
    hash = keyedHash(secret, 'table', `${entity.datasetId}/${entity.tableId}`);
    tableHashes.set(entity, hash);
  }
  return hash;
}
