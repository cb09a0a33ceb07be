// Aggregate execution: GET with query parameters and POST .../query with a JSON body, as JSON, CSV or SDMX-JSON.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { authenticated, authenticateFirst } from '../../platform/auth/authenticate-first.ts';
import { codedBodyProblem, hasContentCoding } from '../../platform/http/content-coding.ts';
import { hasDuplicateMember } from '../../platform/http/duplicate-members.ts';
import { isNotModified } from '../../platform/http/etag.ts';
import { addGetRoute } from '../../platform/http/fast-lane.ts';
import { quoted } from '../../platform/http/quote-client-text.ts';
import { duplicateMemberProblem, utf8Body } from '../../platform/http/read-json-body.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import { addVary } from '../../platform/http/vary.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import { relayProblem } from '../problems.ts';
import { type QueryParams, reserved } from '../query/parse-collection-query.ts';
import type { RelayRuntime } from '../relay-runtime.ts';
import { notModified } from '../routes/records.ts';
import { readPurpose, requireGeneration } from '../routes/resolve-entity.ts';
import type { CellKey } from '../store/column.ts';
import { compareKeys } from '../store/compare-keys.ts';
import type { Generation } from '../store/generation.ts';
import type { CatalogAggregate } from './aggregate-model.ts';
import {
  type CachedAnswer,
  cachedAnswer,
  knownRequest,
  rememberAnswer,
  rememberRequest,
} from './answer-cache.ts';
import { answerEtag, columnsRead } from './answer-etag.ts';
import {
  aggregateAuditFacts,
  hideUndiscoverable,
  lookupAggregate,
  requireExecution,
} from './authorize-aggregate.ts';
import { computeAggregate } from './compute-aggregate.ts';
import { aggregateUrl, describeAggregate, dimensionJson } from './describe-aggregate.ts';
import { type AggregateFormat, negotiateFormat } from './negotiate-format.ts';
import type { AggregateFilter } from './parse-aggregate-filters.ts';
import {
  type AggregateQuery,
  bodyFormat,
  parseAggregateBody,
  parseAggregateParams,
} from './parse-aggregate-request.ts';
import { CSV_MEDIA_TYPE, renderAggregateCsv } from './render-aggregate-csv.ts';
import { renderAggregateJson } from './render-aggregate-json.ts';
import { renderAggregateSdmx, SDMX_CONTENT_TYPE } from './render-aggregate-sdmx.ts';
import type { AggregateResponse } from './result-metadata.ts';
import { holdsUnderflowingNumber } from './underflowing-numbers.ts';

interface AggregateParams {
  dataset_id: string;
  aggregate_id: string;
}

const QUERY_PATH = '/v1/datasets/:dataset_id/aggregates/:aggregate_id/query';

export function registerAggregateQueryRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  const baseUrl = runtime.catalog.config.catalog.base_url.replace(/\/$/, '');

  addGetRoute(app, '/v1/datasets/:dataset_id/aggregates/:aggregate_id', (request, reply) =>
    runAggregate(runtime, baseUrl, request, reply, 'GET', undefined),
  );

  // The credential is checked before the body is read (onRequest runs before the content parser): a caller
  // without one is answered 401 whatever it sends. The body is read raw in this scope and parsed only after the
  // scopes and purpose too, so a caller without rights learns nothing from body errors.
  const authenticate = authenticateFirst(runtime.authenticate, (request) => {
    aggregateAuditFacts(request).endpointKind = 'aggregate';
  });
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post<{ Params: AggregateParams }>(
      QUERY_PATH,
      {
        onRequest: async (request, reply) => {
          addVary(reply, 'Accept');
          await authenticate(request);
        },
      },
      (request, reply) => runAggregate(runtime, baseUrl, request, reply, 'POST', request.body),
    );
  });
}

