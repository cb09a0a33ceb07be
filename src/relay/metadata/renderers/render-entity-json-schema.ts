// The JSON Schema (Draft 2020-12) of one entity's records: field types, formats, codelist enums, concept IRIs.
import type { MetadataLinks } from '../model/metadata-links.ts';
import type { EntityMeta, FieldMeta, MetadataFieldType, MetadataModel } from '../model/metadata-model.ts';
import { JSON_SCHEMA_DIALECT } from './metadata-media-types.ts';

const JSON_TYPES: Record<MetadataFieldType, { type: string; format?: string }> = {
  string: { type: 'string' },
  code: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  timestamp: { type: 'string', format: 'date-time' },
};

export function renderEntityJsonSchema(model: MetadataModel, entity: EntityMeta, links: MetadataLinks) {
  const codes = new Map(
    model.codelists.map((codelist) => [codelist.id, codelist.concepts.map((concept) => concept.code)]),
  );
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: links.entitySchema(entity.datasetId, entity.name),
    title: entity.title.text,
    ...(entity.description === undefined ? {} : { description: entity.description.text }),
    type: 'object',
    properties: Object.fromEntries(entity.fields.map((field) => [field.name, fieldSchema(field, codes)])),
    required: entity.fields.filter((field) => field.required).map((field) => field.name),
    additionalProperties: false,
    'x-dataset-id': entity.datasetId,
    'x-entity-name': entity.name,
    ...(entity.primaryKey === undefined ? {} : { 'x-primary-key': entity.primaryKey }),
    ...(entity.conceptUri === undefined ? {} : { 'x-concept-uri': entity.conceptUri }),
  };
}

function fieldSchema(field: FieldMeta, codes: ReadonlyMap<string, readonly string[]>) {
  const { type, format } = JSON_TYPES[field.type];
  const values = field.codelist === undefined ? undefined : codes.get(field.codelist);
  return {
    ...(field.title === undefined ? {} : { title: field.title.text }),
    ...(field.description === undefined ? {} : { description: field.description.text }),
    type: field.nullable ? [type, 'null'] : type,
    ...(format === undefined ? {} : { format }),
    ...(values === undefined ? {} : { enum: field.nullable ? [...values, null] : values }),
    ...(field.concepts[0] === undefined ? {} : { 'x-concept-uri': field.concepts[0] }),
    ...(field.codelist === undefined ? {} : { 'x-codelist': field.codelist }),
    ...(field.unit === undefined ? {} : { 'x-unit': field.unit }),
    ...(field.language === undefined ? {} : { 'x-language': field.language }),
    ...(field.sensitive ? { 'x-sensitive': true } : {}),
  };
}
