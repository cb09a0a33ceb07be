// The keyed stand-ins for a target: the `target_ref` handle returned to callers and the hash written to audit.
// Both are stable for one deployment (one audit secret) and never reveal the identifiers. An evaluation asks for
// them more than once (result, audit event, batch item), so each target's are worked out once.
import { canonicalJson } from '../../platform/audit/canonical-json.ts';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { TargetRef } from './build-claim-result.ts';
import type { EvaluationTarget } from './parse-evaluation-request.ts';

/** A target's handle and audit hash, worked out once per target however many times they are asked for. */
interface TargetKeys {
  readonly secret: Buffer;
  /** Canonical JSON of the identity both keys stand for. */
  readonly identity: string;
  ref?: TargetRef;
  auditHash?: string;
}

const keysByTarget = new WeakMap<EvaluationTarget, TargetKeys>();

/** The identity a target handle and audit hash stand for: type, id and identifiers, never attributes. */
function keysOf(secret: Buffer, target: EvaluationTarget): TargetKeys {
  const cached = keysByTarget.get(target);
  if (cached !== undefined && cached.secret === secret) return cached;
  const identifiers = [...target.identifiers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const keys: TargetKeys = {
    secret,
    identity: canonicalJson({ type: target.type, id: target.id ?? null, identifiers }),
  };
  keysByTarget.set(target, keys);
  return keys;
}

export function buildTargetRef(secret: Buffer, target: EvaluationTarget): TargetRef {
  const keys = keysOf(secret, target);
  if (keys.ref === undefined) {
    const digest = keyedHash(secret, 'target_ref', keys.identity).slice('hmac-sha256:'.length);
    keys.ref = {
      type: target.type,
      handle: `amref:v1:${digest.slice(0, 32)}`,
      identifier_schemes: [...target.identifiers.keys()].sort(),
    };
  }
  return keys.ref;
}

export function targetAuditHash(secret: Buffer, target: EvaluationTarget): string {
  const keys = keysOf(secret, target);
  keys.auditHash ??= keyedHash(secret, 'audit:target', keys.identity);
  return keys.auditHash;
}
