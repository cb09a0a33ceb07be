// One target's evaluation, shared by single and batch evaluations: evaluate the claim graph, build the result
// views at each claim's disclosure level, and the record kept for render.
import { canonicalJson } from '../../platform/audit/canonical-json.ts';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Deadline } from '../../platform/deadline.ts';
import { principalHash as hashPrincipal } from '../audit/principal-hash.ts';
import type { CatalogClaim, ClaimCatalog } from '../claims/build-claim-catalog.ts';
import { type ClaimEngine, type ClaimOutcome, evaluateClaims } from '../claims/evaluate-claims.ts';
import { CCCEV_MEDIA_TYPE, type DisclosureLevel } from '../config/schema.ts';
import type { ReadTrace } from '../connectors/source-reader.ts';
import type { StoredEvaluation } from '../state/evaluation-store.ts';
import type { VerifierRuntime } from '../verifier-runtime.ts';
import { buildClaimResult, type ClaimResult, type TargetRef } from './build-claim-result.ts';
import type { EvaluationTarget } from './parse-evaluation-request.ts';
import { cccevTermsOf } from './render-cccev.ts';

export interface TargetEvaluationInput {
  readonly engine: ClaimEngine;
  readonly claims: readonly CatalogClaim[];
  readonly target: EvaluationTarget;
  /** The target's handle (target-ref.ts), worked out once by the caller, which also audits its hash. */
  readonly targetRef: TargetRef;
  readonly purpose: string;
  /** Forwarded upstream as `x-request-id`. */
  readonly requestId: string;
  readonly disclosures: ReadonlyMap<string, DisclosureLevel>;
  readonly format: string;
  readonly evaluationId: string;
  readonly startedAt: number;
  /** When the request is answered whatever happens (earlier if its client goes away): no read starts later. */
  readonly deadline: Deadline;
}

export interface TargetEvaluation {
  /** One view per requested claim, in request order. */
  readonly results: ClaimResult[];
  /** Distinct sources behind all the results. */
  readonly sourceCount: number;
}

export async function evaluateTarget(
  runtime: VerifierRuntime,
  input: TargetEvaluationInput,
  trace: ReadTrace,
): Promise<TargetEvaluation> {
  const issuedAt = new Date(input.startedAt).toISOString();
  const outcomes = await evaluateClaims(
    input.engine,
    input.claims.map((claim) => claim.id),
    {
      target: input.target,
      purpose: input.purpose,
      requestId: input.requestId,
      today: issuedAt.slice(0, 10),
      deadline: input.deadline,
    },
    trace,
  );
  const versions = claimVersions(runtime.catalog);
  const results = input.claims.map((claim) =>
    buildClaimResult({
      evaluationId: input.evaluationId,
      serviceId: runtime.config.evidence.service_id,
      claim: claim.config,
      outcome: outcomes.get(claim.id) as ClaimOutcome,
      disclosure: input.disclosures.get(claim.id) ?? 'redacted',
      format: input.format,
      targetRef: input.targetRef,
      issuedAt,
      dependencyVersions: versions,
    }),
  );
  const sources = new Set<string>();
  for (const outcome of outcomes.values()) for (const source of outcome.sources) sources.add(source);
  const sourceCount = sources.size;
  return { results, sourceCount };
}

const versionsByCatalog = new WeakMap<ClaimCatalog, ReadonlyMap<string, string>>();

/** Every claim's version by id, worked out once per catalog (provenance names the versions of sub-claims). */
function claimVersions(catalog: ClaimCatalog): ReadonlyMap<string, string> {
  let versions = versionsByCatalog.get(catalog);
  if (!versions) {
    versions = new Map([...catalog.claims].map(([id, entry]) => [id, entry.config.version]));
    versionsByCatalog.set(catalog, versions);
  }
  return versions;
}

/** The common disclosure level of an evaluation, or `mixed`. */
export function overallDisclosure(
  disclosures: ReadonlyMap<string, DisclosureLevel>,
): DisclosureLevel | 'mixed' {
  const levels = new Set(disclosures.values());
  return levels.size === 1 ? ([...levels][0] as DisclosureLevel) : 'mixed';
}

/**
 * A keyed hash of a request, kept with its evaluation or idempotency key to tell requests apart. Keyed because the
 * request holds the target's identifiers: a plain digest of a body whose shape is known would give a low-entropy
 * identifier (a national id) back to whoever reads the state store and tries them all.
 */
export function requestHash(runtime: VerifierRuntime, value: unknown): string {
  return keyedHash(runtime.hashSecret, 'request', canonicalJson(value));
}

export function storedEvaluation(
  runtime: VerifierRuntime,
  fields: Omit<StoredEvaluation, 'expires_at' | 'cccev_terms'>,
): StoredEvaluation {
  return {
    ...fields,
    expires_at: fields.created_at + runtime.config.state.evaluation_retention,
    ...(fields.format === CCCEV_MEDIA_TYPE ? { cccev_terms: cccevTermsOf(runtime, fields.results) } : {}),
  };
}

/** Who a stored evaluation or idempotency key belongs to, as a keyed hash of the principal id. */
export function principalHash(runtime: VerifierRuntime, principal: Principal): string {
  return hashPrincipal(runtime.hashSecret, principal);
}
