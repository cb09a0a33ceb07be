// The keyed hash that stands for a caller in stored evaluations, idempotency records and audit events. A static
// credential's principal is one object for the life of the process, so its hash is computed once, not per request.
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { Principal } from '../../platform/auth/principal.ts';

const cache = new WeakMap<Principal, { readonly secret: Buffer; readonly hash: string }>();

export function principalHash(secret: Buffer, principal: Principal): string {
  const cached = cache.get(principal);
  if (cached !== undefined && cached.secret === secret) return cached.hash;
  const hash = keyedHash(secret, 'principal', principal.id);
  cache.set(principal, { secret, hash });
  return hash;
}
