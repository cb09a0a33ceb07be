// The runtime OpenAPI document of the verifier, listing the claims the caller may evaluate.
import { withOidcAuthResponses } from '../../platform/auth/oidc-openapi-responses.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import {
  CACHE_HEADER_COMPONENTS,
  CACHE_HEADERS,
  headerRef,
  ORIGIN_FIRST,
  withAuthChallenges,
  withDefaultProblem,
  withOperationHeaders,
  withResponseHeaders,
  withUriTooLong,
} from '../../platform/http/openapi-operations.ts';
import { PROBLEM_MEDIA_TYPE } from '../../platform/problem/render-problem-json.ts';
import { type ClaimCatalog, visibleClaims } from '../claims/build-claim-catalog.ts';
import { CCCEV_MEDIA_TYPE, CLAIM_RESULT_MEDIA_TYPE, type VerifierConfig } from '../config/schema.ts';
import { acceptsApiKeys, publicBase } from '../routes/discovery.ts';
import { DISCOVERY_SCHEMAS } from './discovery-schemas.ts';
import { requestSchemas } from './request-schemas.ts';
import { RESULT_SCHEMAS } from './result-schemas.ts';

const problem = (description: string) => ({
  description,
  content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
});
/** A refusal that may say when to try again. */
const retryable = (description: string) => ({
  ...problem(description),
  headers: {
    'Retry-After': {
      description: 'Seconds to wait before trying again, when known',
      schema: { type: 'string' },
    },
  },
});
const json = (description: string, schema: object = { type: 'object' }) => ({
  description,
  content: { 'application/json': { schema } },
});
/** A JSON answer whose body is the named component schema. */
const jsonOf = (description: string, name: string) =>
  json(description, { $ref: `#/components/schemas/${name}` });