async function runAggregate(
  runtime: RelayRuntime,
  baseUrl: string,
  request: RouteRequest,
  reply: RouteReply,
  method: 'GET' | 'POST',
  /** The raw POST body (a Buffer, read after authentication); undefined for a GET. */
  rawBody: unknown,
): Promise<RouteReply> {
  const facts = aggregateAuditFacts(request);
  facts.endpointKind = 'aggregate';
  // Every answer, errors included, may depend on Accept.
  addVary(reply, 'Accept');
  const principal = await authenticated(runtime.authenticate, request);
  const { dataset_id: datasetId, aggregate_id: aggregateId } = request.params as AggregateParams;
  const aggregate = lookupAggregate(runtime.catalog, principal, datasetId, aggregateId, 'aggregate');
  // Before the execution scopes: their 403 would confirm what discovery hides.
  hideUndiscoverable(principal, aggregate);
  facts.datasetId = aggregate.datasetId;
  facts.aggregate = aggregate;
  facts.entity = aggregate.source;
  facts.scopesUsed = requireExecution(principal, aggregate);
  readPurpose(request, aggregate.entitiesRead);
  const params = request.query as QueryParams;
  const current = runtime.state.generation;
  const key = method === 'GET' && current !== undefined ? requestKey(aggregate, request) : undefined;
  let known = key === undefined ? undefined : knownRequest(current as Generation, key);
  if (known === undefined) {
    if (method === 'GET') facts.query = params;
    const body = method === 'POST' ? readJsonBody(request, params, rawBody) : undefined;
    const format = negotiateFormat({
      f: reserved(params, 'f'),
      bodyFormat: method === 'POST' ? bodyFormat(body) : undefined,
      accept: request.headers.accept,
    });
    const query =
      method === 'POST' ? parseAggregateBody(aggregate, body) : parseAggregateParams(aggregate, params);
    const generation = requireGeneration(runtime.state);
    const versions = aggregate.entitiesRead.map((e) => generation.table(e.datasetId, e.tableId).version);
    known = {
      query,
      format,
      // The method is part of the tag because GET and POST answers link to themselves differently. The data time
      // the body states is not (see answer-etag.ts): equal data is tagged alike by every process.
      etag: answerEtag({
        method,
        datasetId: aggregate.datasetId,
        aggregateId: aggregate.id,
        definition: definitionDigest(aggregate, baseUrl),
        versions,
        query: normalisedQuery(query),
        format,
      }),
      // Recorded in one canonical shape (`path.op` names) whichever way the query was sent.
      // Frozen: shared by every request that repeats this one (the audit record remembers its redaction).
      auditQuery: Object.freeze(auditParams(query, format)),
    };
    if (key !== undefined && generation === current) rememberRequest(generation, key, known);
  }
  const { query, format, etag } = known;
  facts.query = known.auditQuery;
  const generation = requireGeneration(runtime.state);
  if (isNotModified(request, etag)) {
    // RFC 9110 §13.1.2: only GET and HEAD are answered 304; a POST whose tag matches is not performed but refused.
    if (method === 'GET') return notModified(reply, etag);
    throw platformProblem('http.precondition_failed', 'the answer matches the If-None-Match sent');
  }
  let answer = cachedAnswer(generation, etag);
  if (!answer) {
    answer = answerOf(generation, aggregate, query, format, {
      digest: createHash('sha256').update(etag).digest('hex').slice(0, 16),
      links: linksOf(baseUrl, aggregate, query, format, method),
    });
    rememberAnswer(generation, etag, answer);
  }
  facts.rowCount = answer.rowCount;
  facts.suppressedGroups = answer.suppressedGroups;
  reply.header('etag', etag);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  return reply.send(answer.body);
}

