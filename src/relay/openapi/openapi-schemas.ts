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
    properties: Object.fromEntries(entity.fields.map((field) => [field.name, fieldSchema(field)])),
    required: entity.fields.map((field) => field.name),
  };
}

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
