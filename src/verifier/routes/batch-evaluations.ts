// POST /v1/batch-evaluations: authenticate -> size -> parse -> plan the whole batch (no reads) -> idempotency
// key -> run the items -> store -> one audit event per item and one for the batch -> the key's response kept for
// replay -> the answer written.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import { auditedClaimIds } from '../audit/audited-names.ts';
import { holdBatchItemEvents } from '../audit/batch-item-events.ts';
import { buildBatchItemAuditEvent } from '../audit/build-evidence-audit-event.ts';
import { EvaluationTrace } from '../claims/evaluate-claims.ts';
import { checkStillDisclosable } from '../claims/resolve-disclosure.ts';
import { CLAIM_RESULT_MEDIA_TYPE } from '../config/schema.ts';
import { auditCodeOf } from '../connectors/failure-reason.ts';
import { overallDisclosure, principalHash, requestHash } from '../evaluation/evaluate-target.ts';
import { countItems, parseBatchRequest } from '../evaluation/parse-batch-request.ts';
import { planBatch } from '../evaluation/plan-batch.ts';
import { runBatch } from '../evaluation/run-batch.ts';
import { verifierProblem } from '../problems.ts';
import type { EvaluationStore, IdempotencyOutcome } from '../state/evaluation-store.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';
import { authenticated, authenticateFirst } from './authenticate-first.ts';
import { checkStoreAvailable, evaluationDeadline } from './evaluations.ts';

const ROUTE = '/v1/batch-evaluations';
/** Printable ASCII without spaces, as the key is usually a UUID or a ULID. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** How long past the request timeout an unfinished key stays reserved for its request. */
const LEASE_MARGIN_MS = 5_000;

