// Authenticated discovery: the capability envelope, the claim catalogue and the formats, each filtered to the
// claims the caller holds every scope for.
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../platform/auth/principal.ts';
import type { RouteReply } from '../../platform/http/route-types.ts';
import { addVary } from '../../platform/http/vary.ts';
import { type CatalogClaim, visibleClaims } from '../claims/build-claim-catalog.ts';
import { offersOperation, renderClaimSummary } from '../claims/render-claim-summary.ts';
import { unknownClaim } from '../claims/unknown-claim.ts';
import {
  CCCEV_MEDIA_TYPE,
  CLAIM_RESULT_MEDIA_TYPE,
  SD_JWT_MEDIA_TYPE,
  type VerifierConfig,
} from '../config/schema.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';

const FORMAT_KINDS: Readonly<Record<string, string>> = {
  [CLAIM_RESULT_MEDIA_TYPE]: 'claim_result',
  [CCCEV_MEDIA_TYPE]: 'renderer',
  [SD_JWT_MEDIA_TYPE]: 'credential',
};

export function registerDiscoveryRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  app.get('/.well-known/evidence-service', async (request, reply) => {
    privateView(reply);
    auditFacts(request).endpointKind = 'discovery';
    const principal = await runtime.authenticate(request);
    return serviceDocument(runtime, principal);
  });

  app.get('/v1/claims', async (request, reply) => {
    privateView(reply);
    auditFacts(request).endpointKind = 'claims';
    const principal = await runtime.authenticate(request);
    return { data: visibleClaims(runtime.catalog, principal).map((claim) => summaryOf(runtime, claim)) };
  });

  app.get<{ Params: { claim_id: string } }>('/v1/claims/:claim_id', async (request, reply) => {
    privateView(reply);
    auditFacts(request).endpointKind = 'claims';
    const principal = await runtime.authenticate(request);
    // A claim the caller may not evaluate is not shown to it either.
    const claim = visibleClaims(runtime.catalog, principal).find(
      (entry) => entry.id === request.params.claim_id,
    );
    if (!claim) throw unknownClaim(request.params.claim_id);
    auditFacts(request).claimIds = [claim.id];
    return summaryOf(runtime, claim);
  });

  app.get('/v1/formats', async (request, reply) => {
    privateView(reply);
    auditFacts(request).endpointKind = 'formats';
    const principal = await runtime.authenticate(request);
    return { formats: formatsFor(runtime, principal) };
  });
}

/**
 * An answer that depends on the credential (the claims it may see), refusals included: no shared cache may keep it,
 * and none may hand it to a request with other credential headers. A shared cache may store what answers an
 * `x-api-key` request (only `Authorization` keeps it from doing so), which would show one caller's claims to another.
 */
export function privateView(reply: RouteReply): void {
  reply.header('cache-control', 'private, no-store');
  addVary(addVary(reply, 'Authorization'), 'x-api-key');
}

function summaryOf(runtime: VerifierRuntime, claim: CatalogClaim): Record<string, unknown> {
  return renderClaimSummary(claim, runtime.config.evidence.inline_batch_limit);
}

/** Formats offered by at least one visible claim; credential formats stay disabled until issuance exists. */
function formatsFor(runtime: VerifierRuntime, principal: Principal) {
  const offered = new Set<string>(
    visibleClaims(runtime.catalog, principal).flatMap((claim) => claim.config.formats),
  );
  return [CLAIM_RESULT_MEDIA_TYPE, CCCEV_MEDIA_TYPE, SD_JWT_MEDIA_TYPE]
    .filter((format) => offered.has(format))
    .map((format) => ({
      id: format,
      kind: FORMAT_KINDS[format],
      status: format === SD_JWT_MEDIA_TYPE ? 'disabled' : 'enabled',
    }));
}

/** What the caller can do: an operation is offered when one of the claims it may use enables it. */
function operationsFor(claims: ReturnType<typeof visibleClaims>) {
  return {
    evaluate: claims.some((claim) => offersOperation(claim, 'evaluate')),
    batch_evaluate: claims.some((claim) => offersOperation(claim, 'batch_evaluate')),
    // A stored evaluation is rendered whatever the claims offered now.
    render: true,
    credential_issue: false,
  };
}

function serviceDocument(runtime: VerifierRuntime, principal: Principal) {
  const { evidence } = runtime.config;
  const base = publicBase(runtime.config) ?? '';
  // `x-api-key` carries API keys only: a deployment with none (bearer tokens, or OIDC) does not offer it.
  const apiKeys = acceptsApiKeys(runtime.config);
  const claims = visibleClaims(runtime.catalog, principal);
  // As the verifier contract sets them: the issuer of the first credential profile (else the service), and the
  // service id as the audience a holder proof names.
  const firstProfile = Object.values(evidence.credential_profiles)[0];
  return {
    service_id: evidence.service_id,
    api_version: evidence.api_version,
    base_url: evidence.api_base_url ?? null,
    issuer: { id: firstProfile?.issuer ?? evidence.service_id, name: evidence.service_id },
    auth: {
      methods: apiKeys ? ['api_key', 'bearer'] : ['bearer'],
      ...(apiKeys ? { api_key: { header: 'x-api-key' } } : {}),
      bearer: { header: 'Authorization', scheme: 'bearer', format: 'Bearer <token>' },
      audience: evidence.service_id,
    },
    operations: operationsFor(claims),
    claims_url: `${base}/v1/claims`,
    formats_url: `${base}/v1/formats`,
    evaluations_url: `${base}/v1/evaluations`,
    batch_evaluations_url: `${base}/v1/batch-evaluations`,
    claims: claims.map((claim) => summaryOf(runtime, claim)),
    formats: formatsFor(runtime, principal),
    disclosure_levels: ['value', 'predicate', 'redacted'],
    batch: {
      max_inline_subjects: evidence.inline_batch_limit,
      idempotency_window: isoDuration(runtime.config.state.evaluation_retention),
    },
    evaluation_retention_seconds: Math.floor(runtime.config.state.evaluation_retention / 1000),
  };
}

/**
 * `evidence.api_base_url` without its trailing slashes: route paths, which begin with one, are appended to it (as
 * OpenAPI appends an operation's path to its server), so `https://host/base/` must not give `https://host/base//v1/...`.
 */
export function publicBase(config: VerifierConfig): string | undefined {
  return config.evidence.api_base_url?.replace(/(?<!\/)\/+$/, '');
}

/** Whether any credential is accepted in `x-api-key`: API keys are, bearer tokens and OIDC tokens are not. */
export function acceptsApiKeys(config: VerifierConfig): boolean {
  return config.auth.mode === 'api_key' && config.auth.api_keys.length > 0;
}

/** An ISO 8601 duration in whole minutes when it is one (`PT15M`), else in seconds. */
function isoDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds % 60 === 0 ? `PT${seconds / 60}M` : `PT${seconds}S`;
}
