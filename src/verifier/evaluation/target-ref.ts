// The keyed stand-ins for a target: the `target_ref` handle returned to callers and the hash written to audit.
// Both are stable for one deployment (one audit secret) and never reveal the identifiers. Both are worked out
// together, once per target, from one serialisation of its identity.
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { TargetRef } from './build-claim-result.ts';
import type { EvaluationTarget } from './parse-evaluation-request.ts';

export interface TargetKeys {
  readonly ref: TargetRef;
  /** `target_ref_hash` of the audit event. */
  readonly auditHash: string;
}

export function targetKeys(secret: Buffer, target: EvaluationTarget): TargetKeys {
  const identity = targetIdentity(target);
  const digest = keyedHash(secret, 'target_ref', identity).slice('hmac-sha256:'.length);
  return {
    ref: {
      type: target.type,
      handle: `amref:v1:${digest.slice(0, 32)}`,
      identifier_schemes: [...target.identifiers.keys()].sort(),
    },
    auditHash: keyedHash(secret, 'audit:target', identity),
  };
}

/**
 * The identity a target handle and audit hash stand for: type, id and identifiers (sorted by scheme), never
 * attributes; `canonicalJson({type, id, identifiers})`, written out directly (keys in sorted order, and every
 * member a string, null or an array of string pairs, which JSON.stringify writes exactly as canonicalJson does).
 */
export function targetIdentity(target: EvaluationTarget): string {
  const identifiers = [...target.identifiers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{"id":${JSON.stringify(target.id ?? null)},"identifiers":${JSON.stringify(identifiers)},"type":${JSON.stringify(target.type)}}`;
}
