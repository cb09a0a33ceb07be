// OpenAPI path items of the aggregates the caller may discover: the dataset's list, measures and dimensions,
// each aggregate's structure, and its execution by GET (query parameters) and POST (JSON body).
import type { Principal } from '../../platform/auth/principal.ts';
import { withOperationHeaders } from '../../platform/http/openapi-operations.ts';
import { AGGREGATE_LIMITS, type CatalogAggregate } from '../aggregates/aggregate-model.ts';
import { canDiscover } from '../aggregates/authorize-aggregate.ts';
import { AGGREGATE_FORMATS } from '../aggregates/negotiate-format.ts';
import { CSV_MEDIA_TYPE } from '../aggregates/render-aggregate-csv.ts';
import { SDMX_CONTENT_TYPE } from '../aggregates/render-aggregate-sdmx.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FilterOp } from '../config/schema.ts';
import {
  ETAG_HEADER,
  jsonResponse,
  NOT_MODIFIED,
  objectWith,
  problemResponse,
  SOURCE_UNAVAILABLE,
  URI_TOO_LONG,
  VARY_ACCEPT,
  VARY_CREDENTIAL,
} from './openapi-schemas.ts';

const SCALAR = { type: ['string', 'number', 'boolean'] };
const maxRows = { type: 'integer', minimum: 1, maximum: AGGREGATE_LIMITS.maxRows };
const range = (description: string) => ({
  type: 'object',
  description,
  additionalProperties: false,
  minProperties: 1,
  properties: { from: SCALAR, to: SCALAR },
});

// Every format links the aggregate's structure; CSV, having no room for them in its body, also carries the result's
// metadata (completeness, disclosure control, freshness) as JSON in headers.
const csvHeader = (what: string) => ({
  description: `CSV only: the result's ${what}, as the JSON object native JSON gives it`,
  schema: { type: 'string', contentMediaType: 'application/json' },
});
const RESULT_HEADERS = {
  // Absolute, under the configured `base_url`, as the body's `links.structure`; a collection's `rel="next"` is
  // relative (its path and query), as the relay contract gives it.
  Link: {
    description:
      'The aggregate structure, an absolute URL under the relay `base_url`: `<https://.../structure>; rel="describedby"`',
    required: true,
    schema: { type: 'string', pattern: '^<[A-Za-z][A-Za-z0-9+.-]*://[^>]+/structure>; rel="describedby"$' },
  },
  'X-Ambit-Completeness': csvHeader('completeness'),
  'X-Ambit-Disclosure-Control': csvHeader('disclosure control'),
  'X-Ambit-Freshness': csvHeader('freshness'),
};

const errors = {
  401: problemResponse('Not authenticated'),
  403: problemResponse('Scope denied'),
  404: problemResponse('Unknown dataset or aggregate'),
};
// Lists answer `{data: [...]}`, single items (one measure, dimension or structure) an object with its `id`.
/**
 * What the lists, measures and dimensions show depends on the caller's scopes, so every answer of theirs names the
 * credential headers in `Vary`; a structure is the same for every caller allowed to see it (`vary` empty).
 */
const discovery = (
  summary: string,
  operationId: string,
  tag: string,
  body: Record<string, unknown>,
  vary: Record<string, unknown> = VARY_CREDENTIAL,
) => ({
  get: withOperationHeaders(
    {
      tags: [tag],
      operationId,
      summary,
      responses: {
        200: jsonResponse(summary, body, ETAG_HEADER),
        304: NOT_MODIFIED,
        ...errors,
      },
    },
    vary,
  ),
});
const LIST = objectWith('data');

/** Every aggregate's paths, for aggregates `principal` may discover (all of them for a public document). */
export function aggregatePaths(catalog: Catalog, principal: Principal | undefined): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const dataset of catalog.datasets.values()) {
    const visible = [...dataset.aggregates.values()].filter(
      (aggregate) => principal === undefined || canDiscover(principal, aggregate),
    );
    if (visible.length === 0) continue;
    const base = `/v1/datasets/${dataset.id}`;
    const tag = `${dataset.id} aggregates`;
    paths[`${base}/aggregates`] = discovery(
      'Aggregates of the dataset',
      `${dataset.id}.aggregates`,
      tag,
      LIST,
    );
    for (const kind of ['measures', 'dimensions'] as const) {
      paths[`${base}/${kind}`] = discovery(
        `The ${kind} of its aggregates`,
        `${dataset.id}.${kind}`,
        tag,
        LIST,
      );
      paths[`${base}/${kind}/{id}`] = {
        get: {
          ...discovery(`One of its ${kind}`, `${dataset.id}.${kind}.one`, tag, objectWith('id')).get,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        },
      };
    }
    for (const aggregate of visible) Object.assign(paths, executionPaths(aggregate, base, tag));
  }
  return paths;
}

