// One claim result as returned and stored (verifier contract §2.5), provenance included.

import type { ClaimOutcome } from '../claims/evaluate-claims.ts';
import { viewClaim } from '../claims/resolve-disclosure.ts';
import type { ClaimConfig, DisclosureLevel } from '../config/schema.ts';

export const PROVENANCE_SCHEMA_VERSION = 'ambit-verifier-claim-provenance/v1';

export interface TargetRef {
  readonly type: string;
  /** A keyed hash of the target identity: stable for one deployment, never the identifier itself. */
  readonly handle: string;
  readonly identifier_schemes: readonly string[];
  /** The target's `profile`, only when the request sent one. */
  readonly profile?: string;
}

export interface ClaimResultInput {
  readonly evaluationId: string;
  readonly serviceId: string;
  readonly claim: ClaimConfig;
  readonly outcome: ClaimOutcome;
  readonly disclosure: DisclosureLevel;
  readonly format: string;
  readonly targetRef: TargetRef;
  readonly issuedAt: string;
  /** Versions of the claims this one depends on, by id. */
  readonly dependencyVersions: ReadonlyMap<string, string>;
}

export type ClaimResult = Readonly<Record<string, unknown>>;

export function buildClaimResult(input: ClaimResultInput): ClaimResult {
  const { claim, outcome } = input;
  const view = viewClaim(claim, outcome.value, input.disclosure);
  return {
    evaluation_id: input.evaluationId,
    claim_id: claim.id,
    claim_version: claim.version,
    subject_type: claim.subject_type,
    target_ref: input.targetRef,
    value: view.value,
    satisfied: view.satisfied,
    disclosure: view.disclosure,
    ...(view.redacted_fields ? { redacted_fields: view.redacted_fields } : {}),
    format: input.format,
    issued_at: input.issuedAt,
    expires_at: null,
    provenance: {
      schema_version: PROVENANCE_SCHEMA_VERSION,
      generated_by: {
        type: 'claim_evaluation',
        service_id: input.serviceId,
        evaluation_id: input.evaluationId,
        claim_id: claim.id,
        claim_version: claim.version,
      },
      used: { source_count: outcome.sources.size, source_versions: {} },
      derived_from: claim.depends_on.map((id) => ({
        claim_id: id,
        claim_version: input.dependencyVersions.get(id) ?? null,
      })),
    },
  };
}
