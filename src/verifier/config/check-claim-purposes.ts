// Load-time check of the purposes claims are limited to (`purpose`). A request must state the purpose of the claim and
// of each of its sub-claims, so two different ones among them refuse every request: the claim could never be
// evaluated. So does a purpose `evidence.allowed_purposes` leaves out, for the claim and every claim above it.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { walkDependencies } from '../claims/walk-dependencies.ts';
import type { VerifierConfig } from './schema.ts';

/** Purpose -> the claim that first limits to it (the claim's own first, then its sub-claims in depends_on order). */
type Purposes = ReadonlyMap<string, string>;

export function checkClaimPurposes(config: VerifierConfig): ConfigIssue[] {
  const { order } = walkDependencies(
    new Map(config.evidence.claims.map((claim) => [claim.id, claim.depends_on])),
  );
  const purposes = claimPurposes(config, order);
  const allowed = config.evidence.allowed_purposes;
  const outside = config.evidence.claims.flatMap((claim, c): ConfigIssue[] =>
    // Where it is set only: each claim above it would repeat the same mistake.
    claim.purpose !== undefined && allowed.length > 0 && !allowed.includes(claim.purpose)
      ? [
          issue(
            `evidence.claims.${c}.purpose`,
            `is ${claim.purpose}, which is not in evidence.allowed_purposes: no request could evaluate the claim, nor a claim depending on it`,
          ),
        ]
      : [],
  );
  const conflicts = config.evidence.claims.flatMap((claim, c): ConfigIssue[] => {
    const found = purposes.get(claim.id);
    // Each conflict once, where it arises: not again at every claim above.
    const inherited = claim.depends_on.some((dependency) => (purposes.get(dependency)?.size ?? 0) > 1);
    if (found === undefined || found.size < 2 || inherited) return [];
    const [[first, firstBy], [second, secondBy]] = [...found] as [[string, string], [string, string]];
    const never = 'no request could evaluate the claim';
    if (firstBy === claim.id) {
      return [
        issue(
          `evidence.claims.${c}.purpose`,
          `is ${first}, but sub-claim \`${secondBy}\` is evaluated for ${second} only: ${never}`,
        ),
      ];
    }
    return [
      issue(
        `evidence.claims.${c}.depends_on`,
        `sub-claims \`${firstBy}\` and \`${secondBy}\` are evaluated for ${first} and ${second} only: ${never}`,
      ),
    ];
  });
  return [...outside, ...conflicts];
}

/**
 * The purposes each claim and its sub-claims are limited to, by claim id. Dependencies come first in `order`; one
 * closing a cycle (reported by the dependency check) is not known yet and adds nothing.
 */
export function claimPurposes(config: VerifierConfig, order: readonly string[]): Map<string, Purposes> {
  const claims = new Map(config.evidence.claims.map((claim) => [claim.id, claim]));
  const purposes = new Map<string, Purposes>();
  for (const id of order) {
    const claim = claims.get(id);
    if (claim === undefined) continue;
    const found = new Map<string, string>();
    if (claim.purpose !== undefined) found.set(claim.purpose, id);
    for (const dependency of claim.depends_on) {
      for (const [purpose, by] of purposes.get(dependency) ?? []) {
        if (!found.has(purpose)) found.set(purpose, by);
      }
    }
    purposes.set(id, found);
  }
  return purposes;
}

function issue(path: string, message: string): ConfigIssue {
  return { path, code: 'config.validation_error', message };
}
