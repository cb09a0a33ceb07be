// The verifier's EvidenceAuditEvent (verifier contract §6): what was decided for whom and why, with every
// identifier as a keyed hash; no target identifiers, claim values, source rows or credentials.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { VerifierAuditFacts } from '../verifier-runtime.ts';

export interface EvidenceAuditContext {
  readonly secret: Buffer;
  readonly now: number;
  readonly eventId: string;
}

export function buildEvidenceAuditEvent(
  request: FastifyRequest,
  reply: FastifyReply,
  context: EvidenceAuditContext,
): Record<string, unknown> {
  const ctx = request.ctx;
  const facts = ctx.audit as VerifierAuditFacts;
  const status = reply.statusCode;
  const failed = status >= 400;
  return {
    event_type: 'EvidenceAuditEvent',
    event_id: context.eventId,
    occurred_at: new Date(context.now).toISOString(),
    request_id: ctx.requestId,
    client_request_id: ctx.clientRequestId ?? null,
    principal_id_hash: ctx.principal ? keyedHash(context.secret, 'principal', ctx.principal.id) : null,
    auth_mode: ctx.principal?.authMode ?? null,
    decision: facts.decision ?? (failed ? 'denied' : 'allowed'),
    endpoint_kind: facts.endpointKind ?? 'other',
    method: request.method,
    path: request.routeOptions.url ?? (request.url.split('?')[0] as string),
    status,
    verification_id: facts.evaluationId ?? null,
    claim_ids: facts.claimIds ?? [],
    purposes: facts.purpose === undefined ? [] : [facts.purpose],
    scopes_used: facts.scopesUsed ?? [],
    disclosure: facts.disclosure ?? null,
    format: facts.format ?? null,
    target_type: facts.targetType ?? null,
    target_ref_hash: facts.targetRefHash ?? null,
    identifier_schemes: facts.identifierSchemes ?? [],
    source_read_count: facts.sourceReadCount ?? 0,
    source_count: facts.sourceCount ?? null,
    error_code: failed ? (facts.errorDetailCode ?? ctx.errorCode ?? null) : null,
    problem_code: failed ? (ctx.errorCode ?? null) : null,
    duration_ms: Math.max(0, context.now - ctx.startedAt),
  };
}