/** Claim results in either format an evaluation is made and rendered in. */
const RESULT_CONTENT = {
  [CLAIM_RESULT_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/ClaimResults' } },
  [CCCEV_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/CccevEvidence' } },
};
/** What every route that takes a credential may answer; each of them is audited, and fails closed. */
const COMMON_ERRORS = {
  '400': problem('Bad request'),
  '401': problem('Not authenticated'),
  '403': problem('Scope denied'),
  '500': problem('Audit record not written'),
};
/** What every POST route may also answer: its body refused, its time-out. */
const POST_ERRORS = {
  '413': problem('Body larger than 1 MiB'),
  '415': problem('Body not application/json'),
  '504': problem('Request timed out'),
};

/** `components.headers` of the verifier's caching headers, beside the shared `CACHE_HEADER_COMPONENTS`. */
const HEADER_COMPONENTS = {
  CacheControlPrivate: {
    required: true,
    description: 'The answer depends on the credential: no cache may keep it',
    schema: { type: 'string', const: 'private, no-store' },
  },
  CacheControlNoStore: {
    required: true,
    description: 'Evaluation results are never stored by any cache',
    schema: { type: 'string', const: 'no-store' },
  },
  VaryCredential: {
    required: true,
    description: `\`Authorization, x-api-key\`${ORIGIN_FIRST}: the answer depends on the caller's claims`,
    schema: { type: 'string' },
  },
  VaryAccept: {
    required: true,
    description: `\`Accept\`${ORIGIN_FIRST}: the result format is negotiated`,
    schema: { type: 'string' },
  },
};
/** Discovery answers, refusals included (routes/discovery.ts `privateView`). */
const PRIVATE_VIEW = { 'Cache-Control': headerRef('CacheControlPrivate'), Vary: headerRef('VaryCredential') };
/** Claim results, as an evaluation or a render sends them (routes/send-results.ts). */
const RESULT_HEADERS = { 'Cache-Control': headerRef('CacheControlNoStore'), Vary: headerRef('VaryAccept') };

/**
 * What every route may answer besides its own: 414 `request.uri_too_long`, and in OIDC mode the token check's 403
 * and 503 on every route that authenticates; its 401s and 403s carry the Bearer challenge. Every answer carries
 * `Cache-Control` and, where CORS is configured, `Vary: Origin`.
 */
function withSharedResponses(
  config: VerifierConfig,
  paths: Record<string, unknown>,
): Record<string, unknown> {
  const all = withUriTooLong(paths, problem('URI too long'));
  return withResponseHeaders(
    withDefaultProblem(
      withAuthChallenges(config.auth.mode === 'oidc' ? withOidcAuthResponses(all, problem) : all),
      problem('Any other error: 500 `internal.unhandled`, 503 `state.unavailable`, 504 `internal.timeout`'),
    ),
    CACHE_HEADERS,
  );
}

/** The ids of the claims the document names for this caller: none for the public document. */
export function openApiClaimIds(catalog: ClaimCatalog, principal: Principal | undefined): string[] {
  return principal ? visibleClaims(catalog, principal).map((claim) => claim.id) : [];
}

export function buildVerifierOpenApi(
  config: VerifierConfig,
  claimIds: readonly string[],
  version: string,
): Record<string, unknown> {
  const apiKeys = acceptsApiKeys(config);
  const server = publicBase(config);
  const claimId = claimIds.length > 0 ? { type: 'string', enum: [...claimIds] } : { type: 'string' };
  return {
    openapi: '3.1.0',
    info: { title: `${config.evidence.service_id} evidence verifier`, version },
    ...(server ? { servers: [{ url: server }] } : {}),
    security: apiKeys ? [{ apiKey: [] }, { bearer: [] }] : [{ bearer: [] }],
    paths: withSharedResponses(config, {
      '/healthz': {
        get: {
          operationId: 'healthz',
          summary: 'Liveness',
          security: [],
          responses: { '200': jsonOf('Alive', 'Health') },
        },
      },
      '/ready': {
        get: {
          operationId: 'ready',
          summary: 'Readiness',
          security: [],
          responses: {
            '200': jsonOf('Ready', 'Readiness'),
            '503': retryable('Not ready: the state store is unavailable, or no CEL worker could be started'),
          },
        },
      },
      '/.well-known/evidence-service': {
        get: withOperationHeaders(
          {
            operationId: 'evidenceService',
            summary: 'Capability envelope: claims and capabilities',
            responses: { '200': jsonOf('Service document', 'ServiceDocument'), ...COMMON_ERRORS },
          },
          PRIVATE_VIEW,
        ),
      },
      '/v1/claims': {
        get: withOperationHeaders(
          {
            operationId: 'listClaims',
            summary: 'Claims the caller may evaluate',
            responses: { '200': jsonOf('Claim list', 'ClaimList'), ...COMMON_ERRORS },
          },
          PRIVATE_VIEW,
        ),
      },
      '/v1/claims/{claim_id}': {
        get: withOperationHeaders(
          {
            operationId: 'getClaim',
            summary: 'One claim',
            parameters: [{ name: 'claim_id', in: 'path', required: true, schema: claimId }],
            responses: {
              '200': jsonOf('Claim', 'ClaimSummary'),
              '404': problem('Unknown or not visible'),
              ...COMMON_ERRORS,
            },
          },
          PRIVATE_VIEW,
        ),
      },
      '/v1/formats': {
        get: withOperationHeaders(
          {
            operationId: 'listFormats',
            summary: 'Result formats',
            responses: { '200': jsonOf('Formats', 'FormatList'), ...COMMON_ERRORS },
          },
          PRIVATE_VIEW,
        ),
      },
      '/v1/evaluations': {
        post: {
          operationId: 'evaluate',
          summary: 'Evaluate claims about one target',
          parameters: [
            { name: 'Data-Purpose', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'x-request-id', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/EvaluationRequest' } } },
          },
          responses: {
            '200': {
              description: 'Claim results',
              headers: RESULT_HEADERS,
              content: RESULT_CONTENT,
            },
            ...COMMON_ERRORS,
            ...POST_ERRORS,
            '404': problem('Unknown claim'),
            '406': problem('Format not supported'),
            '409': problem('Evidence not available'),
            '500': problem('Rule evaluation failed, or audit record not written'),
            '501': problem('Operation unsupported'),
            '503': retryable('Source or state store unavailable'),
          },
        },
      },
      '/v1/batch-evaluations': {
        post: {
          operationId: 'evaluateBatch',
          summary: 'Evaluate claims about many targets, each item on its own',
          parameters: [
            { name: 'Data-Purpose', in: 'header', required: false, schema: { type: 'string' } },
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description: 'Replays the stored response of the same request by the same caller.',
              // As the route reads it: 1 to 255 visible ASCII characters, no spaces.
              schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
            },
            { name: 'x-request-id', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/BatchEvaluationRequest' } },
            },
          },
          responses: {
            '200': {
              ...jsonOf('Per-item outcomes', 'BatchEvaluationResponse'),
              headers: {
                'Cache-Control': headerRef('CacheControlNoStore'),
                'Idempotent-Replayed': {
                  description: 'The stored answer to an earlier request with the same Idempotency-Key',
                  schema: { const: 'true' },
                },
              },
            },
            ...COMMON_ERRORS,
            ...POST_ERRORS,
            '404': problem('Unknown claim'),
            '406': problem('Format not supported'),
            '409': retryable('Idempotency-Key used for another request, or its first request still running'),
            '413': problem('Batch or body too large'),
            '501': problem('Operation unsupported'),
            '503': retryable('State store unavailable'),
          },
        },
      },
      '/v1/evaluations/{evaluation_id}/render': {
        post: {
          operationId: 'renderEvaluation',
          summary: 'Render a stored evaluation of the caller again, in the format it was made in',
          parameters: [
            { name: 'evaluation_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'Data-Purpose', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: {
            required: false,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/RenderRequest' } } },
          },
          responses: {
            '200': {
              description: 'The stored claim results',
              headers: RESULT_HEADERS,
              content: RESULT_CONTENT,
            },
            ...COMMON_ERRORS,
            ...POST_ERRORS,
            '403': problem('Scope denied or binding mismatch'),
            '404': problem("Unknown, expired or another caller's evaluation"),
            '406': problem('Format not supported'),
            '503': retryable('State store unavailable'),
          },
        },
      },
    }),
    components: {
      // A scheme the service refuses is left out: the docs page would offer it for "Try it out".
      securitySchemes: {
        ...(apiKeys ? { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } : {}),
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string' },
            request_id: { type: 'string' },
            claim_id: {
              type: 'string',
              description:
                'The claim, as requested, whose check or evaluation failed; absent for the whole request.',
            },
            errors: {
              type: 'array',
              maxItems: 10,
              description: '`request.invalid` of a body: where it went wrong (`items.3.target.id`), and how.',
              items: {
                type: 'object',
                required: ['path', 'message'],
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
            max_items: {
              type: 'integer',
              minimum: 1,
              description: '`batch.too_large`: the most items a batch of these claims may hold.',
            },
            retryable: {
              type: 'boolean',
              description:
                '`source.unavailable`, `state.unavailable`: whether the same request can pass later (false: it fails again until an operator acts).',
            },
            checks: {
              type: 'object',
              description: '`readiness.not_ready`: the state store and whether CEL workers could start.',
            },
          },
        },
        ...DISCOVERY_SCHEMAS,
        ...RESULT_SCHEMAS,
        ...requestSchemas(claimIds, config.evidence.inline_batch_limit),
      },
      headers: { ...CACHE_HEADER_COMPONENTS, ...HEADER_COMPONENTS },
    },
  };
}
