// The keyed stand-ins for a target: the `target_ref` handle returned to callers and the hash written to audit.
// Both are stable for one deployment (one audit secret) and never reveal the identifiers.
import { canonicalJson } from '../../platform/audit/canonical-json.ts';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { TargetRef } from './build-claim-result.ts';
import type { EvaluationTarget } from './parse-evaluation-request.ts';

/** The identity a target handle and audit hash stand for: type, id and identifiers, never attributes. */
function targetIdentity(target: EvaluationTarget): string {
  const identifiers = [...target.identifiers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalJson({ type: target.type, id: target.id ?? null, identifiers });
}

export function buildTargetRef(secret: Buffer, target: EvaluationTarget): TargetRef {
  const digest = keyedHash(secret, 'target_ref', targetIdentity(target)).slice('hmac-sha256:'.length);
  return {
    type: target.type,
    handle: `amref:v1:${digest.slice(0, 32)}`,
    identifier_schemes: [...target.identifiers.keys()].sort(),
  };
}

export function targetAuditHash(secret: Buffer, target: EvaluationTarget): string {
  return keyedHash(secret, 'audit:target', targetIdentity(target));
}
