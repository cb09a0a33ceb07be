// Reusable OpenAPI schema fragments: field types, entity records and problem responses.
import type { CatalogEntity, CatalogField } from '../catalog/catalog.ts';
import type { FieldType } from '../config/schema.ts';

const JSON_TYPES: Record<FieldType, Record<string, unknown>> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  timestamp: { type: 'string', format: 'date-time' },
};

export function fieldSchema(field: CatalogField): Record<string, unknown> {
  const base = JSON_TYPES[field.type];
  return {
    ...base,
    ...(field.nullable ? { type: [base.type, 'null'] } : {}),
    ...(field.description ? { description: field.description } : {}),
    ...(field.conceptUri ? { 'x-concept-uri': field.conceptUri } : {}),
    ...(field.sensitive ? { 'x-sensitive': true } : {}),
  };
}

export function recordSchema(entity: CatalogEntity): Record<string, unknown> {
  return {
    type: 'object',
    'x-dataset-id': entity.datasetId,
    'x-entity-name': entity.name,
    ...(entity.conceptUri ? { 'x-concept-uri': entity.conceptUri } : {}),
    // No `required`: a `fields` projection leaves the other fields out of the record.
    properties: Object.fromEntries(entity.fields.map((field) => [field.name, fieldSchema(field)])),
  };
}

export function schemaName(entity: CatalogEntity): string {
  const pascal = (text: string) => text.replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase());
  return `${pascal(entity.datasetId)}${pascal(entity.name)}`;
}

export const jsonResponse = (description: string, schema: unknown, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

/** A loose object schema naming the members always present. */
export const objectWith = (...required: string[]) => ({ type: 'object', required });

// Absent on entities over a live PostgreSQL table, which have no data version.
export const ETAG_HEADER = {
  ETag: {
    description: 'Validator for If-None-Match: strong, or weak (`W/`) for an aggregate answer',
    schema: { type: 'string' },
  },
};
/** A 304 repeats the validator the request matched (RFC 9110 §15.4.5). */
export const NOT_MODIFIED = {
  description: 'Not modified (If-None-Match matched the ETag)',
  headers: { ETag: { ...ETAG_HEADER.ETag, required: true } },
};
export const NEXT_LINK_HEADER = {
  Link: { description: 'The next page: `<...>; rel="next"`, while `has_more`', schema: { type: 'string' } },
};

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

// Checked before routing, so any route taking a query string can answer it.
export const URI_TOO_LONG = { 414: problemResponse('URI too long') };

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'string' } },
};
/** A refusal that says when to try again. */
export const retryableResponse = (description: string) => ({
  ...problemResponse(description),
  headers: RETRY_AFTER,
});
// Routes that read rows answer 503 `schema.resource_unavailable` until the sources are loaded, and over a live
// PostgreSQL table whose database cannot be reached.
export const SOURCE_UNAVAILABLE = {
  503: retryableResponse('Sources still loading, or the live database unreachable'),
};