function answerOf(
  generation: Generation,
  aggregate: CatalogAggregate,
  query: AggregateQuery,
  format: AggregateFormat,
  context: Pick<AggregateResponse, 'digest' | 'links'>,
): CachedAnswer {
  const result = computeAggregate(generation, aggregate, query);
  // The answer is a function of the data alone, so it is stamped with the data's time rather than the clock's:
  // every process, and every repeat after the answer left the cache, sends the same bytes under the same ETag.
  const asOf = dataTime(generation, aggregate);
  const response: AggregateResponse = { aggregate, query, result, asOf, computedAt: asOf, ...context };
  const describedBy = { link: `<${context.links.structure}>; rel="describedby"` };
  const counts = { rowCount: result.observations.length, suppressedGroups: result.suppressedGroups };
  switch (format) {
    case 'json':
      return {
        body: renderAggregateJson(response),
        headers: { 'content-type': 'application/json; charset=utf-8', ...describedBy },
        ...counts,
      };
    case 'csv': {
      const csv = renderAggregateCsv(response);
      return {
        body: csv.body,
        headers: { 'content-type': CSV_MEDIA_TYPE, ...describedBy, ...csv.headers },
        ...counts,
      };
    }
    case 'sdmx-json':
      // A Buffer keeps the media type exactly as SDMX REST names it (no charset parameter appended).
      return {
        body: Buffer.from(renderAggregateSdmx(response)),
        headers: { 'content-type': SDMX_CONTENT_TYPE, ...describedBy },
        ...counts,
      };
  }
}

/**
 * The time of the data an aggregate reads: the newest modification time of its source files. A PostgreSQL
 * snapshot has none, so its load time stands in (kept while reloads find the same data).
 */
function dataTime(generation: Generation, aggregate: CatalogAggregate): number {
  return Math.max(
    ...aggregate.entitiesRead.map((e) => {
      const table = generation.table(e.datasetId, e.tableId);
      return table.modifiedAt ?? table.loadedAt;
    }),
  );
}

const definitions = new WeakMap<CatalogAggregate, string>();

/**
 * The declaration an answer is computed and rendered under: another deployment of the same files with another
 * minimum cell size, measure or label answers otherwise, so it must not share the ETag (a client would be told
 * its old answer is current), and so does one whose entities serve a field from another column. Column
 * nullability decides which status columns the answer carries.
 */
function definitionDigest(aggregate: CatalogAggregate, baseUrl: string): string {
  let digest = definitions.get(aggregate);
  if (digest === undefined) {
    const nullable = [...aggregate.measures.values()].map(
      (measure) => measure.column?.field.nullable ?? null,
    );
    const text = JSON.stringify([describeAggregate(aggregate, baseUrl), nullable, columnsRead(aggregate)]);
    digest = createHash('sha256').update(text).digest('hex');
    definitions.set(aggregate, digest);
  }
  return digest;
}

/** A GET request's cache key: the aggregate, its query string and the Accept header it was negotiated with. */
function requestKey(aggregate: CatalogAggregate, request: RouteRequest): string {
  const at = request.url.indexOf('?');
  const query = at < 0 ? '' : request.url.slice(at + 1);
  return `${aggregate.datasetId}\u0000${aggregate.id}\u0000${query}\u0000${request.headers.accept ?? ''}`;
}

/** The body as JSON; a POST takes only `f` from the query string. */
function readJsonBody(request: RouteRequest, params: QueryParams, raw: unknown): unknown {
  for (const name of Object.keys(params)) {
    if (name !== 'f') {
      throw relayProblem(
        'aggregate.invalid_query',
        `a query POST takes its query in the JSON body; only \`f\` is accepted in the URL, not ${quoted(name)}`,
      );
    }
  }
  if (!Buffer.isBuffer(raw)) return undefined;
  if (hasContentCoding(request.headers)) throw codedBodyProblem();
  const text = utf8Body(raw);
  if (text.trim() === '') return undefined;
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && !type.endsWith('+json'))
    throw platformProblem('http.unsupported_media_type', 'send the query as application/json');
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw platformProblem('http.invalid_body', 'The body is not valid JSON.');
  }
  // Named twice, a member's first value would be read by nothing but could be read by a proxy or a log reader.
  if (hasDuplicateMember(text)) throw duplicateMemberProblem();
  if (holdsUnderflowingNumber(text)) {
    throw relayProblem(
      'filter.invalid_value',
      'a number in the body is not zero but below the smallest double (it would compare as 0)',
    );
  }
  return value;
}

