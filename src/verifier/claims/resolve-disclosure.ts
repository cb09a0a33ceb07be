// The disclosure a claim is answered with: the requested level if the claim allows it, else its downgrade policy.
import type { ClaimConfig, DisclosureLevel } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';

export function resolveDisclosure(
  claim: ClaimConfig,
  requested: DisclosureLevel | undefined,
): DisclosureLevel {
  const policy = claim.disclosure;
  if (requested === undefined) return policy.default;
  if (policy.allowed.includes(requested)) return requested;
  switch (policy.downgrade) {
    case 'default':
      // A downgrade never discloses more than was asked: a caller asking less keeps its request minimal.
      if (REVEALS[policy.default] <= REVEALS[requested]) return policy.default;
      break;
    case 'redacted':
      // Redacting discloses nothing, so it is always a safe answer even when not listed.
      return 'redacted';
  }
  throw verifierProblem(
    'claim.disclosure_not_allowed',
    `Claim ${claim.id} allows disclosure ${policy.allowed.join(', ')}, not ${requested}.`,
  );
}

/**
 * Whether a result already made at `level` may be answered again under the claim's current policy (a render): a
 * redacted one always (it discloses nothing), another while some allowed level discloses at least as much. A
 * withdrawn level stops being answered, as a withdrawn scope does.
 */
export function stillDisclosable(claim: ClaimConfig, level: DisclosureLevel): boolean {
  return (
    level === 'redacted' || claim.disclosure.allowed.some((allowed) => REVEALS[allowed] >= REVEALS[level])
  );
}

/**
 * 403 `claim.disclosure_not_allowed` (naming the claim) unless a result made at `level` may be answered again: by a
 * render or an idempotent replay, both answers made under an earlier configuration. A level that is not one (a
 * stored record altered since) is refused too.
 */
export function checkStillDisclosable(claim: ClaimConfig, level: unknown): void {
  if (
    typeof level === 'string' &&
    Object.hasOwn(REVEALS, level) &&
    stillDisclosable(claim, level as DisclosureLevel)
  )
    return;
  throw verifierProblem(
    'claim.disclosure_not_allowed',
    `Claim ${claim.id} no longer allows disclosure ${String(level)}.`,
    { extras: { claim_id: claim.id } },
  );
}

/** How much each level discloses: the value, whether it holds, nothing. */
const REVEALS: Readonly<Record<DisclosureLevel, number>> = { value: 2, predicate: 1, redacted: 0 };

export interface ClaimView {
  readonly value: unknown;
  readonly satisfied: boolean | null;
  readonly disclosure: DisclosureLevel;
  readonly redacted_fields?: readonly string[];
}

/**
 * What the client sees of an evaluated value. `predicate` states only whether the predicate holds (boolean
 * claims only, enforced at load; null when the source left it unknown); `redacted` discloses neither the value nor
 * the outcome.
 */
export function viewClaim(claim: ClaimConfig, value: unknown, disclosure: DisclosureLevel): ClaimView {
  switch (disclosure) {
    case 'value':
      return { value, satisfied: typeof value === 'boolean' ? value : null, disclosure };
    case 'predicate':
      // An unknown outcome (a null field) is not a false one: `value` says which, `satisfied` stays a boolean.
      return { value: typeof value === 'boolean' ? value : null, satisfied: value === true, disclosure };
    default:
      return { value: null, satisfied: null, disclosure, redacted_fields: [claim.id] };
  }
}
