// The verifier config schema: the single source of the config types and their validation (verifier contract §3).
import { z } from 'zod';
import { auditConfigSchema } from '../../platform/config/audit-config-schema.ts';
import { bindAddressSchema } from '../../platform/config/bind-address.ts';
import { corsSchema } from '../../platform/config/cors-schema.ts';
import { durationMs } from '../../platform/config/duration.ts';
import { enumWithHints } from '../../platform/config/enum-with-hints.ts';
import { envVarName } from '../../platform/config/env-var-name.ts';
import { maxConnectionsSchema, requestTimeoutSchema } from '../../platform/config/listener-limits-schema.ts';
import { oidcConfigSchema } from '../../platform/config/oidc-config-schema.ts';
import { scopeToken } from '../../platform/config/scope-token.ts';
import { trustProxySchema } from '../../platform/config/trust-proxy-schema.ts';
import { absoluteIri } from './absolute-iri.ts';
import { claimInput, MAX_CLAIM_INPUTS, sourceBinding, VALUE_TYPES, valueType } from './claim-reads-schema.ts';
import { boundedRecord, CLAIM_ID_PATTERN, CREDENTIAL_ID_PATTERN, KEY_PATTERN, key } from './config-key.ts';
import { publicBaseUrl } from './public-base-url.ts';
import { purposeText } from './purpose-text.ts';
import { RELAY_NAME_MAX } from './relay-field-name.ts';
import { state } from './state-schema.ts';

export { CLAIM_ID_PATTERN, KEY_PATTERN, VALUE_TYPES };

const CLAIM_ID_RULE = 'claim id must match ^[a-z][a-z0-9_.-]*$ and be at most 128 characters';
/** Three years: a credential is evidence of a moment, not a permanent title. */
export const MAX_CREDENTIAL_VALIDITY_SECONDS = 3 * 365 * 86_400;
/** Generous ceilings on list lengths: an absurd config is refused rather than slowing every start and request. */
const MAX_SCOPES = 1000;
const MAX_CLAIMS = 10_000;
/** Credentials of one kind, connections, signing keys and credential profiles: each compared or loaded at start. */
const MAX_ENTRIES = 1000;
/** A claim's source bindings and bound sub-claims, as its `depends_on`: each is read on every evaluation. */
const MAX_CLAIM_PARTS = 64;
/** A DID or an https origin, as long as an IRI may be. */
const MAX_IRI = 2048;

export const DISCLOSURE_LEVELS = ['value', 'predicate', 'redacted'] as const;
export const CLAIM_RESULT_MEDIA_TYPE = 'application/vnd.ambit.claim-result+json';
export const CCCEV_MEDIA_TYPE = 'application/ld+json; profile="cccev"';
export const SD_JWT_MEDIA_TYPE = 'application/dc+sd-jwt';
export const CLAIM_FORMATS = [CLAIM_RESULT_MEDIA_TYPE, CCCEV_MEDIA_TYPE, SD_JWT_MEDIA_TYPE] as const;

const bindAddress = bindAddressSchema('127.0.0.1:8081');

const server = z.strictObject({
  bind: bindAddress.default('127.0.0.1:8081').describe('Listen address, host:port. `--bind` overrides it.'),
  admin_bind: bindAddress
    .optional()
    .describe(
      'Admin listener address (`POST /admin/v1/reload`, scope `verifier:admin`); no admin routes without it.',
    ),
  openapi_requires_auth: z.boolean().default(true).describe('When false, /openapi.json is public.'),
  request_timeout: requestTimeoutSchema(),
  // The reference's listener time-outs, as the relay reads them; unset, `request_timeout` bounds both.
  http1_header_read_timeout: durationMs({ min: 1, max: 300_000 })
    .optional()
    .describe(
      'A request whose headers are still incomplete this long after its first byte answers 504 `internal.timeout` and its connection closes (at most 5m; default 10s; never past `request_timeout`).',
    ),
  request_body_timeout: durationMs({ min: 1, max: 3_600_000 })
    .optional()
    .describe(
      'A request body still incomplete this long after the headers answers 504 `internal.timeout` and its connection closes (at most 1h; unset, `request_timeout` bounds it).',
    ),
  max_connections: maxConnectionsSchema(),
  cors: corsSchema(),
  trust_proxy: trustProxySchema(),
});

