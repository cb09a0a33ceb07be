// POST /v1/evaluations: authenticate -> parse -> plan (no reads) -> evaluate -> build results -> store -> render.
import type { FastifyInstance } from 'fastify';
import type { Deadline } from '../../platform/deadline.ts';
import { addJsonPostRoute } from '../../platform/http/fast-lane.ts';
import { liveDeadline } from '../../platform/http/request-watchdog.ts';
import type { RouteRequest } from '../../platform/http/route-types.ts';
import { auditedClaimIds, auditedSchemes, auditedTargetType } from '../audit/audited-names.ts';
import { EvaluationTrace } from '../claims/evaluate-claims.ts';
import { auditCodeOf } from '../connectors/failure-reason.ts';
import { requestTimedOut } from '../connectors/source-reader.ts';
import {
  evaluateTarget,
  overallDisclosure,
  principalHash,
  requestHash,
  storedEvaluation,
  type TargetEvaluation,
} from '../evaluation/evaluate-target.ts';
import { parseEvaluationRequest } from '../evaluation/parse-evaluation-request.ts';
import { planEvaluation } from '../evaluation/plan-evaluation.ts';
import { targetKeys } from '../evaluation/target-ref.ts';
import { verifierProblem } from '../problems.ts';
import { auditFacts, type VerifierAuditFacts, type VerifierRuntime } from '../verifier-runtime.ts';
import { authenticated, authenticateFirst } from './authenticate-first.ts';
import { resultsResponse } from './send-results.ts';

export function registerEvaluationRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  addJsonPostRoute(
    app,
    '/v1/evaluations',
    async (request, reply) => {
      const facts = auditFacts(request);
      facts.endpointKind = 'evaluate';
      facts.decision = 'evaluate_denied';
      const principal = await authenticated(runtime, request);
      if (request.headers['idempotency-key'] !== undefined) {
        throw verifierProblem('request.invalid', 'Idempotency-Key is accepted on batch evaluations only.');
      }
      const body = parseEvaluationRequest(request.body);
      const { catalog, hashSecret } = runtime;
      facts.claimIds = auditedClaimIds(
        catalog,
        hashSecret,
        body.claims.map((ref) => ref.id),
      );
      facts.targetType = auditedTargetType(catalog, hashSecret, body.target.type);
      facts.identifierSchemes = auditedSchemes(catalog, hashSecret, body.target.identifiers.keys());
      const target = targetKeys(runtime.hashSecret, body.target, runtime.catalog.lookupAttributes);
      facts.targetRefHash = target.auditHash;
      const plan = planEvaluation(runtime.config, runtime.catalog, principal, body, request.headers);
      facts.purpose = plan.purpose;
      facts.format = plan.format;
      facts.scopesUsed = [...plan.scopesUsed];
      const disclosure = overallDisclosure(plan.disclosures);
      facts.disclosure = disclosure;

      checkStoreAvailable(runtime, facts);
      const startedAt = runtime.clock.now();
      const evaluationId = runtime.random.ulid(startedAt);
      facts.evaluationId = evaluationId;
      // Counted as reads leave, into the audit facts: a 504 sent meanwhile is audited with the reads made so far.
      const trace = new EvaluationTrace(facts);
      const deadline = evaluationDeadline(request);
      let evaluation: TargetEvaluation;
      try {
        evaluation = await evaluateTarget(
          runtime,
          {
            engine: runtime.engine,
            claims: plan.claims,
            target: body.target,
            targetRef: target.ref,
            purpose: plan.purpose,
            requestId: request.ctx.clientRequestId ?? request.ctx.requestId,
            disclosures: plan.disclosures,
            format: plan.format,
            evaluationId,
            startedAt,
            deadline,
          },
          trace,
        );
      } catch (error) {
        facts.errorDetailCode = auditCodeOf(error);
        throw error;
      }
      facts.sourceCount = evaluation.sourceCount;
      // Answered meanwhile (timed out, or its client went away, which brings the deadline to then): the client never
      // learns this evaluation's id, so it is not kept. What is thrown here is dropped as the answer was sent already.
      if (request.ctx.responding)
        throw requestTimedOut('request.answered', 'the request was answered already');
      const stored = storedEvaluation(runtime, {
        evaluation_id: evaluationId,
        principal_hash: principalHash(runtime, principal),
        purpose: plan.purpose,
        claim_ids: plan.claims.map((claim) => claim.id),
        disclosure,
        format: plan.format,
        results: evaluation.results,
        created_at: startedAt,
        request_hash: requestHash(runtime, request.body),
      });
      try {
        await runtime.store.put(stored);
      } catch (error) {
        facts.errorDetailCode = auditCodeOf(error);
        throw error;
      }
      facts.decision = 'evaluate';
      // Sent here, not only returned: the fast lane serves this route too, and it sends nothing a handler returns.
      return reply.send(resultsResponse(reply, runtime, plan.format, evaluation.results, stored.cccev_terms));
    },
    { beforeBody: authenticateFirst(runtime, 'evaluate', 'evaluate_denied') },
  );
}

/**
 * Before any read: a result that could not be kept is not worth a consultation of the sources. A refusal keeps its
 * precise reason for the audit event.
 */
export function checkStoreAvailable(runtime: VerifierRuntime, facts: VerifierAuditFacts): void {
  try {
    runtime.store.checkAvailable();
  } catch (error) {
    facts.errorDetailCode = auditCodeOf(error);
    throw error;
  }
}

/**
 * When the request is answered 504 if it is still running, or at once if its client goes away first: reads get the
 * time left until then and none starts later. A request no longer watched has had its answer already.
 */
export function evaluationDeadline(request: RouteRequest): Deadline {
  return liveDeadline(request);
}