export function registerBatchEvaluationRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  const { config, store } = runtime;
  const releases = createKeyReleases(store, () => runtime.clock.now());
  // Retries waiting to release a key stop with the service: the store they would ask is being closed.
  app.addHook('onClose', async () => releases.stop());

  // The credential before the body (authenticate-first.ts).
  const onRequest = authenticateFirst(runtime, 'batch_evaluate', 'batch_evaluate_denied');
  app.post(ROUTE, { onRequest }, async (request, reply) => {
    const facts = auditFacts(request);
    const principal = await authenticated(runtime, request);
    const key = readIdempotencyKey(request.headers);
    const count = countItems(request.body);
    if (count > config.evidence.inline_batch_limit) {
      throw verifierProblem(
        'batch.too_large',
        `A batch holds at most ${config.evidence.inline_batch_limit} items; this one has ${count}.`,
        { extras: { max_items: config.evidence.inline_batch_limit } },
      );
    }
    const body = parseBatchRequest(request.body);
    facts.claimIds = auditedClaimIds(
      runtime.catalog,
      runtime.hashSecret,
      body.claims.map((ref) => ref.id),
    );
    facts.batchSize = body.items.length;
    const plan = planBatch(config, runtime.catalog, principal, body, request.headers);
    const purposes = [...new Set(plan.purposes)];
    if (purposes.length === 1) facts.purpose = purposes[0] as string;
    else facts.purposes = purposes;
    facts.format = plan.format;
    facts.scopesUsed = [...plan.scopesUsed];
    facts.disclosure = overallDisclosure(plan.disclosures);

    const startedAt = runtime.clock.now();
    const batchId = runtime.random.ulid(startedAt);
    facts.batchId = batchId;
    const owner = principalHash(runtime, principal);

    let held: HeldKey | undefined;
    // Until the store answers: a store that cannot be asked must not leave the event saying no key was sent.
    facts.idempotency = key === undefined ? 'none' : 'unavailable';
    checkStoreAvailable(runtime, facts);
    if (key !== undefined) {
      // Keyed: clients often derive keys from what a batch is about (a case, a person), and an unkeyed digest of
      // such a key gives it back to anyone who reads the store and tries the candidates.
      const scope = `${owner}:${ROUTE}:${keyedHash(runtime.hashSecret, 'idempotency-key', key)}`;
      const token = runtime.random.ulid(startedAt);
      const leaseUntil = startedAt + config.server.request_timeout + LEASE_MARGIN_MS;
      let outcome: IdempotencyOutcome;
      try {
        outcome = await store.beginIdempotent({
          scope,
          // Same body, purpose header and format: the same request. (The body alone could hide a changed purpose,
          // or a format `Accept` chose; that one is named only when it is not the body's or the default, so keys
          // taken before `Accept` could choose one keep replaying.)
          requestHash: requestHash(runtime, {
            body: request.body,
            purpose: request.headers['data-purpose'] ?? null,
            ...(body.format === undefined && plan.format !== CLAIM_RESULT_MEDIA_TYPE
              ? { format: plan.format }
              : {}),
          }),
          owner: token,
          leaseUntil,
          // Not before the lease: an expired key is free to take (and purged), so with a retention shorter than
          // the request a retry would run the batch a second time.
          expiresAt: Math.max(startedAt + config.state.evaluation_retention, leaseUntil),
        });
      } catch (error) {
        facts.errorDetailCode = auditCodeOf(error);
        // The store may have taken the key before its answer was lost: a retry would be told, until the lease
        // ends, that this request is still running. In the background: the 503 need not wait for the store again.
        void releases.release({ scope, owner: token, leaseUntil });
        throw error;
      }
      // A key refused is still a key used: the event says so rather than `none`.
      if (outcome.kind === 'conflict' || outcome.kind === 'in_progress') facts.idempotency = 'conflict';
      if (outcome.kind === 'conflict') {
        throw verifierProblem(
          'idempotency.conflict',
          'This Idempotency-Key was used for a different request; use a new key.',
        );
      }
      if (outcome.kind === 'in_progress') {
        throw verifierProblem(
          'idempotency.conflict',
          'The first request with this Idempotency-Key is still running; retry shortly.',
          { headers: { 'retry-after': '1' } },
        );
      }
      if (outcome.kind === 'replay') {
        facts.idempotency = 'replayed';
        const replayed = parseReplayed(outcome.response.body);
        facts.batchId = typeof replayed?.batch_id === 'string' ? replayed.batch_id : batchId;
        // A replay answers results made under the configuration of the first request: only while each claim still
        // allows its results' level, as a render (the plan above judged this request's levels, not those).
        checkReplayDisclosable(runtime, replayed);
        facts.decision = 'batch_evaluate';
        return reply
          .code(outcome.response.status)
          .header('cache-control', 'no-store')
          .header('idempotent-replayed', 'true')
          .header('content-type', outcome.response.content_type)
          .send(Buffer.from(outcome.response.body));
      }
      held = { scope, owner: token, leaseUntil };
      facts.idempotency = 'new';
    }

    try {
      const run = await runBatch(runtime, body, plan, {
        batchId,
        principalHash: owner,
        requestId: request.ctx.clientRequestId ?? request.ctx.requestId,
        startedAt,
        deadline: evaluationDeadline(request),
        // The items' reads, counted into the audit facts as they leave (a 504 is audited with those made so far).
        reads: new EvaluationTrace(facts),
        // And the requests: a batch answered before its items ended (499, 504) is audited with those sent so far.
        requests: {
          requestSent() {
            facts.upstreamRequestCount = (facts.upstreamRequestCount ?? 0) + 1;
          },
        },
        answered: () => request.ctx.responding === true,
      });
      facts.upstreamRequestCount = run.upstreamRequests;
      const summary = run.response.summary as { succeeded: number; failed: number };
      facts.batchSucceeded = summary.succeeded;
      facts.batchFailed = summary.failed;
      // Answered already (the batch's own event is written): the items reached nobody, and their events say so.
      const answered = request.ctx.responding
        ? { status: reply.statusCode, problemCode: request.ctx.errorCode }
        : undefined;
      if (answered) {
        await runtime.writeAuditRecords(
          run.reports.map((report) => {
            const now = runtime.clock.now();
            const context = { secret: runtime.hashSecret, now, eventId: runtime.random.ulid(now) };
            return buildBatchItemAuditEvent(request, report, context, answered);
          }),
        );
      } else {
        // Written with the batch's own event, in one append, once its answer is known.
        holdBatchItemEvents(request, run.reports);
      }
      if (run.storeFailure !== undefined) {
        facts.errorDetailCode = auditCodeOf(run.storeFailure);
        throw run.storeFailure;
      }
      const text = JSON.stringify(run.response);
      if (held && answered) {
        // Nobody received this response and its evaluations were not kept: a retry (what a client that gave up
        // does) must run afresh, not replay ids that render 404.
        const unanswered = held;
        held = undefined;
        await releases.release(unanswered);
      } else if (held) {
        const owned = held;
        // Kept for replay only once the batch's audit records are written, and before the answer goes out (it
        // waits): a request with the key meanwhile is told the first is still running, never handed a response
        // the trail might not record. Replaced by a problem (those records failed), the key is released instead,
        // before the problem goes out: a retry runs afresh.
        request.ctx.onReplaced = () => releases.release(owned);
        request.ctx.onCommitted = async () => {
          try {
            await store.completeIdempotent(
              owned.scope,
              owned.owner,
              { status: 200, content_type: 'application/json', body: text },
              // The replay lives as long as the evaluations it names.
              startedAt + config.state.evaluation_retention,
            );
          } catch {
            // The answer and its record stand; the key is freed (before the answer goes out) so that a retry runs
            // rather than waits.
            await releases.release(owned);
          }
        };
      }
      facts.decision = 'batch_evaluate';
      return reply
        .header('cache-control', 'no-store')
        .header('content-type', 'application/json')
        .send(Buffer.from(text));
    } catch (error) {
      // A store failure keeps its precise reason (`state.timeout`...) for the audit event.
      facts.errorDetailCode ??= auditCodeOf(error);
      if (held) await releases.release(held);
      throw error;
    }
  });
}

