// The verifier's EvidenceAuditEvent (verifier contract §6): what was decided for whom and why, with every
// identifier as a keyed hash; no target identifiers, claim values, source rows or credentials. One per request,
// and one more per item of a batch.
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import { UNROUTED_PATH } from '../../platform/audit/unrouted-path.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import type { VerifierAuditFacts } from '../verifier-runtime.ts';
import { principalHash } from './principal-hash.ts';

export interface EvidenceAuditContext {
  readonly secret: Buffer;
  readonly now: number;
  readonly eventId: string;
}

/** What one batch item came to, for its own event. */
export interface BatchItemAudit {
  readonly inputIndex: number;
  /** 200 for an item that succeeded, else the status its problem carries. */
  readonly status: number;
  readonly problemCode: string | undefined;
  readonly facts: VerifierAuditFacts;
}

/**
 * What a request to an evaluation route is recorded as when its handler never ran (a body too large or not JSON):
 * that route's refusal, not an unnamed one, so that every refused evaluation, batch or render is counted as one.
 */
const ROUTE_REFUSALS: Readonly<Record<string, { endpointKind: string; decision: string }>> = {
  'POST /v1/evaluations': { endpointKind: 'evaluate', decision: 'evaluate_denied' },
  'POST /v1/batch-evaluations': { endpointKind: 'batch_evaluate', decision: 'batch_evaluate_denied' },
  'POST /v1/evaluations/:evaluation_id/render': { endpointKind: 'render', decision: 'render_failed' },
};

export function buildEvidenceAuditEvent(
  request: RouteRequest,
  reply: RouteReply,
  context: EvidenceAuditContext,
): Record<string, unknown> {
  const facts = routeFacts(request);
  const event = evidenceEvent(request, reply.statusCode, request.ctx.errorCode, facts, context);
  if (facts.endpointKind !== 'batch_evaluate') return event;
  return {
    ...event,
    // Null until the batch was planned: a batch refused before has no id and, maybe, no counted items.
    batch_id: facts.batchId ?? null,
    batch_size: facts.batchSize ?? null,
    batch_succeeded: facts.batchSucceeded ?? 0,
    batch_failed: facts.batchFailed ?? 0,
    upstream_request_count: facts.upstreamRequestCount ?? 0,
    // A key sent with a batch refused before it was looked at is neither `none` nor any use of it.
    idempotency: facts.idempotency ?? (request.headers['idempotency-key'] === undefined ? 'none' : null),
  };
}

/** The route's own facts, or for a request its handler never saw, the refusal of the route it was sent to. */
function routeFacts(request: RouteRequest): VerifierAuditFacts {
  const facts = request.ctx.audit as VerifierAuditFacts;
  if (facts.endpointKind !== undefined) return facts;
  const refusal = ROUTE_REFUSALS[`${request.method} ${request.routeOptions.url}`];
  return refusal === undefined ? facts : { ...facts, ...refusal };
}

/** The answer a batch was given before its items ended (its client went away, 499, or it timed out, 504). */
export interface BatchAnswered {
  readonly status: number;
  readonly problemCode: string | undefined;
}

/**
 * The event of one batch item: the batch's caller, route and policy facts with the item's own outcome. An item of a
 * batch answered before it ended reached nobody: it carries that answer, not a success, and keeps its own failure's
 * reason, if any, as `error_code`.
 */
export function buildBatchItemAuditEvent(
  request: RouteRequest,
  item: BatchItemAudit,
  context: EvidenceAuditContext,
  answered?: BatchAnswered,
): Record<string, unknown> {
  const batchFacts = request.ctx.audit as VerifierAuditFacts;
  const status = answered?.status ?? item.status;
  const problemCode = answered === undefined ? item.problemCode : answered.problemCode;
  const facts: VerifierAuditFacts =
    answered === undefined
      ? item.facts
      : {
          ...item.facts,
          decision: 'evaluate_denied',
          errorDetailCode: item.facts.errorDetailCode ?? item.problemCode ?? answered.problemCode,
        };
  return {
    ...evidenceEvent(request, status, problemCode, facts, context),
    batch_id: batchFacts.batchId ?? null,
    input_index: item.inputIndex,
  };
}

function evidenceEvent(
  request: RouteRequest,
  status: number,
  problemCode: string | undefined,
  facts: VerifierAuditFacts,
  context: EvidenceAuditContext,
): Record<string, unknown> {
  const ctx = request.ctx;
  const failed = status >= 400;
  return {
    event_type: 'EvidenceAuditEvent',
    event_id: context.eventId,
    occurred_at: new Date(context.now).toISOString(),
    request_id: ctx.requestId,
    // The caller's x-request-id is its own free text (often a case number or a person's id): keyed, as the
    // contract's `correlation_id_hash`. Our `request_id`, which the caller receives, correlates in the clear.
    correlation_id_hash:
      ctx.clientRequestId === undefined
        ? null
        : keyedHash(context.secret, 'correlation_id', ctx.clientRequestId),
    principal_id_hash: ctx.principal ? principalHash(context.secret, ctx.principal) : null,
    auth_mode: ctx.principal?.authMode ?? null,
    decision: facts.decision ?? (failed ? 'denied' : 'allowed'),
    endpoint_kind: facts.endpointKind ?? 'other',
    method: request.method,
    // Never the raw path of an unmatched request: it may hold an identifier (see UNROUTED_PATH).
    path: request.routeOptions.url ?? UNROUTED_PATH,
    status,
    verification_id: facts.evaluationId ?? null,
    claim_ids: facts.claimIds ?? [],
    purposes: facts.purposes ?? (facts.purpose === undefined ? [] : [facts.purpose]),
    scopes_used: facts.scopesUsed ?? [],
    disclosure: facts.disclosure ?? null,
    format: facts.format ?? null,
    target_type: facts.targetType ?? null,
    target_ref_hash: facts.targetRefHash ?? null,
    identifier_schemes: facts.identifierSchemes ?? [],
    source_read_count: facts.sourceReadCount ?? 0,
    source_count: facts.sourceCount ?? null,
    error_code: failed ? (facts.errorDetailCode ?? problemCode ?? null) : null,
    problem_code: failed ? (problemCode ?? null) : null,
    duration_ms: Math.max(0, context.now - ctx.startedAt),
  };
}
