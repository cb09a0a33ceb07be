// OpenAPI path items of one entity: schema, collection (with its filters), record and relationships.
import { withOperationHeaders } from '../../platform/http/openapi-operations.ts';
import { type CatalogEntity, isReadableById } from '../catalog/catalog.ts';
import { entitySchemaSchema } from './dataset-paths.ts';
import {
  ETAG_HEADER,
  fieldSchema,
  jsonResponse,
  NEXT_LINK_HEADER,
  NOT_MODIFIED,
  problemResponse,
  SOURCE_UNAVAILABLE,
  schemaName,
  URI_TOO_LONG,
  VARY_CREDENTIAL,
  VARY_PAGE,
} from './openapi-schemas.ts';

const errors = {
  400: problemResponse('Invalid request (filter, limit, cursor, purpose)'),
  401: problemResponse('Not authenticated'),
  403: problemResponse('Scope denied'),
  404: problemResponse('Unknown resource'),
};

const page = (items: unknown) => ({
  type: 'object',
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', items }, pagination: { $ref: '#/components/schemas/Pagination' } },
});

// Reads of a live PostgreSQL table: the database's own failures, besides the 503 of an unreachable one.
const LIVE_FAILURES = {
  502: problemResponse(
    'The database refused the read (`datasource.query_failed`), or answered a row that does not fit the declared schema (`datasource.row_invalid`)',
  ),
  504: problemResponse('The read outlasted the source `query_timeout` or a lock wait (`datasource.timeout`)'),
};

/**
 * `visible(target)`: the related entity when the document may name it (the caller holds its metadata scope).
 * `live`: the entity reads a live PostgreSQL table, which has no data version: its reads carry no ETag and never
 * answer 304, and may fail as the database does.
 */
export function entityPaths(
  entity: CatalogEntity,
  schema: string,
  visible: (target: string) => CatalogEntity | undefined,
  live = false,
): Record<string, unknown> {
  // Conditional reads need a validator, which live rows do not have.
  const etag = live ? {} : ETAG_HEADER;
  const notModified = live ? {} : { 304: NOT_MODIFIED };
  const liveFailures = live ? LIVE_FAILURES : {};
  const base = `/v1/datasets/${entity.datasetId}/entities/${entity.name}`;
  // Expansions into entities the caller cannot see are not offered.
  const expand = expandParameter(
    [...entity.api.allowedExpansions].filter((name) => {
      const target = entity.relationships.get(name)?.target;
      return target !== undefined && visible(target) !== undefined;
    }),
  );
  const ref = { $ref: `#/components/schemas/${schema}` };
  const purpose = {
    name: 'Data-Purpose',
    in: 'header',
    required: entity.api.requirePurpose,
    description: 'Purpose URI or controlled string, recorded verbatim in the audit trail.',
    schema: { type: 'string' },
  };
  const tag = `${entity.datasetId}.${entity.name}`;
  const paths: Record<string, unknown> = {
    [`${base}/schema`]: {
      get: withOperationHeaders(
        {
          tags: [tag],
          operationId: `${tag}.schema`,
          summary: `Schema of ${entity.name}`,
          responses: {
            200: jsonResponse('Entity schema', entitySchemaSchema(), ETAG_HEADER),
            304: NOT_MODIFIED,
            ...errors,
          },
        },
        VARY_CREDENTIAL,
      ),
    },
    [`${base}/records`]: {
      get: withOperationHeaders(
        {
          tags: [tag],
          operationId: `${tag}.records`,
          summary: `List ${entity.title}`,
          description: entity.api.requiredFilters.length
            ? `Requires an equality filter on one of: ${entity.api.requiredFilters.join(', ')}.`
            : undefined,
          parameters: [purpose, ...pagingParameters(entity, expand), ...filterParameters(entity)],
          responses: {
            200: jsonResponse('A page of records', page(ref), { ...etag, ...NEXT_LINK_HEADER }),
            ...notModified,
            413: problemResponse('Too many filter values'),
            ...URI_TOO_LONG,
            ...errors,
            ...SOURCE_UNAVAILABLE,
            ...liveFailures,
          },
        },
        VARY_PAGE,
      ),
    },
  };
  // A record (and so its relationships) is read by its id only when the key is among the required filters, if any:
  // the routes refuse the rest (entity.filter_required), so the document does not offer them.
  if (!isReadableById(entity)) return paths;
  paths[`${base}/records/{id}`] = {
    get: {
      tags: [tag],
      operationId: `${tag}.record`,
      summary: `One ${entity.name} record by ${entity.primaryKey.name}`,
      parameters: [
        { name: 'id', in: 'path', required: true, schema: fieldSchema(entity.primaryKey) },
        purpose,
        {
          name: 'fields',
          in: 'query',
          schema: { type: 'string' },
          description: 'Comma-separated projection',
        },
        ...expand,
      ],
      responses: {
        200: jsonResponse('The record', ref, live ? undefined : ETAG_HEADER),
        ...notModified,
        ...errors,
        ...SOURCE_UNAVAILABLE,
        ...liveFailures,
      },
    },
  };
  for (const rel of entity.relationships.values()) {
    const target = visible(rel.target);
    if (target === undefined) continue;
    const related = { $ref: `#/components/schemas/${schemaName(target)}` };
    paths[`${base}/records/{id}/relationships/${rel.name}`] = {
      get: withOperationHeaders(
        {
          tags: [tag],
          operationId: `${tag}.${rel.name}`,
          summary: `${rel.kind} ${rel.target}`,
          parameters: [
            { name: 'id', in: 'path', required: true, schema: fieldSchema(entity.primaryKey) },
            // The read needs a purpose when either end of the relationship requires one.
            { ...purpose, required: entity.api.requirePurpose || target.api.requirePurpose },
            ...(rel.kind === 'has_many'
              ? [
                  {
                    name: 'limit',
                    in: 'query',
                    schema: {
                      type: 'integer',
                      minimum: 1,
                      maximum: target.api.maxLimit,
                      default: target.api.defaultLimit,
                    },
                  },
                  { name: 'cursor', in: 'query', schema: { type: 'string' } },
                ]
              : []),
          ],
          responses: {
            // has_many answers a page; belongs_to and has_one the related record.
            200:
              rel.kind === 'has_many'
                ? jsonResponse('Related records', page(related), { ...ETAG_HEADER, ...NEXT_LINK_HEADER })
                : jsonResponse('The related record', related, ETAG_HEADER),
            304: NOT_MODIFIED,
            ...errors,
            ...SOURCE_UNAVAILABLE,
          },
        },
        VARY_PAGE,
      ),
    };
  }
  return paths;
}

