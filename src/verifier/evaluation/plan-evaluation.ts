// Every check of an evaluation that needs no source: claims, scopes, operation, purpose, formats, disclosure and
// lookup inputs. A request rejected here has read nothing.
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../platform/auth/principal.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import {
  type CatalogClaim,
  type ClaimCatalog,
  isClaimVisible,
  visibleClaims,
} from '../claims/build-claim-catalog.ts';
import { checkLookupInputs } from '../claims/evaluate-claims.ts';
import { resolveDisclosure } from '../claims/resolve-disclosure.ts';
import { unknownClaim } from '../claims/unknown-claim.ts';
import { PURPOSE_TEXT } from '../config/purpose-text.ts';
import type { DisclosureLevel, VerifierConfig } from '../config/schema.ts';
import { claimProblem, verifierProblem } from '../problems.ts';
import { acceptableFormats, type ResultFormat } from './negotiate-format.ts';
import type { EvaluationRequest } from './parse-evaluation-request.ts';

export interface EvaluationPlan {
  /** Requested claims in request order, each once. */
  readonly claims: readonly CatalogClaim[];
  readonly format: ResultFormat;
  readonly purpose: string;
  readonly disclosures: ReadonlyMap<string, DisclosureLevel>;
  /** Every scope the evaluation relies on. */
  readonly scopesUsed: readonly string[];
}

export function planEvaluation(
  config: VerifierConfig,
  catalog: ClaimCatalog,
  principal: Principal,
  request: EvaluationRequest,
  headers: IncomingHttpHeaders,
): EvaluationPlan {
  const accept = single(headers.accept);
  // 406 first when Accept (or the body format) names no result format at all.
  const candidates = acceptableFormats(accept, request.format);
  const claims = resolveClaims(catalog, principal, request.claims, 'evaluate');
  // The most preferred acceptable format that every requested claim offers (resolveDisclosures refuses a miss).
  const format =
    candidates.find((candidate) => offeredByAll(claims, candidate)) ?? (candidates[0] as ResultFormat);
  const purpose = readEvaluationPurpose(headers, request.purpose);
  checkPurpose(config, claims, purpose);
  const disclosures = resolveDisclosures(claims, format, request.disclosure);
  // Its problem names the claim (`claim_id`).
  checkLookupInputs(
    catalog,
    claims.map((claim) => claim.id),
    request.target,
  );
  const scopesUsed = [...new Set(claims.flatMap((claim) => claim.requiredScopes))].sort();
  return { claims, format, purpose, disclosures, scopesUsed };
}

export function offeredByAll(claims: readonly CatalogClaim[], format: string): boolean {
  return claims.every((claim) => (claim.config.formats as readonly string[]).includes(format));
}

/**
 * Every claim offers the format (else 406), then each claim's disclosure after its downgrade policy (else 403). The
 * problem names the claim (`claim_id`).
 */
export function resolveDisclosures(
  claims: readonly CatalogClaim[],
  format: string,
  requested: DisclosureLevel | undefined,
): Map<string, DisclosureLevel> {
  const disclosures = new Map<string, DisclosureLevel>();
  let current: string | undefined;
  try {
    // Every claim's format before any claim's disclosure (verifier contract §2.5, steps 6 and 7).
    for (const claim of claims) {
      current = claim.id;
      if (!(claim.config.formats as readonly string[]).includes(format)) {
        throw verifierProblem('claim.format_not_supported', `Claim ${claim.id} is not offered as ${format}.`);
      }
    }
    for (const claim of claims) {
      current = claim.id;
      disclosures.set(claim.id, resolveDisclosure(claim.config, requested));
    }
  } catch (error) {
    throw claimProblem(error, current as string);
  }
  return disclosures;
}

/**
 * Requested claims, each once: they exist, the caller may evaluate them, they have the requested version, and they
 * offer the operation. The problem names the claim (`claim_id`).
 */
export function resolveClaims(
  catalog: ClaimCatalog,
  principal: Principal,
  refs: EvaluationRequest['claims'],
  operation: 'evaluate' | 'batch_evaluate',
): CatalogClaim[] {
  const resolved: CatalogClaim[] = [];
  let current: string | undefined;
  try {
    for (const ref of refs) {
      current = ref.id;
      const claim = resolveClaim(catalog, principal, ref, operation);
      if (!resolved.includes(claim)) resolved.push(claim);
    }
  } catch (error) {
    throw claimProblem(error, current as string);
  }
  return resolved;
}

