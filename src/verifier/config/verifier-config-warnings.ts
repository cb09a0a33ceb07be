// What loads but deserves a line in the log when the verifier starts (and a `warning:` line of `config check`).
import { hint } from '../../platform/config/did-you-mean.ts';
import { buildClaimCatalog } from '../claims/build-claim-catalog.ts';
import { orderComparisonWarning } from '../claims/cel-order-comparisons.ts';
import type { VerifierConfig } from './schema.ts';

/** Things that start but deserve a line in the log: claims whose source is not configured, plugin rules... */
export function verifierConfigWarnings(config: VerifierConfig): string[] {
  const warnings: string[] = [];
  for (const claim of config.evidence.claims) {
    for (const [alias, binding] of Object.entries(claim.source_bindings)) {
      if (!Object.hasOwn(config.evidence.source_connections, binding.connection)) {
        // Often a misspelt name rather than a source still to come: the closest configured one is named.
        const near = hint(binding.connection, Object.keys(config.evidence.source_connections));
        warnings.push(
          `claim ${claim.id}: source ${alias} names connection ${binding.connection}, which is not configured${near}; evaluations answer source.unavailable`,
        );
      }
    }
    if (claim.rule.type === 'plugin') {
      warnings.push(`claim ${claim.id}: plugin rules are not implemented; evaluations answer 501`);
    }
    // Each answer is judged alone: an ordering of caller input against a record value bisects the value.
    const ordering =
      claim.rule.type === 'cel' ? orderComparisonWarning(claim.id, claim.rule.expression) : undefined;
    if (ordering) warnings.push(ordering);
    const passedOn = subClaimValueWarning(config, claim);
    if (passedOn) warnings.push(passedOn);
  }
  // A claim is gated by the scopes of everything it evaluates: one reading a registry behind no scope at all is
  // open to every credential, which is seldom what the operator meant.
  const reading = new Set(
    config.evidence.claims
      .filter((claim) => Object.keys(claim.source_bindings).length > 0)
      .map((claim) => claim.id),
  );
  for (const claim of buildClaimCatalog(config).ordered) {
    if (claim.requiredScopes.length === 0 && claim.closure.some((id) => reading.has(id))) {
      warnings.push(
        `claim ${claim.id} reads a source and requires no scope: any credential of this verifier may evaluate it (set required_scopes, or required_scope on its bindings)`,
      );
    }
  }
  return warnings;
}

/**
 * A `cel` claim that may disclose its value, over sub-claims that never disclose theirs: whatever its expression
 * returns of `claims.<alias>` is disclosed as its own value, so a sub-claim's withheld value can pass on through it.
 * Nothing refuses that (a parent may well compute something safe from it), so the operator is told once.
 */
function subClaimValueWarning(
  config: VerifierConfig,
  claim: VerifierConfig['evidence']['claims'][number],
): string | undefined {
  if (claim.rule.type !== 'cel' || !claim.disclosure.allowed.includes('value')) return undefined;
  const withheld = claim.depends_on.filter((id) => {
    const sub = config.evidence.claims.find((candidate) => candidate.id === id);
    return sub !== undefined && !sub.disclosure.allowed.includes('value');
  });
  if (withheld.length === 0) return undefined;
  return `claim ${claim.id} may disclose its value and depends on ${withheld.join(', ')}, which never disclose${withheld.length === 1 ? 's' : ''} a value: whatever its expression returns of them is disclosed as its own value, so make sure it returns no more than they would (or allow it predicate or redacted only)`;
}