function pagingParameters(entity: CatalogEntity, expand: readonly unknown[]) {
  return [
    {
      name: 'limit',
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: entity.api.maxLimit, default: entity.api.defaultLimit },
    },
    {
      name: 'cursor',
      in: 'query',
      schema: { type: 'string' },
      description: 'Opaque `next_cursor` of the previous page',
    },
    { name: 'fields', in: 'query', schema: { type: 'string' }, description: 'Comma-separated projection' },
    ...expand,
  ];
}

function expandParameter(names: readonly string[]) {
  if (names.length === 0) return [];
  return [
    {
      name: 'expand',
      in: 'query',
      schema: { type: 'string' },
      description: `Comma-separated: ${names.join(', ')}`,
    },
  ];
}

/**
 * A filter parameter per allowed operator, and for equality both spellings the relay reads, `field` and `field.eq`.
 * A value is the field's type, never null: a query string has no null, and the relay refuses an empty value.
 */
function filterParameters(entity: CatalogEntity) {
  return [...entity.api.allowedFilters].flatMap(([name, ops]) => {
    const field = entity.fieldByName.get(name);
    if (!field) return [];
    const value = fieldSchema({ ...field, nullable: false });
    return [...ops].flatMap((op) => {
      if (op === 'eq') {
        return [
          { name, in: 'query', schema: value, description: 'eq filter' },
          {
            name: `${name}.eq`,
            in: 'query',
            schema: value,
            description: `eq filter, the same as \`${name}\` (send one of the two)`,
          },
        ];
      }
      return [
        {
          name: `${name}.${op}`,
          in: 'query',
          schema: op === 'in' || op === 'between' ? { type: 'string' } : value,
          description:
            op === 'in'
              ? 'Comma-separated values (at most 100)'
              : op === 'between'
                ? 'lower,upper (inclusive)'
                : `${op} filter`,
        },
      ];
    });
  });
}