function resolveClaim(
  catalog: ClaimCatalog,
  principal: Principal,
  ref: EvaluationRequest['claims'][number],
  operation: 'evaluate' | 'batch_evaluate',
): CatalogClaim {
  const claim = catalog.claims.get(ref.id);
  if (!claim) {
    const known = visibleClaims(catalog, principal).map((entry) => entry.id);
    throw unknownClaim(ref.id, known);
  }
  // Scopes before anything else about the claim (its version included): a caller without them gets the same
  // 403 whatever else it sends.
  if (!isClaimVisible(claim, principal)) {
    throw platformProblem('auth.scope_denied', `The credential lacks a scope claim ${ref.id} requires.`);
  }
  if (ref.version !== undefined && ref.version !== claim.config.version) {
    throw verifierProblem('claim.version_not_found', `Claim ${ref.id} has no version ${ref.version}.`);
  }
  if (operation === 'evaluate' && !claim.config.operations.evaluate.enabled) {
    throw verifierProblem('claim.operation_unsupported', `Claim ${ref.id} cannot be evaluated on its own.`);
  }
  if (operation === 'batch_evaluate' && !claim.config.operations.batch_evaluate.enabled) {
    throw verifierProblem('claim.operation_unsupported', `Claim ${ref.id} is not offered in batches.`);
  }
  if (claim.needsPlugin) {
    throw verifierProblem(
      'claim.operation_unsupported',
      `Claim ${ref.id} relies on a plugin rule, which has no implementation.`,
    );
  }
  return claim;
}

/** `Data-Purpose` or body `purpose`, which must agree; undefined when neither is sent. */
export function readOptionalPurpose(
  headers: IncomingHttpHeaders,
  bodyPurpose: string | undefined,
): string | undefined {
  const raw = headers['data-purpose'];
  if (Array.isArray(raw)) throw verifierProblem('request.invalid', 'Send one Data-Purpose header.');
  const header = raw?.trim() === '' ? undefined : raw?.trim();
  if (header !== undefined) checkPurposeText(header, 'The Data-Purpose header');
  if (bodyPurpose !== undefined) checkPurposeText(bodyPurpose, 'The body `purpose`');
  if (header !== undefined && bodyPurpose !== undefined && header !== bodyPurpose) {
    throw verifierProblem('request.invalid', 'The Data-Purpose header and the body `purpose` differ.');
  }
  return header ?? bodyPurpose;
}

/**
 * 400 `request.invalid` unless the purpose can travel as a header value as it is (PURPOSE_TEXT): it is sent on as the
 * `Data-Purpose` header of every source read, so what a header cannot carry is refused before any read.
 */
export function checkPurposeText(purpose: string, what: string): void {
  if (!PURPOSE_TEXT.test(purpose)) {
    throw verifierProblem(
      'request.invalid',
      `${what} must be 1 to 512 visible ASCII characters (spaces only inside).`,
    );
  }
}

/** `Data-Purpose` or body `purpose`; both must agree, one is required. */
export function readEvaluationPurpose(headers: IncomingHttpHeaders, bodyPurpose: string | undefined): string {
  const purpose = readOptionalPurpose(headers, bodyPurpose);
  if (purpose === undefined) {
    throw platformProblem('auth.purpose_required', 'Send a Data-Purpose header or a body `purpose`.');
  }
  return purpose;
}

/** The purpose is one the verifier accepts and the one each claim (and sub-claim) is limited to, if any. */
export function checkPurpose(config: VerifierConfig, claims: readonly CatalogClaim[], purpose: string): void {
  const allowed = config.evidence.allowed_purposes;
  if (allowed.length > 0 && !allowed.includes(purpose)) {
    throw verifierProblem('purpose.not_allowed', 'The purpose is not one this verifier accepts.');
  }
  for (const claim of claims) {
    // The claim's purpose, or its sub-claims' (catalogue).
    if (claim.purpose !== undefined && claim.purpose !== purpose) {
      throw verifierProblem(
        'purpose.not_allowed',
        `Claim ${claim.id} is evaluated for one stated purpose only.`,
        {
          extras: { claim_id: claim.id },
        },
      );
    }
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
