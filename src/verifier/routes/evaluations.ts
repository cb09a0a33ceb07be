// POST /v1/evaluations: authenticate -> parse -> plan (no reads) -> evaluate -> build results -> store -> render.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { canonicalJson } from '../../platform/audit/canonical-json.ts';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import { type ClaimOutcome, evaluateClaims } from '../claims/evaluate-claims.ts';
import { CCCEV_MEDIA_TYPE } from '../config/schema.ts';
import { auditCodeOf } from '../connectors/failure-reason.ts';
import { buildClaimResult, type ClaimResult, type TargetRef } from '../evaluation/build-claim-result.ts';
import { type EvaluationTarget, parseEvaluationRequest } from '../evaluation/parse-evaluation-request.ts';
import { planEvaluation } from '../evaluation/plan-evaluation.ts';
import { renderCccev } from '../evaluation/render-cccev.ts';
import { verifierProblem } from '../problems.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';

export function registerEvaluationRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  app.post('/v1/evaluations', async (request, reply) => {
    const facts = auditFacts(request);
    facts.endpointKind = 'evaluate';
    facts.decision = 'evaluate_denied';
    const principal = await runtime.authenticate(request);
    if (request.headers['idempotency-key'] !== undefined) {
      throw verifierProblem('request.invalid', 'Idempotency-Key is accepted on batch evaluations only.');
    }
    const body = parseEvaluationRequest(request.body);
    facts.claimIds = body.claims.map((ref) => ref.id);
    facts.targetType = body.target.type;
    facts.identifierSchemes = [...body.target.identifiers.keys()].sort();
    facts.targetRefHash = keyedHash(runtime.hashSecret, 'audit:target', targetIdentity(body.target));
    const plan = planEvaluation(runtime.config, runtime.catalog, principal, body, request.headers);
    facts.purpose = plan.purpose;
    facts.format = plan.format;
    facts.scopesUsed = [...plan.scopesUsed];
    const disclosures = new Set(plan.disclosures.values());
    facts.disclosure = disclosures.size === 1 ? [...disclosures][0] : 'mixed';

    const startedAt = runtime.clock.now();
    const evaluationId = runtime.random.ulid(startedAt);
    facts.evaluationId = evaluationId;
    const trace = { sourceReads: 0 };
    let outcomes: Map<string, ClaimOutcome>;
    try {
      outcomes = await evaluateClaims(
        runtime.engine,
        plan.claims.map((claim) => claim.id),
        {
          target: body.target,
          purpose: plan.purpose,
          requestId: request.ctx.clientRequestId ?? request.ctx.requestId,
          today: new Date(startedAt).toISOString().slice(0, 10),
        },
        trace,
      );
    } catch (error) {
      facts.errorDetailCode = auditCodeOf(error);
      throw error;
    } finally {
      facts.sourceReadCount = trace.sourceReads;
    }

    const targetRef = buildTargetRef(runtime.hashSecret, body.target);
    const issuedAt = new Date(startedAt).toISOString();
    const versions = new Map([...runtime.catalog.claims].map(([id, entry]) => [id, entry.config.version]));
    const results = plan.claims.map((claim) =>
      buildClaimResult({
        evaluationId,
        serviceId: runtime.config.evidence.service_id,
        claim: claim.config,
        outcome: outcomes.get(claim.id) as ClaimOutcome,
        disclosure: plan.disclosures.get(claim.id) ?? 'redacted',
        format: plan.format,
        targetRef,
        issuedAt,
        dependencyVersions: versions,
      }),
    );
    facts.sourceCount = new Set([...outcomes.values()].flatMap((outcome) => [...outcome.sources])).size;
    await runtime.store.put({
      evaluation_id: evaluationId,
      principal_hash: keyedHash(runtime.hashSecret, 'principal', principal.id),
      purpose: plan.purpose,
      claim_ids: plan.claims.map((claim) => claim.id),
      disclosure: facts.disclosure as 'value',
      format: plan.format,
      results,
      created_at: startedAt,
      expires_at: startedAt + runtime.config.state.evaluation_retention,
      request_hash: `sha256:${createHash('sha256').update(canonicalJson(request.body), 'utf8').digest('hex')}`,
    });
    facts.decision = 'evaluate';
    return sendResults(reply, runtime, plan.format, results);
  });
}

function sendResults(
  reply: FastifyReply,
  runtime: VerifierRuntime,
  format: string,
  results: readonly ClaimResult[],
) {
  reply.header('cache-control', 'no-store').header('vary', 'Accept');
  const body =
    format === CCCEV_MEDIA_TYPE
      ? renderCccev(
          results,
          new Map([...runtime.catalog.claims].map(([id, claim]) => [id, claim.config])),
          runtime.config.evidence.service_id,
        )
      : { results };
  // A Buffer keeps the media type exactly as negotiated (no charset parameter appended).
  return reply.header('content-type', format).send(Buffer.from(JSON.stringify(body)));
}

/** The identity a target handle and audit hash stand for: type, id and identifiers, never attributes. */
function targetIdentity(target: EvaluationTarget): string {
  const identifiers = [...target.identifiers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalJson({ type: target.type, id: target.id ?? null, identifiers });
}

function buildTargetRef(secret: Buffer, target: EvaluationTarget): TargetRef {
  const digest = keyedHash(secret, 'target_ref', targetIdentity(target)).slice('hmac-sha256:'.length);
  return {
    type: target.type,
    handle: `amref:v1:${digest.slice(0, 32)}`,
    identifier_schemes: [...target.identifiers.keys()].sort(),
  };
}