interface HeldKey {
  readonly scope: string;
  readonly owner: string;
  /** Past it the key is free to take anyway. */
  readonly leaseUntil: number;
}

const RELEASE_RETRY_MS = 1_000;

interface KeyReleases {
  /** Releases the key of a failed batch, retrying in the background when the store fails. */
  release(held: HeldKey): Promise<void>;
  /** Cancels the retries waiting and refuses new ones. */
  stop(): void;
}

/**
 * Releases the keys of failed batches so that a retry runs afresh. When the store is what failed, a release is
 * tried again in the background until it succeeds or the lease ends: otherwise a retry would be told, until then,
 * that the first request is still running. Never once the store is closed or the service stopped: a closed store
 * fails every attempt, and its timers would outlive the service.
 */
function createKeyReleases(store: EvaluationStore, now: () => number): KeyReleases {
  const waiting = new Set<NodeJS.Timeout>();
  let stopped = false;
  const release = async (held: HeldKey): Promise<void> => {
    try {
      await store.abandonIdempotent(held.scope, held.owner);
    } catch {
      if (stopped || store.isClosed() || now() + RELEASE_RETRY_MS >= held.leaseUntil) return;
      const timer = setTimeout(() => {
        waiting.delete(timer);
        if (!stopped && !store.isClosed()) void release(held);
      }, RELEASE_RETRY_MS);
      timer.unref();
      waiting.add(timer);
    }
  };
  return {
    release,
    stop() {
      stopped = true;
      for (const timer of waiting) clearTimeout(timer);
      waiting.clear();
    },
  };
}

function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || !IDEMPOTENCY_KEY.test(raw)) {
    throw verifierProblem(
      'request.invalid',
      'Send one Idempotency-Key of 1 to 255 printable characters without spaces.',
    );
  }
  return raw;
}

interface ReplayedBatch {
  readonly batch_id?: unknown;
  readonly items?: readonly { readonly claim_results?: readonly Record<string, unknown>[] }[];
}

function parseReplayed(body: string): ReplayedBatch | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as ReplayedBatch) : undefined;
  } catch {
    return undefined;
  }
}

/** 403 `claim.disclosure_not_allowed` when a claim of the stored response no longer allows its results' level. */
function checkReplayDisclosable(runtime: VerifierRuntime, replayed: ReplayedBatch | undefined): void {
  for (const item of Array.isArray(replayed?.items) ? replayed.items : []) {
    for (const result of Array.isArray(item?.claim_results) ? item.claim_results : []) {
      const claim = runtime.catalog.claims.get(String(result.claim_id));
      // The request named its claims, and planning it found each of them.
      if (claim) checkStillDisclosable(claim.config, result.disclosure);
    }
  }
}