const fingerprint = z.strictObject({
  provider: z.literal('env'),
  name: envVarName().describe('Environment variable holding sha256:<64 hex> of the raw credential.'),
  commitment: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .optional(),
});

const staticCredential = z.strictObject({
  id: z
    .string()
    .max(128)
    .regex(CREDENTIAL_ID_PATTERN, `credential id must match ${CREDENTIAL_ID_PATTERN.source}`),
  fingerprint,
  scopes: z.array(scopeToken).max(MAX_SCOPES).default([]),
});

const oidc = oidcConfigSchema;

const auth = z.strictObject({
  mode: z
    .enum(['api_key', 'oidc'])
    .describe('`api_key`: static API keys and bearer tokens by fingerprint; `oidc`: JWT access tokens.'),
  api_keys: z
    .array(staticCredential)
    .max(MAX_ENTRIES)
    .default([])
    .describe('Accepted in `x-api-key` or `Authorization: Bearer`.'),
  bearer_tokens: z
    .array(staticCredential)
    .max(MAX_ENTRIES)
    .default([])
    .describe('Accepted in `Authorization: Bearer` only.'),
  oidc: oidc.optional(),
});

const audit = auditConfigSchema;

const claimRef = z.strictObject({ claim: z.string().regex(CLAIM_ID_PATTERN) });

const rule = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('exists'), source: key('binding alias') }),
  z.strictObject({
    type: z.literal('extract'),
    source: key('binding alias'),
    // One of the binding's `fields`, so no longer than a relay field name.
    field: z.string().min(1).max(RELAY_NAME_MAX),
  }),
  z.strictObject({
    type: z.literal('cel'),
    // Bounded at load by `cel.max_expression_bytes`.
    expression: z.string().min(1),
    bindings: z
      .strictObject({ claims: boundedRecord(claimRef, MAX_CLAIM_PARTS, 'sub-claims').default({}) })
      .default({ claims: {} }),
  }),
  z.strictObject({ type: z.literal('plugin'), plugin: z.string().min(1).max(RELAY_NAME_MAX) }),
]);

const disclosure = z.strictObject({
  default: z.enum(DISCLOSURE_LEVELS).default('redacted'),
  allowed: z.array(z.enum(DISCLOSURE_LEVELS)).min(1).max(DISCLOSURE_LEVELS.length).default(['redacted']),
  downgrade: z.enum(['deny', 'default', 'redacted']).default('deny'),
});

const claim = z.strictObject({
  id: z.string().regex(CLAIM_ID_PATTERN, CLAIM_ID_RULE),
  title: z.string().min(1).max(512),
  description: z.string().max(4096).optional(),
  // At most what a request may name (a claim reference's `version`, `target.type`): a longer one could not be asked for.
  version: z.string().min(1).max(64),
  subject_type: z.string().min(1).max(128),
  value: z
    .strictObject({ type: valueType.default('any'), unit: z.string().max(64).optional() })
    .default({ type: 'any' }),
  purpose: purposeText.optional().describe('When set, the only purpose this claim is evaluated for.'),
  required_scopes: z.array(scopeToken).max(MAX_SCOPES).default([]),
  depends_on: z.array(z.string().regex(CLAIM_ID_PATTERN)).max(64).default([]),
  inputs: z
    .array(claimInput)
    .max(MAX_CLAIM_INPUTS)
    .default([])
    .describe(
      'Request inputs the claim reads, with their JSON type: a request whose input has another type is refused before any read.',
    ),
  source_bindings: boundedRecord(sourceBinding, MAX_CLAIM_PARTS, 'source bindings').default({}),
  rule,
  operations: z
    .strictObject({
      evaluate: z.strictObject({ enabled: z.boolean().default(true) }).default({ enabled: true }),
      batch_evaluate: z
        .strictObject({
          enabled: z.boolean().default(false),
          max_subjects: z.number().int().min(1).max(1000).default(100),
        })
        .default({ enabled: false, max_subjects: 100 }),
    })
    .default({ evaluate: { enabled: true }, batch_evaluate: { enabled: false, max_subjects: 100 } }),
  disclosure: disclosure.default({ default: 'redacted', allowed: ['redacted'], downgrade: 'deny' }),
  formats: z
    .array(z.enum(CLAIM_FORMATS))
    .min(1)
    .max(CLAIM_FORMATS.length)
    .default([CLAIM_RESULT_MEDIA_TYPE, CCCEV_MEDIA_TYPE]),
  credential_profiles: z.array(key('credential profile id')).max(MAX_ENTRIES).default([]),
  cccev: z
    .strictObject({
      // Both are @ids of the CCCEV rendering.
      requirement: absoluteIri.optional(),
      evidence_type: z.string().max(512).optional(),
      evidence_type_iri: absoluteIri.optional(),
    })
    .optional(),
});

