// POST /v1/evaluations/{evaluation_id}/render: a stored evaluation again, in the format it was made in, for the
// caller that made it. Nothing is read or evaluated anew.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import { isClaimVisible } from '../claims/build-claim-catalog.ts';
import { checkStillDisclosable } from '../claims/resolve-disclosure.ts';
import { DISCLOSURE_LEVELS } from '../config/schema.ts';
import { auditCodeOf } from '../connectors/failure-reason.ts';
import { principalHash } from '../evaluation/evaluate-target.ts';
import { acceptableFormats } from '../evaluation/negotiate-format.ts';
import { claimRefSchema, parseOrReject } from '../evaluation/parse-evaluation-request.ts';
import { readOptionalPurpose } from '../evaluation/plan-evaluation.ts';
import { verifierProblem } from '../problems.ts';
import type { StoredEvaluation } from '../state/evaluation-store.ts';
import { auditFacts, type VerifierAuditFacts, type VerifierRuntime } from '../verifier-runtime.ts';
import { authenticated, authenticateFirst } from './authenticate-first.ts';
import { resultsResponse } from './send-results.ts';
import { useStrictJsonParser } from './strict-json-parser.ts';

const EVALUATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const renderBodySchema = z.strictObject({
  format: z.string().min(1).max(256).optional(),
  // As the evaluation request names them: a version, when given, must be the one evaluated.
  claims: z.array(claimRefSchema).min(1).max(32).optional(),
  disclosure: z.enum([...DISCLOSURE_LEVELS, 'mixed']).optional(),
  purpose: z.string().min(1).max(512).optional(),
});

export function registerRenderRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  // The body is optional: an empty one, even sent as application/json, asks for nothing (no options).
  app.register(async (scope) => {
    useStrictJsonParser(scope, { emptyAsNone: true });
    registerRenderRoute(scope, runtime);
  });
}

function registerRenderRoute(app: FastifyInstance, runtime: VerifierRuntime): void {
  app.post<{ Params: { evaluation_id: string } }>(
    '/v1/evaluations/:evaluation_id/render',
    // The credential before the body (authenticate-first.ts).
    { onRequest: authenticateFirst(runtime, 'render', 'render_failed') },
    async (request, reply) => {
      const facts = auditFacts(request);
      const principal = await authenticated(runtime, request);
      // Only a missing (or blank) body stands for no options; a JSON `null` is refused as any non-object is.
      const body = parseOrReject(renderBodySchema, request.body === undefined ? {} : request.body);
      const id = request.params.evaluation_id;
      // Unknown, another caller's and expired evaluations answer alike.
      const notFound = () =>
        verifierProblem(
          'evaluation.not_found',
          'No stored evaluation with this id is available to the caller.',
        );
      if (!EVALUATION_ID.test(id)) throw notFound();
      const stored = await readStored(runtime, id, principalHash(runtime, principal), facts);
      if (!stored) throw notFound();
      facts.evaluationId = id;
      facts.claimIds = [...stored.claim_ids];
      facts.purpose = stored.purpose;
      facts.format = stored.format;
      facts.disclosure = stored.disclosure;

      // The caller must still hold what evaluating the claims takes (scopes may have been withdrawn since).
      const scopes = new Set<string>();
      for (const claimId of stored.claim_ids) {
        const claim = runtime.catalog.claims.get(claimId);
        if (!claim) throw notFound();
        if (!isClaimVisible(claim, principal)) {
          throw platformProblem(
            'auth.scope_denied',
            `The credential lacks a scope claim ${claimId} requires.`,
          );
        }
        for (const scope of claim.requiredScopes) scopes.add(scope);
        // Nor a level the claim no longer discloses (its policy changed since: a restart, another instance).
        for (const result of stored.results) {
          if (result.claim_id === claimId) checkStillDisclosable(claim.config, result.disclosure);
        }
      }
      facts.scopesUsed = [...scopes].sort();

      const format = renderFormat(request.headers, body.format, stored);
      checkBinding(stored, format, body, readOptionalPurpose(request.headers, body.purpose));
      facts.decision = 'render';
      return resultsResponse(reply, runtime, stored.format, stored.results, stored.cccev_terms);
    },
  );
}

/**
 * The stored evaluation; a store failure keeps its precise reason (`state.timeout`...) for the audit event. A store
 * known to be down answers at once, as for evaluations: a database that takes connections and never answers would
 * otherwise hold every render for its connect time-out.
 */
async function readStored(
  runtime: VerifierRuntime,
  id: string,
  owner: string,
  facts: VerifierAuditFacts,
): Promise<StoredEvaluation | undefined> {
  try {
    runtime.store.checkAvailable();
    return await runtime.store.get(id, owner);
  } catch (error) {
    facts.errorDetailCode = auditCodeOf(error);
    throw error;
  }
}

/** The format asked for: the body `format` (which `Accept` must permit), else the best `Accept` offers. */
function renderFormat(
  headers: IncomingHttpHeaders,
  bodyFormat: string | undefined,
  stored: StoredEvaluation,
) {
  const accept = Array.isArray(headers.accept) ? headers.accept.join(', ') : headers.accept;
  const candidates: readonly string[] = acceptableFormats(accept, bodyFormat);
  return candidates.includes(stored.format) ? stored.format : (candidates[0] as string);
}

/** An evaluation renders only as it was made: same format, and the claims, disclosure and purpose if named. */
function checkBinding(
  stored: StoredEvaluation,
  format: string,
  body: z.infer<typeof renderBodySchema>,
  purpose: string | undefined,
): void {
  const mismatch = (what: string) =>
    verifierProblem('evaluation.binding_mismatch', `The evaluation was made with another ${what}.`);
  if (format !== stored.format) throw mismatch(`format (${stored.format})`);
  if (body.claims !== undefined) {
    const asked = new Set(body.claims.map((ref) => (typeof ref === 'string' ? ref : ref.id)));
    const made = new Set(stored.claim_ids);
    if (asked.size !== made.size || [...asked].some((claimId) => !made.has(claimId)))
      throw mismatch('set of claims');
    for (const ref of body.claims) {
      if (typeof ref === 'string' || ref.version === undefined) continue;
      const result = stored.results.find((entry) => entry.claim_id === ref.id);
      if (result?.claim_version !== ref.version) throw mismatch(`version of claim ${ref.id}`);
    }
  }
  if (body.disclosure !== undefined && body.disclosure !== stored.disclosure) throw mismatch('disclosure');
  if (purpose !== undefined && purpose !== stored.purpose) throw mismatch('purpose');
}