/** The query's filters in a canonical order: by field path, then operator. */
function sortedFilters(query: AggregateQuery): AggregateQuery['filters'] {
  return [...query.filters].sort((a, b) =>
    a.path.path === b.path.path ? (a.op < b.op ? -1 : 1) : a.path.path < b.path.path ? -1 : 1,
  );
}

/** What the answer depends on, in a canonical order (filters sorted), for the ETag. */
function normalisedQuery(query: AggregateQuery): unknown {
  return {
    measures: query.measures.map((measure) => measure.id),
    group_by: query.groupBy.map((dimension) => dimension.id),
    filters: sortedFilters(query).map((filter) => [filter.path.path, filter.op, filter.values]),
    max_rows: query.maxRows,
  };
}

/**
 * The query as GET parameters in one spelling, whatever spelling or method it came in: every member explicit,
 * filters sorted, values as their field type writes them. The answer's links are built from it, so the body is a
 * function of what its ETag covers, and a POST's alternates run the posted query.
 */
function canonicalParams(aggregate: CatalogAggregate, query: AggregateQuery): URLSearchParams {
  const params = new URLSearchParams();
  params.set('measures', query.measures.map((measure) => measure.id).join(','));
  params.set('group_by', query.groupBy.map((dimension) => dimension.id).join(','));
  const text = (filter: AggregateFilter, value: CellKey) => String(dimensionJson(filter.path, value));
  // A field's lower (gte) and upper (lte) bounds: where a query holds two of one kind, the tighter is their AND.
  const bounds = new Map<string, CellKey>();
  const bound = (filter: AggregateFilter, op: 'gte' | 'lte', value: CellKey) => {
    const name = `${filter.path.path}.${op}`;
    const earlier = bounds.get(name);
    const order = earlier === undefined ? 0 : compareKeys(value, earlier);
    if (earlier === undefined || (op === 'gte' ? order > 0 : order < 0)) {
      bounds.set(name, value);
      params.set(name, text(filter, value));
    }
  };
  for (const filter of sortedFilters(query)) {
    const path = filter.path.path;
    // A temporal range may be `between` where GET allows only its bounds: written as them.
    if (filter.op === 'between' && !aggregate.allowedFilters.get(path)?.ops.has('between')) {
      bound(filter, 'gte', filter.values[0] as CellKey);
      bound(filter, 'lte', filter.values[1] as CellKey);
      continue;
    }
    if (filter.op === 'gte' || filter.op === 'lte') {
      bound(filter, filter.op, filter.values[0] as CellKey);
      continue;
    }
    const name = filter.op === 'eq' ? path : `${path}.${filter.op}`;
    params.set(name, filter.values.map((value) => text(filter, value)).join(','));
  }
  params.set('max_rows', String(query.maxRows));
  return params;
}

/** A POST query as GET-style parameters, so the audit record hashes filter values as for a GET. */
function auditParams(query: AggregateQuery, format: AggregateFormat): Record<string, string> {
  const params: Record<string, string> = {
    f: format,
    measures: query.measures.map((measure) => measure.id).join(','),
    group_by: query.groupBy.map((dimension) => dimension.id).join(','),
    max_rows: String(query.maxRows),
  };
  for (const filter of query.filters) params[`${filter.path.path}.${filter.op}`] = filter.values.join(',');
  return params;
}

function linksOf(
  baseUrl: string,
  aggregate: CatalogAggregate,
  query: AggregateQuery,
  format: AggregateFormat,
  method: 'GET' | 'POST',
): AggregateResponse['links'] {
  const url = aggregateUrl(baseUrl, aggregate);
  const withFormat = (f: string) => {
    const params = canonicalParams(aggregate, query);
    params.set('f', f);
    return `${url}?${params.toString()}`;
  };
  return {
    self: method === 'GET' ? withFormat(format) : `${url}/query`,
    structure: `${url}/structure`,
    json: withFormat('json'),
    csv: withFormat('csv'),
    sdmx: withFormat('sdmx-json'),
  };
}
