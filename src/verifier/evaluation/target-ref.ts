// The keyed stand-ins for a target: the `target_ref` handle returned to callers and the hash written to audit.
// Both are stable for one deployment (one audit secret) and never reveal the identifiers. Both are worked out
// together, once per target, from one serialisation of its identity.
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { TargetRef } from './build-claim-result.ts';
import { type EvaluationTarget, lookupValue } from './parse-evaluation-request.ts';

export interface TargetKeys {
  readonly ref: TargetRef;
  /** `target_ref_hash` of the audit event. */
  readonly auditHash: string;
}

/** `lookupAttributes`: the attribute names claims look subjects up by (the catalogue's `lookupAttributes`). */
export function targetKeys(
  secret: Buffer,
  target: EvaluationTarget,
  lookupAttributes: readonly string[],
): TargetKeys {
  const identity = targetIdentity(target, lookupAttributes);
  const digest = keyedHash(secret, 'target_ref', identity).slice('hmac-sha256:'.length);
  return {
    ref: {
      type: target.type,
      handle: `amref:v1:${digest.slice(0, 32)}`,
      identifier_schemes: [...target.identifiers.keys()].sort(),
      // Echoed as sent, outside the identity hashed above: one subject under two profiles keeps one handle.
      ...(target.profile !== undefined && { profile: target.profile }),
    },
    auditHash: keyedHash(secret, 'audit:target', identity),
  };
}

/**
 * The identity a target handle and audit hash stand for: whatever a lookup may find the subject by. That is its
 * type, id and identifiers (sorted by scheme), and the attributes named in `lookupAttributes` as a lookup sends
 * them (as text, blank ones left out); other attributes (inputs to a rule) are not part of it. An identifier sent
 * with an issuer or country is `[scheme, value, issuer | null, COUNTRY | null]`: one national id number issued by
 * two countries names two people, so they never share a handle (one sent without either keeps the pair, and so
 * its handle). Written out as `canonicalJson({attributes?, id, identifiers, type})` directly (keys sorted,
 * `attributes` only when one is sent, every member a string, null or an array of arrays of strings and nulls,
 * which JSON.stringify writes exactly as canonicalJson).
 */
export function targetIdentity(target: EvaluationTarget, lookupAttributes: readonly string[]): string {
  const identifiers = [...target.identifiers]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([scheme, value]): (string | null)[] => {
      const qualifiers = target.identifierQualifiers?.get(scheme);
      if (qualifiers === undefined) return [scheme, value];
      // Country codes (ISO 3166) are one whatever their case.
      return [scheme, value, qualifiers.issuer ?? null, qualifiers.country?.toUpperCase() ?? null];
    });
  const attributes: [string, string][] = [];
  for (const name of lookupAttributes) {
    const value = lookupValue(target, `target.attributes.${name}`);
    if (value !== undefined) attributes.push([name, value]);
  }
  const head = attributes.length === 0 ? '' : `"attributes":${JSON.stringify(attributes)},`;
  return `{${head}"id":${JSON.stringify(target.id ?? null)},"identifiers":${JSON.stringify(identifiers)},"type":${JSON.stringify(target.type)}}`;
}
