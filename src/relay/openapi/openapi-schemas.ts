// Reusable OpenAPI schema fragments: field types, entity records and problem responses.
import { headerRef, ORIGIN_FIRST } from '../../platform/http/openapi-operations.ts';
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
/**
 * The next page, as the relay contract has it: a relative reference (the path and query of the next page, the other
 * parameters sorted by name), resolved against the URL requested.
 */
export const NEXT_LINK_HEADER = {
  Link: {
    description:
      'The next page, while `has_more`: `</v1/...?...&cursor=...>; rel="next"`, a relative reference (path and query) to resolve against the URL requested',
    schema: { type: 'string', pattern: '^</[^>]*[?&]cursor=[^>]*>; rel="next"$' },
  },
};

/** `components.headers` of the relay's `Vary`s, beside the shared `CACHE_HEADER_COMPONENTS`. */
export const VARY_HEADER_COMPONENTS = {
  VaryCredential: {
    required: true,
    description: `\`Authorization, X-Api-Key\`${ORIGIN_FIRST}: the answer depends on the caller's scopes`,
    schema: { type: 'string' },
  },
  VaryPage: {
    required: true,
    description: `\`Authorization, X-Api-Key, Data-Purpose\`${ORIGIN_FIRST}: a page binds its cursors to the caller and the purpose`,
    schema: { type: 'string' },
  },
  VaryAccept: {
    required: true,
    description: `\`Accept\`${ORIGIN_FIRST}: the format is negotiated`,
    schema: { type: 'string' },
  },
  VaryMetadata: {
    required: true,
    description: `\`Authorization, X-Api-Key, Accept\`${ORIGIN_FIRST}: the caller's view of the document, in an accepted type`,
    schema: { type: 'string' },
  },
};
/** The `Vary` of routes whose answers depend on the caller's scopes (lists, schemas, aggregate discovery). */
export const VARY_CREDENTIAL = { Vary: headerRef('VaryCredential') };
/** The `Vary` of record pages and relationship reads. */
export const VARY_PAGE = { Vary: headerRef('VaryPage') };
/** The `Vary` of aggregate results, in whichever format. */
export const VARY_ACCEPT = { Vary: headerRef('VaryAccept') };
/** The `Vary` of a metadata document and its 304. */
export const VARY_METADATA = { Vary: headerRef('VaryMetadata') };

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