const sourceConnection = z.strictObject({
  base_url: z.url().max(2048).describe('Relay base URL; https unless an allow_insecure_* flag permits http.'),
  token_env: envVarName().describe('Environment variable holding the bearer token sent to this source.'),
  allow_insecure_localhost: z
    .boolean()
    .default(false)
    .describe('Allow loopback addresses, and plain http to local (never public) addresses.'),
  allow_insecure_private_network: z
    .boolean()
    .default(false)
    .describe(
      'Allow private (RFC 1918, ULA, CGNAT) addresses, and plain http to local (never public) addresses.',
    ),
  allow_link_local: z
    .boolean()
    .default(false)
    .describe('Allow link-local addresses, cloud metadata endpoints included. Almost never right.'),
  max_in_flight: z.number().int().min(1).max(256).default(8),
  timeout: durationMs({ min: 1, max: 120_000 }).default(5_000).describe('Per attempt.'),
  retry: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(10).default(3),
      base_delay: durationMs({ min: 1, max: 60_000 }).default(100),
      max_delay: durationMs({ min: 1, max: 60_000 }).default(2_000),
      max_retry_after: durationMs({ min: 0, max: 300_000 })
        .default(5_000)
        .describe('A longer `Retry-After` is not waited for: the read fails at once.'),
    })
    .default({ max_attempts: 3, base_delay: 100, max_delay: 2_000, max_retry_after: 5_000 }),
  bulk_mode: enumWithHints(['none', 'rda_in_filter'], {
    dci_batched_search: 'not supported (there is no SP-DCI connector): use `rda_in_filter` or `none`',
    source_adapter_sidecar_batch:
      'not supported (there is no sidecar connector): use `rda_in_filter` or `none`',
  })
    .default('none')
    .describe(
      '`rda_in_filter`: batch evaluations read many subjects in one request with `<lookup field>.in=a,b,...`.',
    ),
  // The reference contract asks operators to attest that lookups are unique before `.in` reads; here every `.in`
  // answer is checked per lookup value (two rows for one value are ambiguous), so the attestation is accepted only.
  bulk_mode_lookup_unique: z
    .boolean()
    .optional()
    .describe(
      'Accepted for configs written for the reference contract; changes nothing: a lookup value with several records in a `.in` answer is ambiguous for its subject alone.',
    ),
  bulk_max_values: z
    .number()
    .int()
    .min(2)
    .max(100)
    .default(100)
    .describe('Lookup values per `.in` request (the relay accepts at most 100).'),
  coalesce_reads: z
    .boolean()
    .default(false)
    .describe(
      'With `bulk_mode: rda_in_filter`: single evaluations arriving together read their subjects with one `.in` request (the relay then records one read for several subjects, under the first request id).',
    ),
});

function isHttpsUrl(value: string): boolean {
  return URL.canParse(value) && new URL(value).protocol === 'https:';
}

const signingKey = z.strictObject({
  provider: enumWithHints(['local_jwk_env', 'file_watch'], {
    pkcs11: 'PKCS#11 keys are not supported: use `local_jwk_env` or `file_watch`',
    local_pkcs12_file: 'PKCS#12 files are not supported: use `local_jwk_env` or `file_watch` (a JWK)',
  }),
  alg: enumWithHints(['EdDSA', 'ES256'], {
    RS256:
      'not supported for signing (it served eSignet client assertions, which are not made here): use `EdDSA` or `ES256`',
  }).default('EdDSA'),
  // Travels in the header of every credential issued, as `vct` in its payload.
  kid: z.string().min(1).max(512),
  status: z.enum(['active', 'publish_only', 'disabled']).default('active'),
  private_jwk_env: envVarName().optional(),
  public_jwk_env: envVarName().optional(),
  path: z.string().min(1).max(4096).optional(),
});

