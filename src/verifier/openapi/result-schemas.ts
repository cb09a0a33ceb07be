// Response body schemas of evaluations, renders and batches in the runtime OpenAPI document: the members the routes
// answer (evaluation/build-claim-result.ts, evaluation/render-cccev.ts, evaluation/run-batch.ts), so a generated
// client reads results typed. Objects stay open to members a later version adds.
import { DISCLOSURE_LEVELS, VALUE_TYPES } from '../config/schema.ts';

type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const string = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const object = (required: readonly string[], properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  required: [...required],
  properties,
});
const level = { type: 'string', enum: [...DISCLOSURE_LEVELS] };
const common = {
  claim_id: string,
  claim_version: string,
  value: { description: 'The claim value as disclosed: null when redacted, a boolean for a predicate.' },
  satisfied: { type: ['boolean', 'null'] },
  disclosure: { ...level, description: 'The level applied, which a downgrade may have changed.' },
  redacted_fields: { type: 'array', items: string },
  issued_at: dateTime,
  provenance: ref('Provenance'),
};

const targetRef = object(['handle'], {
  type: string,
  handle: { type: 'string', description: 'Keyed stand-in for the target; never its identifiers.' },
  identifier_schemes: { type: 'array', items: string },
  profile: {
    type: 'string',
    description: "The target's `profile` as sent; absent when none was. Not part of the handle.",
  },
});

const provenance = object(['schema_version', 'generated_by', 'used', 'derived_from'], {
  schema_version: string,
  generated_by: object(['type', 'service_id', 'evaluation_id', 'claim_id', 'claim_version'], {
    type: { const: 'claim_evaluation' },
    service_id: string,
    evaluation_id: string,
    claim_id: string,
    claim_version: string,
  }),
  used: object(['source_count'], {
    source_count: {
      type: 'integer',
      minimum: 0,
      description:
        'Distinct sources (connection, dataset, entity) behind the value, those of the claims it depends on included; not the reads made.',
    },
    source_versions: { type: 'object' },
  }),
  derived_from: {
    type: 'array',
    items: object(['claim_id', 'claim_version'], {
      claim_id: string,
      claim_version: { type: ['string', 'null'] },
    }),
  },
});

const claimResult = object(
  [
    'evaluation_id',
    'claim_id',
    'claim_version',
    'subject_type',
    'target_ref',
    'value',
    'satisfied',
    'disclosure',
    'format',
    'issued_at',
    'expires_at',
    'provenance',
  ],
  {
    evaluation_id: string,
    ...common,
    subject_type: string,
    target_ref: ref('TargetRef'),
    format: string,
    expires_at: { type: ['string', 'null'], format: 'date-time' },
  },
);

const cccevNode = object(
  ['@id', '@type', 'dcterms:identifier', 'cccev:isProvidedBy', 'cccev:isConformantTo'],
  {
    '@id': string,
    '@type': { const: 'cccev:Evidence' },
    'dcterms:identifier': { type: 'string', description: 'The evaluation id.' },
    'dcterms:title': string,
    'cccev:isProvidedBy': { type: 'object' },
    'cccev:isConformantTo': { type: 'object' },
    'cccev:supportsRequirement': { type: 'object' },
    'cccev:supportsValue': { type: 'object', description: 'Absent when redacted or unknown.' },
    'cccev:validityPeriod': { type: 'object' },
  },
);

const batchItem = object(['input_index', 'target_ref', 'status', 'claim_results', 'errors'], {
  input_index: { type: 'integer', minimum: 0 },
  evaluation_id: { type: 'string', description: 'Present when the item succeeded.' },
  target_ref: { anyOf: [ref('TargetRef'), { type: 'null' }] },
  status: { type: 'string', enum: ['succeeded', 'failed'] },
  claim_results: {
    type: 'array',
    items: object(
      ['result_id', 'claim_id', 'claim_version', 'value_type', 'value', 'satisfied', 'disclosure'],
      {
        result_id: string,
        value_type: {
          type: 'string',
          description: "The claim's declared type; for `any`, the JSON type of the value.",
          enum: [...VALUE_TYPES.filter((type) => type !== 'any'), 'null'],
        },
        ...common,
      },
    ),
  },
  errors: {
    type: 'array',
    items: object(['code', 'title', 'retryable'], {
      code: string,
      title: string,
      retryable: { type: 'boolean' },
      claim_id: string,
    }),
  },
});

export const RESULT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  TargetRef: targetRef,
  Provenance: provenance,
  ClaimResult: claimResult,
  ClaimResults: object(['results'], { results: { type: 'array', items: ref('ClaimResult') } }),
  CccevEvidence: object(['@context', '@graph'], {
    '@context': { type: 'object' },
    '@graph': { type: 'array', items: cccevNode },
  }),
  BatchEvaluationResponse: object(['batch_id', 'status', 'claims', 'format', 'items', 'summary'], {
    batch_id: string,
    status: { const: 'completed' },
    claims: { type: 'array', items: string },
    format: { type: 'string', description: 'The format each item evaluation renders in.' },
    items: { type: 'array', items: batchItem },
    summary: object(['succeeded', 'failed'], {
      succeeded: { type: 'integer', minimum: 0 },
      failed: { type: 'integer', minimum: 0 },
    }),
  }),
};
