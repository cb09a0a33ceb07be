// Response body schemas of the discovery routes and probes in the runtime OpenAPI document: the members the routes
// answer (routes/discovery.ts, claims/render-claim-summary.ts, routes/health.ts), so a generated client reads them
// typed. Objects stay open to members a later version adds.
import { CLAIM_FORMATS, CLAIM_RESULT_MEDIA_TYPE, DISCLOSURE_LEVELS, VALUE_TYPES } from '../config/schema.ts';

type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const string = { type: 'string' };
const strings = { type: 'array', items: string };
const object = (required: readonly string[], properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  required: [...required],
  properties,
});
const level = { type: 'string', enum: [...DISCLOSURE_LEVELS] };

const format = object(['id', 'kind', 'status'], {
  id: { type: 'string', examples: [CLAIM_RESULT_MEDIA_TYPE] },
  kind: { type: 'string', enum: ['claim_result', 'renderer', 'credential'] },
  status: { type: 'string', enum: ['enabled', 'disabled'] },
});

const targetInput = object(['path', 'kind', 'name'], {
  path: {
    type: 'string',
    description: '`target.id`, `target.identifiers.<scheme>` or `target.attributes.<name>`.',
  },
  kind: { type: 'string', enum: ['id', 'identifier', 'attribute'] },
  name: string,
  type: { type: 'string', enum: [...VALUE_TYPES], description: 'The JSON type the claim declares for it.' },
});

const claimSummary = object(
  [
    'id',
    'title',
    'version',
    'subject_type',
    'value',
    'operations',
    'formats',
    'disclosure',
    'depends_on',
    'target_inputs',
    'cccev',
    'oots',
  ],
  {
    id: string,
    title: string,
    description: string,
    version: string,
    subject_type: string,
    value: object(['type'], { type: { type: 'string', enum: [...VALUE_TYPES] }, unit: string }),
    operations: object(['evaluate', 'batch_evaluate'], {
      evaluate: { type: 'boolean' },
      batch_evaluate: { type: 'boolean' },
    }),
    batch_max_subjects: {
      type: 'integer',
      minimum: 1,
      description:
        'Most items a batch of this claim may hold (its `max_subjects`, at most `inline_batch_limit`); present when batch evaluation is offered.',
    },
    formats: { type: 'array', items: { type: 'string', enum: [...CLAIM_FORMATS] } },
    disclosure: object(['default', 'allowed', 'downgrade'], {
      default: level,
      allowed: { type: 'array', items: level },
      downgrade: { type: 'string', enum: ['deny', 'default', 'redacted'] },
    }),
    depends_on: { ...strings, description: 'Sub-claims, each visible to whoever sees this claim.' },
    purpose: {
      type: 'string',
      description:
        'The only purpose the claim is evaluated for: its own, or the one its sub-claims are limited to.',
    },
    target_inputs: { type: 'array', items: ref('TargetInput') },
    cccev: {
      type: ['object', 'null'],
      properties: { requirement: string, evidence_type: string, evidence_type_iri: string },
    },
    oots: { type: 'null', description: 'Always null: no claim here has an OOTS block.' },
    evidence_type: string,
    evidence_type_iri: string,
  },
);

const serviceDocument = object(
  [
    'service_id',
    'api_version',
    'base_url',
    'issuer',
    'auth',
    'operations',
    'claims_url',
    'formats_url',
    'evaluations_url',
    'batch_evaluations_url',
    'claims',
    'formats',
    'disclosure_levels',
    'batch',
    'evaluation_retention_seconds',
  ],
  {
    service_id: string,
    api_version: string,
    base_url: { type: ['string', 'null'] },
    issuer: object(['id', 'name'], {
      id: { type: 'string', description: 'The issuer of the first credential profile, else the service id.' },
      name: { type: 'string', description: 'The service id.' },
    }),
    auth: object(['methods', 'bearer', 'audience'], {
      methods: { type: 'array', items: { type: 'string', enum: ['api_key', 'bearer'] } },
      api_key: object(['header'], { header: string }),
      bearer: object(['header', 'scheme', 'format'], {
        header: string,
        scheme: { const: 'bearer' },
        format: string,
      }),
      audience: { type: 'string', description: 'The service id: the audience a holder proof names.' },
    }),
    operations: object(['evaluate', 'batch_evaluate', 'render', 'credential_issue'], {
      evaluate: { type: 'boolean' },
      batch_evaluate: { type: 'boolean' },
      render: { type: 'boolean' },
      credential_issue: { type: 'boolean' },
    }),
    claims_url: string,
    formats_url: string,
    evaluations_url: string,
    batch_evaluations_url: string,
    claims: { type: 'array', items: ref('ClaimSummary') },
    formats: { type: 'array', items: ref('Format') },
    disclosure_levels: { type: 'array', items: level },
    batch: object(['max_inline_subjects', 'idempotency_window'], {
      max_inline_subjects: { type: 'integer', minimum: 1 },
      idempotency_window: { type: 'string', description: 'ISO 8601 duration.' },
    }),
    evaluation_retention_seconds: { type: 'integer', minimum: 1 },
  },
);

export const DISCOVERY_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ServiceDocument: serviceDocument,
  ClaimSummary: claimSummary,
  TargetInput: targetInput,
  ClaimList: object(['data'], { data: { type: 'array', items: ref('ClaimSummary') } }),
  Format: format,
  FormatList: object(['formats'], { formats: { type: 'array', items: ref('Format') } }),
  Health: object(['status', 'checks'], {
    status: { const: 'ok' },
    checks: object(['ok', 'degraded', 'failed', 'total'], {
      ok: { type: 'integer', const: 1 },
      degraded: { type: 'integer', const: 0 },
      failed: { type: 'integer', const: 0 },
      total: { type: 'integer', const: 1 },
    }),
  }),
  Readiness: object(['status', 'checks'], {
    status: { const: 'ready' },
    checks: object(['claims', 'source_connections', 'state'], {
      claims: { type: 'integer', minimum: 0 },
      source_connections: { type: 'integer', minimum: 0 },
      state: { type: 'string', enum: ['memory', 'postgresql'] },
    }),
  }),
};
