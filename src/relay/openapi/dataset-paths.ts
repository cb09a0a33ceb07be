// OpenAPI of dataset discovery: the path items of `GET /v1/datasets/{dataset_id}`, listed once per dataset with a
// visible entity, and the bodies of a dataset summary and an entity schema.

import { withOperationHeaders } from '../../platform/http/openapi-operations.ts';
import { accessRights, sensitivity, updateFrequency } from '../config/dataset-classification.ts';
import { FIELD_TYPES } from '../config/schema.ts';
import { FILTER_OPS } from '../config/schema-parts.ts';
import { jsonResponse, problemResponse, VARY_CREDENTIAL } from './openapi-schemas.ts';

export function datasetPaths(datasetIds: ReadonlySet<string>): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const id of datasetIds) {
    paths[`/v1/datasets/${id}`] = {
      get: withOperationHeaders(
        {
          tags: [id],
          operationId: `${id}.dataset`,
          summary: `Dataset ${id}`,
          responses: {
            200: jsonResponse('Dataset summary', { $ref: '#/components/schemas/DatasetSummary' }),
            401: problemResponse('Not authenticated'),
            // An unknown dataset is refused like a hidden one.
            403: problemResponse('Scope denied'),
          },
        },
        VARY_CREDENTIAL,
      ),
    };
  }
  return paths;
}

export function datasetSummarySchema() {
  return {
    type: 'object',
    required: [
      'dataset_id',
      'title',
      'description',
      'owner',
      'sensitivity',
      'access_rights',
      'update_frequency',
      'conforms_to',
      'links',
      'entities',
    ],
    properties: {
      dataset_id: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      owner: { type: ['string', 'null'] },
      sensitivity: { enum: sensitivity.removeDefault().options },
      access_rights: { enum: accessRights.removeDefault().options },
      update_frequency: { enum: updateFrequency.removeDefault().options },
      conforms_to: {
        type: 'array',
        items: { type: 'string' },
        description: 'IRIs of the standards it conforms to',
      },
      links: { type: 'object', required: ['self'], properties: { self: { type: 'string', format: 'uri' } } },
      entities: { type: 'array', items: { type: 'string' }, description: 'The entities the caller may see' },
    },
  };
}

const nullableText = { type: ['string', 'null'] };
/** An object whose every member is always sent (null when unset). */
const everyMember = (properties: Record<string, unknown>) => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
});

/** The body of `GET .../entities/{entity}/schema` (routes/datasets.ts `describeEntity`). */
export function entitySchemaSchema() {
  const field = everyMember({
    name: { type: 'string' },
    type: { enum: FIELD_TYPES },
    nullable: { type: 'boolean' },
    sensitive: { type: 'boolean' },
    concept_uri: nullableText,
    codelist: nullableText,
    unit: nullableText,
    language: nullableText,
    description: nullableText,
  });
  const filter = everyMember({
    field: { type: 'string' },
    ops: { type: 'array', items: { enum: FILTER_OPS } },
  });
  const relationship = everyMember({
    name: { type: 'string' },
    kind: { enum: ['belongs_to', 'has_one', 'has_many'] },
    target: { type: 'string', description: 'An entity of the same dataset' },
    foreign_key: { type: 'string' },
    concept_uri: nullableText,
    expandable: { type: 'boolean', description: 'Whether `expand` takes it' },
  });
  return everyMember({
    dataset_id: { type: 'string' },
    entity: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    concept_uri: nullableText,
    primary_key: { type: 'string' },
    fields: { type: 'array', items: field },
    filters: {
      type: 'array',
      items: filter,
      description: 'The filters a read accepts, with their operators',
    },
    required_filters: {
      type: 'array',
      items: { type: 'string' },
      description: 'A read needs an equality filter on one of these (none when empty)',
    },
    requires_purpose: { type: 'boolean', description: 'Whether reads need the `Data-Purpose` header' },
    limits: everyMember({ default_limit: { type: 'integer' }, max_limit: { type: 'integer' } }),
    relationships: {
      type: 'array',
      items: relationship,
      description: 'Only those to entities whose metadata the caller may see',
    },
    links: everyMember({
      self: { type: 'string', format: 'uri' },
      records: { type: 'string', format: 'uri' },
    }),
  });
}
