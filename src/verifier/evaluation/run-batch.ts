// Runs a planned batch: announces every item's source lookups up front (so bulk connections read them with one
// `.in` request per binding), evaluates the items with bounded parallelism, stores each succeeded item's
// evaluation, and reports per item. One item's failure never fails another.
import type { Deadline } from '../../platform/deadline.ts';
import { isProblem, type Problem } from '../../platform/problem/problem.ts';
import { auditedSchemes, auditedTargetType } from '../audit/audited-names.ts';
import type { CatalogClaim } from '../claims/build-claim-catalog.ts';
import { checkLookupInputs, EvaluationTrace } from '../claims/evaluate-claims.ts';
import { createBatchReader } from '../connectors/create-batch-reader.ts';
import { createSemaphore, PermitTimeout } from '../connectors/create-semaphore.ts';
import { auditCodeOf, failsAgain } from '../connectors/failure-reason.ts';
import {
  type ReadTrace,
  type RequestCounter,
  requestTimedOut,
  type SourceLookup,
} from '../connectors/source-reader.ts';
import type { StoredEvaluation } from '../state/evaluation-store.ts';
import type { VerifierAuditFacts, VerifierRuntime } from '../verifier-runtime.ts';
import type { ClaimResult } from './build-claim-result.ts';
import { evaluateTarget, overallDisclosure, requestHash, storedEvaluation } from './evaluate-target.ts';
import type { BatchItem, BatchRequest } from './parse-batch-request.ts';
import { type EvaluationTarget, lookupValue } from './parse-evaluation-request.ts';
import type { BatchPlan } from './plan-batch.ts';
import { type TargetKeys, targetKeys } from './target-ref.ts';

export interface BatchContext {
  readonly batchId: string;
  readonly principalHash: string;
  readonly requestId: string;
  readonly startedAt: number;
  /** When the request is answered whatever happens (earlier if its client goes away): no read starts later. */
  readonly deadline: Deadline;
  /** Told of every item's reads as well. */
  readonly reads?: ReadTrace;
  /** Told of every upstream request as it leaves. */
  readonly requests?: RequestCounter;
  /** Whether the request was answered meanwhile (its client went away, or it timed out). */
  readonly answered?: () => boolean;
}

export interface BatchItemReport {
  readonly inputIndex: number;
  readonly status: number;
  readonly problemCode: string | undefined;
  readonly facts: VerifierAuditFacts;
}

export interface BatchRun {
  /** The response body. */
  readonly response: Record<string, unknown>;
  /** One per item, for its audit event. */
  readonly reports: readonly BatchItemReport[];
  /** Set when the evaluations could not be stored: the batch then fails as a whole. */
  readonly storeFailure: unknown;
  readonly upstreamRequests: number;
}

const RETRYABLE = new Set(['source.unavailable', 'internal.timeout']);

type ItemOutcome =
  | {
      readonly ok: true;
      readonly evaluationId: string;
      readonly results: ClaimResult[];
      readonly sourceCount: number;
    }
  | { readonly ok: false; readonly problem: Problem };

