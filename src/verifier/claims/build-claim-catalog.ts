// Validated config -> frozen claim catalogue: each claim with its transitive dependencies, scopes and lookup inputs.
import { parse as parseCel } from '@bufbuild/cel';
import type { Principal } from '../../platform/auth/principal.ts';
import { deepFreeze } from '../../platform/config/validate-config.ts';
import type { ClaimConfig, ValueType, VerifierConfig } from '../config/schema.ts';
import { celTargetInputs } from './cel-target-inputs.ts';

export interface CatalogClaim {
  readonly id: string;
  readonly config: ClaimConfig;
  /** The claim and its transitive dependencies, dependencies first. */
  readonly closure: readonly string[];
  /** Every scope a caller needs to evaluate the claim: its own, its bindings' and its dependencies'. */
  readonly requiredScopes: readonly string[];
  /**
   * Request paths (`target.identifiers.national_id`) the claim and its dependencies need: those they look subjects
   * up by, and those their CEL rules read (`ctx.target.attributes.income`).
   */
  readonly targetInputs: readonly string[];
  /** The JSON types the claim and its dependencies declare for target attributes (`inputs`), by request path. */
  readonly attributeTypes: readonly {
    readonly path: string;
    /** The attribute's name (the path without `target.attributes.`). */
    readonly name: string;
    readonly type: ValueType;
    readonly claimId: string;
  }[];
  /** True when the claim or a dependency has a `plugin` rule, which cannot be evaluated. */
  readonly needsPlugin: boolean;
  /**
   * The one purpose the claim is evaluated for: its own `purpose`, or one a sub-claim is limited to (the config
   * check refuses two different ones among them).
   */
  readonly purpose: string | undefined;
}

export interface ClaimCatalog {
  readonly claims: ReadonlyMap<string, CatalogClaim>;
  /** Claims in configuration order. */
  readonly ordered: readonly CatalogClaim[];
  /** Target attributes some claim looks subjects up by (`target.attributes.<name>`), sorted: they identify a target. */
  readonly lookupAttributes: readonly string[];
}

const ATTRIBUTE_INPUT = 'target.attributes.';

export function buildClaimCatalog(config: VerifierConfig): ClaimCatalog {
  const byId = new Map(config.evidence.claims.map((claim) => [claim.id, claim]));
  const closures = new Map<string, string[]>();

  // Recursion is bounded by the depth limit the config check enforces. A set keeps the first place of each member:
  // a wide graph's closures hold thousands of claims, too many to search a list for each.
  const closureOf = (id: string): string[] => {
    const known = closures.get(id);
    if (known) return known;
    const claim = byId.get(id);
    const order = new Set<string>();
    for (const dependency of claim?.depends_on ?? []) {
      for (const member of closureOf(dependency)) order.add(member);
    }
    order.add(id);
    const closure = [...order];
    closures.set(id, closure);
    return closure;
  };

  // Each CEL rule's request inputs, once: a claim is in the closure of every claim depending on it. (The config
  // check has parsed every expression already.)
  const celInputs = new Map(
    config.evidence.claims.flatMap((claim) =>
      claim.rule.type === 'cel'
        ? [[claim.id, celTargetInputs(parseCel(claim.rule.expression).expr)] as const]
        : [],
    ),
  );

  const ordered = config.evidence.claims.map((claim): CatalogClaim => {
    const closure = closureOf(claim.id);
    const members = closure.map((id) => byId.get(id) as ClaimConfig);
    const scopes = new Set<string>();
    const inputs = new Set<string>();
    const attributeTypes: CatalogClaim['attributeTypes'][number][] = [];
    for (const member of members) {
      for (const input of member.inputs) {
        // Ids and identifiers are strings by the request's schema: only attributes can arrive as another type.
        if (input.name.startsWith(ATTRIBUTE_INPUT) && input.type !== 'any') {
          const name = input.name.slice(ATTRIBUTE_INPUT.length);
          attributeTypes.push({ path: input.name, name, type: input.type, claimId: member.id });
        }
      }
      for (const scope of member.required_scopes) scopes.add(scope);
      for (const binding of Object.values(member.source_bindings)) {
        if (binding.required_scope) scopes.add(binding.required_scope);
        inputs.add(binding.lookup.input);
      }
      for (const input of celInputs.get(member.id) ?? []) inputs.add(input);
    }
    return {
      id: claim.id,
      config: claim,
      closure,
      requiredScopes: [...scopes].sort(),
      targetInputs: [...inputs].sort(),
      attributeTypes,
      needsPlugin: members.some((member) => member.rule.type === 'plugin'),
      purpose: claim.purpose ?? members.find((member) => member.purpose !== undefined)?.purpose,
    };
  });
  // Only lookups identify a target: an attribute that is a rule input alone leaves its handle unchanged.
  const attributes = new Set(
    config.evidence.claims.flatMap((claim) =>
      Object.values(claim.source_bindings)
        .map((binding) => binding.lookup.input)
        .filter((input) => input.startsWith(ATTRIBUTE_INPUT))
        .map((input) => input.slice(ATTRIBUTE_INPUT.length)),
    ),
  );
  return deepFreeze({
    claims: new Map(ordered.map((claim) => [claim.id, claim])),
    ordered,
    lookupAttributes: [...attributes].sort(),
  });
}

/** A claim is visible to (and may be evaluated by) a caller holding every scope it requires. */
export function isClaimVisible(claim: CatalogClaim, principal: Principal): boolean {
  return claim.requiredScopes.every((scope) => principal.scopes.has(scope));
}

export function visibleClaims(catalog: ClaimCatalog, principal: Principal): CatalogClaim[] {
  return catalog.ordered.filter((claim) => isClaimVisible(claim, principal));
}
