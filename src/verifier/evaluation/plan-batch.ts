// Every check of a batch that needs no source, for the whole batch at once: claims, scopes, operation, size,
// purposes, formats and disclosure. A batch rejected here has read nothing and stored nothing.
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../platform/auth/principal.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import type { CatalogClaim, ClaimCatalog } from '../claims/build-claim-catalog.ts';
import type { DisclosureLevel, VerifierConfig } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import { batchFormats, type ResultFormat } from './negotiate-format.ts';
import type { BatchRequest } from './parse-batch-request.ts';
import {
  checkPurpose,
  checkPurposeText,
  offeredByAll,
  readOptionalPurpose,
  resolveClaims,
  resolveDisclosures,
} from './plan-evaluation.ts';

export interface BatchPlan {
  readonly claims: readonly CatalogClaim[];
  /** The format each item's stored evaluation is bound to (and rendered in). */
  readonly format: ResultFormat;
  readonly disclosures: ReadonlyMap<string, DisclosureLevel>;
  readonly scopesUsed: readonly string[];
  /** The purpose of each item, by input index. */
  readonly purposes: readonly string[];
}

export function planBatch(
  config: VerifierConfig,
  catalog: ClaimCatalog,
  principal: Principal,
  request: BatchRequest,
  headers: IncomingHttpHeaders,
): BatchPlan {
  const claims = resolveClaims(catalog, principal, request.claims, 'batch_evaluate');
  const limit = Math.min(
    config.evidence.inline_batch_limit,
    ...claims.map((claim) => claim.config.operations.batch_evaluate.max_subjects),
  );
  if (request.items.length > limit) {
    throw verifierProblem(
      'batch.too_large',
      `These claims are evaluated for at most ${limit} items at once.`,
      {
        extras: { max_items: limit },
      },
    );
  }
  const purposes = itemPurposes(request, readOptionalPurpose(headers, request.purpose));
  for (const purpose of new Set(purposes)) checkPurpose(config, claims, purpose);
  // The batch answers with a JSON envelope; the format chooses how each item's evaluation renders later.
  const accept = Array.isArray(headers.accept) ? headers.accept.join(', ') : headers.accept;
  const candidates = batchFormats(accept, request.format);
  // As for a single evaluation: the most preferred acceptable format every claim offers (else 406 below).
  const format =
    candidates.find((candidate) => offeredByAll(claims, candidate)) ?? (candidates[0] as ResultFormat);
  const disclosures = resolveDisclosures(claims, format, request.disclosure);
  const scopesUsed = [...new Set(claims.flatMap((claim) => claim.requiredScopes))].sort();
  return { claims, format, disclosures, scopesUsed, purposes };
}

/** An item's own `purpose`, else the batch's; where both are sent they must agree, and every item needs one. */
function itemPurposes(request: BatchRequest, batchPurpose: string | undefined): string[] {
  return request.items.map((item) => {
    if (item.purpose !== undefined) checkPurposeText(item.purpose, `\`items.${item.index}.purpose\``);
    if (item.purpose !== undefined && batchPurpose !== undefined && item.purpose !== batchPurpose) {
      throw verifierProblem(
        'request.invalid',
        `\`items.${item.index}.purpose\` differs from the batch purpose.`,
      );
    }
    const purpose = item.purpose ?? batchPurpose;
    if (purpose === undefined) {
      throw platformProblem(
        'auth.purpose_required',
        `Item ${item.index} has no purpose: send Data-Purpose, a body \`purpose\` or one per item.`,
      );
    }
    return purpose;
  });
}