const credentialProfile = z.strictObject({
  format: z.literal(SD_JWT_MEDIA_TYPE),
  issuer: z.string().min(1).max(MAX_IRI),
  signing_key: key('signing key id'),
  vct: z.string().max(2048).refine(isHttpsUrl, 'must be an https URL'),
  validity_seconds: z.number().int().min(1).default(600),
  holder_binding: z
    .strictObject({
      mode: z.enum(['none', 'did']).default('did'),
      proof_of_possession: z.enum(['required', 'optional']).default('required'),
      allowed_did_methods: z.array(z.literal('did:jwk')).max(1).default(['did:jwk']),
    })
    .default({ mode: 'did', proof_of_possession: 'required', allowed_did_methods: ['did:jwk'] }),
  allowed_claims: z.array(z.string().regex(CLAIM_ID_PATTERN)).min(1).max(MAX_CLAIMS),
  disclosure: z
    .strictObject({ allowed: z.array(z.enum(DISCLOSURE_LEVELS)).max(DISCLOSURE_LEVELS.length).default([]) })
    .default({ allowed: [] }),
});

const evidence = z.strictObject({
  enabled: z
    .boolean()
    .refine((enabled) => enabled, 'must be true (or left out): the verifier always serves evidence')
    .optional()
    .describe('Contract key: `true` or left out.'),
  service_id: z.string().min(1).max(256).describe('Names this verifier in results, provenance and audit.'),
  api_version: z.string().min(1).max(64).default('2026-05').describe('The version discovery names.'),
  api_base_url: publicBaseUrl.optional().describe('Public base URL (http or https), shown in discovery.'),
  allowed_purposes: z
    .array(purposeText)
    .max(1000)
    .default([])
    .describe('When non-empty, the only purposes accepted.'),
  inline_batch_limit: z.number().int().min(1).max(1000).default(100),
  max_credential_validity_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_CREDENTIAL_VALIDITY_SECONDS)
    .default(600)
    .describe('Ceiling of a credential profile `validity_seconds` (at most three years).'),
  concurrency: z
    .strictObject({
      subjects: z.number().int().min(1).max(256).default(16),
      bindings: z.number().int().min(1).max(256).default(8),
    })
    .default({ subjects: 16, bindings: 8 }),
  claims: z.array(claim).max(MAX_CLAIMS).default([]),
  source_connections: boundedRecord(sourceConnection, MAX_ENTRIES, 'connections').default({}),
  signing_keys: boundedRecord(signingKey, MAX_ENTRIES, 'signing keys').default({}),
  credential_profiles: boundedRecord(credentialProfile, MAX_ENTRIES, 'credential profiles').default({}),
});

const cel = z.strictObject({
  eval_timeout: durationMs({ min: 10, max: 60_000 }).default(2_000),
  worker_count: z.number().int().min(1).max(64).default(2),
  worker_memory_mb: z.number().int().min(16).max(4096).default(128),
  max_expression_bytes: z.number().int().min(16).max(1_048_576).default(8_192),
  // At most 1 MiB: the inputs are copied to a worker as JSON text, and parsed there, for every evaluation.
  max_binding_json_bytes: z.number().int().min(256).max(1_048_576).default(65_536),
  max_result_json_bytes: z.number().int().min(16).max(1_048_576).default(16_384),
});

export const verifierConfigSchema = z.strictObject({
  instance: z
    .strictObject({
      id: z.string().max(256).default('ambit-verifier-local'),
      environment: z.string().max(256).optional(),
    })
    .optional(),
  server: server.prefault({}),
  auth,
  audit,
  evidence,
  state: state.prefault({}),
  cel: cel.prefault({}),
});

export type VerifierConfig = z.infer<typeof verifierConfigSchema>;
export type ClaimConfig = VerifierConfig['evidence']['claims'][number];
export type RuleConfig = ClaimConfig['rule'];
export type SourceBindingConfig = ClaimConfig['source_bindings'][string];
export type SourceConnectionConfig = VerifierConfig['evidence']['source_connections'][string];
export type CelConfig = VerifierConfig['cel'];
export type DisclosureLevel = (typeof DISCLOSURE_LEVELS)[number];
export type ValueType = (typeof VALUE_TYPES)[number];
export type ClaimFormat = (typeof CLAIM_FORMATS)[number];