export async function runBatch(
  runtime: VerifierRuntime,
  request: BatchRequest,
  plan: BatchPlan,
  context: BatchContext,
): Promise<BatchRun> {
  const claimIds = plan.claims.map((claim) => claim.id);
  const reader = createBatchReader(runtime.engine.reader, context.requests);
  const engine = { ...runtime.engine, reader };

  // Targets that cannot be evaluated fail now; the others announce their reads.
  const failures = new Map<number, Problem>();
  const lookups: SourceLookup[] = [];
  for (const item of request.items) {
    const target = item.target;
    if (isProblem(target)) {
      failures.set(item.index, target);
      continue;
    }
    try {
      checkLookupInputs(runtime.catalog, claimIds, target);
    } catch (error) {
      if (!isProblem(error)) throw error;
      failures.set(item.index, error);
      continue;
    }
    lookups.push(...lookupsOf(runtime, plan.claims, target, plan.purposes[item.index] as string, context));
  }
  reader.prefetch(lookups);

  // Each target's handle and audit hash, once: for its results, its item and its audit event.
  const keys = request.items.map((item) =>
    isProblem(item.target)
      ? undefined
      : targetKeys(runtime.hashSecret, item.target, runtime.catalog.lookupAttributes),
  );
  const traces = request.items.map(() => new EvaluationTrace(undefined, context.reads));
  const permits = createSemaphore(runtime.config.evidence.concurrency.subjects);
  const outcomes = await Promise.all(
    request.items.map(async (item): Promise<ItemOutcome> => {
      const failure = failures.get(item.index);
      if (failure) return { ok: false, problem: failure };
      const evaluationId = runtime.random.ulid(context.startedAt);
      try {
        const evaluation = await permits.run(
          () =>
            evaluateTarget(
              runtime,
              {
                engine,
                claims: plan.claims,
                target: item.target as EvaluationTarget,
                targetRef: (keys[item.index] as TargetKeys).ref,
                purpose: plan.purposes[item.index] as string,
                requestId: context.requestId,
                disclosures: plan.disclosures,
                format: plan.format,
                evaluationId,
                startedAt: context.startedAt,
                deadline: context.deadline,
              },
              traces[item.index] as EvaluationTrace,
            ),
          // Items still waiting for their turn when the request is answered never start.
          context.deadline.at,
        );
        return { ok: true, evaluationId, results: evaluation.results, sourceCount: evaluation.sourceCount };
      } catch (error) {
        if (error instanceof PermitTimeout) {
          return {
            ok: false,
            problem: requestTimedOut(
              'batch.deadline_passed',
              'the request timed out before the item started',
            ),
          };
        }
        if (!isProblem(error)) throw error;
        return { ok: false, problem: error };
      }
    }),
  );

  const disclosure = overallDisclosure(plan.disclosures);
  const stored: StoredEvaluation[] = [];
  request.items.forEach((item, index) => {
    const outcome = outcomes[index] as ItemOutcome;
    if (!outcome.ok) return;
    stored.push(
      storedEvaluation(runtime, {
        evaluation_id: outcome.evaluationId,
        principal_hash: context.principalHash,
        purpose: plan.purposes[item.index] as string,
        claim_ids: claimIds,
        disclosure,
        format: plan.format,
        results: outcome.results,
        created_at: context.startedAt,
        request_hash: requestHash(runtime, {
          item: item.raw,
          claims: request.claims,
          disclosure: request.disclosure ?? null,
          format: plan.format,
        }),
      }),
    );
  });
  let storeFailure: unknown;
  // Answered meanwhile: nobody learns these evaluations' ids, so none is kept (as for a single evaluation).
  if (context.answered?.() !== true) {
    try {
      await runtime.store.putMany(stored);
    } catch (error) {
      storeFailure = error;
    }
  }

  const items = request.items.map((item, index) =>
    renderItem(runtime, item, keys[index], outcomes[index] as ItemOutcome),
  );
  const succeeded = outcomes.filter((outcome) => outcome.ok).length;
  const reports = request.items.map((item, index) =>
    reportItem(runtime, item, keys[index], outcomes[index] as ItemOutcome, traces[index]?.sourceReads ?? 0, {
      plan,
      claimIds,
      disclosure,
      storeFailure,
    }),
  );
  return {
    response: {
      batch_id: context.batchId,
      status: 'completed',
      claims: claimIds,
      format: plan.format,
      items,
      summary: { succeeded, failed: items.length - succeeded },
    },
    reports,
    storeFailure,
    upstreamRequests: reader.upstreamRequests,
  };
}

/** Every source lookup the claims (and their sub-claims) make for one target. */
function lookupsOf(
  runtime: VerifierRuntime,
  claims: readonly CatalogClaim[],
  target: EvaluationTarget,
  purpose: string,
  context: BatchContext,
): SourceLookup[] {
  const members = new Set(claims.flatMap((claim) => claim.closure));
  const lookups: SourceLookup[] = [];
  for (const id of members) {
    const claim = runtime.catalog.claims.get(id)?.config;
    for (const binding of Object.values(claim?.source_bindings ?? {})) {
      const value = lookupValue(target, binding.lookup.input);
      if (value !== undefined) {
        lookups.push({
          binding,
          value,
          purpose,
          requestId: context.requestId,
          // Read when the read leaves: earlier once the client has gone away.
          get deadline() {
            return context.deadline.at;
          },
        });
      }
    }
  }
  return lookups;
}