function executionPaths(aggregate: CatalogAggregate, base: string, tag: string): Record<string, unknown> {
  const path = `${base}/aggregates/${aggregate.id}`;
  const operationId = `${aggregate.datasetId}.aggregates.${aggregate.id}`;
  const purpose = {
    name: 'Data-Purpose',
    in: 'header',
    required: aggregate.requirePurpose,
    description: 'Purpose URI or controlled string, recorded verbatim in the audit trail.',
    schema: { type: 'string' },
  };
  const list = (names: Iterable<string>) => `Comma-separated, from: ${[...names].join(', ')}`;
  // Equality is spelled `field` or `field.eq`, as on entity collections.
  const filters = [...aggregate.allowedFilters].flatMap(([name, rule]) =>
    [...rule.ops].flatMap((op) =>
      (op === 'eq' ? [name, `${name}.eq`] : [`${name}.${op}`]).map((parameter) => ({
        name: parameter,
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description:
          op === 'in'
            ? 'Comma-separated values'
            : op === 'between'
              ? 'lower,upper (inclusive)'
              : parameter === name
                ? 'eq filter'
                : `eq filter, the same as \`${name}\` (send one of the two)`,
      })),
    ),
  );
  // The body's `filters`: field -> a value (eq), a list (in) or {from, to} (gte, lte, between), as allowed.
  const bodyFilters = {
    type: 'object',
    additionalProperties: false,
    maxProperties: AGGREGATE_LIMITS.filters,
    properties: Object.fromEntries(
      [...aggregate.allowedFilters].map(([name, rule]) => {
        const forms = [
          ...(rule.ops.has('eq') ? [SCALAR] : []),
          ...(rule.ops.has('in')
            ? [{ type: 'array', items: SCALAR, minItems: 1, maxItems: AGGREGATE_LIMITS.inValues }]
            : []),
          ...(['gte', 'lte', 'between'].some((op) => rule.ops.has(op as FilterOp))
            ? [range('A range: from (gte), to (lte), or both (between)')]
            : []),
        ];
        return [name, forms.length === 1 ? forms[0] : { anyOf: forms }];
      }),
    ),
  };
  const result = {
    description: 'The aggregate result; suppressed or masked groups are result states, not errors',
    headers: { ...ETAG_HEADER, ...RESULT_HEADERS },
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/AggregateResult' } },
      [CSV_MEDIA_TYPE.split(';')[0] as string]: { schema: { type: 'string' } },
      [SDMX_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/SdmxDataMessage' } },
    },
  };
  const responses = {
    200: result,
    304: NOT_MODIFIED,
    400: problemResponse('Invalid query, filter or format'),
    ...errors,
    ...SOURCE_UNAVAILABLE,
  };
  const { 304: _notModified, ...postResponses } = responses;
  const required = aggregate.requiredFilters.length
    ? ` Requires a filter on one of: ${aggregate.requiredFilters.join(', ')}.`
    : '';
  return {
    [`${path}/structure`]: discovery(
      `Structure of ${aggregate.title}`,
      `${operationId}.structure`,
      tag,
      objectWith('aggregate_id', 'dataset_id', 'dimensions', 'measures'),
      {},
    ),
    // Every answer of an execution, refusals included, may depend on Accept.
    [path]: {
      get: withOperationHeaders(
        {
          tags: [tag],
          operationId,
          summary: aggregate.title,
          description: `${aggregate.description}${required}`.trim() || undefined,
          parameters: [
            purpose,
            { name: 'f', in: 'query', schema: { type: 'string', enum: ['json', 'csv', 'sdmx-json'] } },
            {
              name: 'measures',
              in: 'query',
              schema: { type: 'string' },
              description: list(aggregate.measures.keys()),
            },
            {
              name: 'group_by',
              in: 'query',
              schema: { type: 'string' },
              description: list(aggregate.dimensions.keys()),
            },
            { name: 'max_rows', in: 'query', schema: maxRows },
            ...filters,
          ],
          responses: { ...responses, ...URI_TOO_LONG },
        },
        VARY_ACCEPT,
      ),
    },
    [`${path}/query`]: {
      post: withOperationHeaders(
        {
          tags: [tag],
          operationId: `${operationId}.query`,
          summary: `${aggregate.title} (query in the body)`,
          parameters: [purpose],
          requestBody: {
            // No body is the empty query: the aggregate's defaults.
            required: false,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    measures: { type: 'array', items: { enum: [...aggregate.measures.keys()] } },
                    indicators: {
                      type: 'array',
                      items: { enum: [...aggregate.measures.keys()] },
                      deprecated: true,
                      description: 'The old name of `measures`: send one of the two',
                    },
                    group_by: { type: 'array', items: { enum: [...aggregate.dimensions.keys()] } },
                    filters: bodyFilters,
                    ...(aggregate.temporal ? { temporal: range(`Range on ${aggregate.temporal.path}`) } : {}),
                    max_rows: maxRows,
                    format: { type: 'string', enum: [...AGGREGATE_FORMATS] },
                  },
                },
                example: { group_by: aggregate.defaultGroupBy },
              },
            },
          },
          // A POST is never answered 304: a matching If-None-Match is refused (RFC 9110 §13.1.2).
          responses: {
            ...postResponses,
            412: problemResponse('If-None-Match matched the ETag of the answer'),
            413: problemResponse('Body too large'),
            415: problemResponse('Body not application/json'),
          },
        },
        VARY_ACCEPT,
      ),
    },
  };
}