function renderItem(
  runtime: VerifierRuntime,
  item: BatchItem,
  keys: TargetKeys | undefined,
  outcome: ItemOutcome,
): Record<string, unknown> {
  const targetRef = keys?.ref ?? null;
  if (!outcome.ok) {
    return {
      input_index: item.index,
      target_ref: targetRef,
      status: 'failed',
      claim_results: [],
      errors: [
        {
          code: outcome.problem.code,
          title: outcome.problem.title,
          // Only an unavailable source, or reads the request had no time left for, are worth retrying as they are;
          // every other failure would fail again, as would a source answer refused for what it holds.
          retryable: RETRYABLE.has(outcome.problem.code) && !failsAgain(outcome.problem),
          // The claim whose failure failed the item, when it is one claim's (as a single evaluation's problem).
          ...(typeof outcome.problem.extras.claim_id === 'string'
            ? { claim_id: outcome.problem.extras.claim_id }
            : {}),
        },
      ],
    };
  }
  return {
    input_index: item.index,
    evaluation_id: outcome.evaluationId,
    target_ref: targetRef,
    status: 'succeeded',
    claim_results: outcome.results.map((result) => claimResultItem(runtime, result)),
    errors: [],
  };
}

/** A claim result in a batch item (verifier contract §2.7): the result view without what the item states once. */
function claimResultItem(runtime: VerifierRuntime, result: ClaimResult): Record<string, unknown> {
  const claimId = String(result.claim_id);
  const declared = runtime.catalog.claims.get(claimId)?.config.value.type;
  return {
    result_id: `${String(result.evaluation_id)}:${claimId}`,
    claim_id: claimId,
    claim_version: result.claim_version,
    value_type: declared && declared !== 'any' ? declared : jsonType(result.value),
    value: result.value,
    satisfied: result.satisfied,
    disclosure: result.disclosure,
    ...(result.redacted_fields ? { redacted_fields: result.redacted_fields } : {}),
    issued_at: result.issued_at,
    provenance: result.provenance,
  };
}

function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'bigint' ? 'integer' : typeof value;
}

function reportItem(
  runtime: VerifierRuntime,
  item: BatchItem,
  keys: TargetKeys | undefined,
  outcome: ItemOutcome,
  sourceReads: number,
  batch: {
    plan: BatchPlan;
    claimIds: string[];
    disclosure: string;
    storeFailure: unknown;
  },
): BatchItemReport {
  const target = isProblem(item.target) ? undefined : item.target;
  const facts: VerifierAuditFacts = {
    endpointKind: 'batch_item',
    claimIds: batch.claimIds,
    purpose: batch.plan.purposes[item.index] as string,
    scopesUsed: [...batch.plan.scopesUsed],
    disclosure: batch.disclosure,
    format: batch.plan.format,
    // Names the caller chose, as a single evaluation audits them: undeclared ones only as keyed hashes.
    targetType: auditedTargetType(runtime.catalog, runtime.hashSecret, item.targetType),
    ...(target
      ? {
          targetRefHash: (keys as TargetKeys).auditHash,
          identifierSchemes: auditedSchemes(runtime.catalog, runtime.hashSecret, target.identifiers.keys()),
        }
      : {}),
    sourceReadCount: sourceReads,
  };
  // A succeeded item whose evaluation could not be stored is reported as the batch is: not stored.
  const problem = outcome.ok
    ? isProblem(batch.storeFailure)
      ? batch.storeFailure
      : undefined
    : outcome.problem;
  if (outcome.ok) {
    facts.evaluationId = outcome.evaluationId;
    facts.sourceCount = outcome.sourceCount;
  }
  if (problem) {
    facts.decision = 'evaluate_denied';
    const detail = auditCodeOf(problem);
    if (detail !== undefined) facts.errorDetailCode = detail;
    return { inputIndex: item.index, status: problem.status, problemCode: problem.code, facts };
  }
  facts.decision = 'evaluate';
  return { inputIndex: item.index, status: 200, problemCode: undefined, facts };
}
