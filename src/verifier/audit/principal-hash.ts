// The keyed hash that stands for a caller in stored evaluations, idempotency records and audit events. A caller
// sends many requests, so each principal id's hash is kept (per secret, for a bounded number of ids) instead of
// being computed for the store and again for the audit event of every request.
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { Principal } from '../../platform/auth/principal.ts';

const MAX_CACHED = 4096;
const bySecret = new WeakMap<Buffer, Map<string, string>>();

export function principalHash(secret: Buffer, principal: Principal): string {
  let hashes = bySecret.get(secret);
  if (!hashes) {
    hashes = new Map();
    bySecret.set(secret, hashes);
  }
  let hash = hashes.get(principal.id);
  if (hash === undefined) {
    hash = keyedHash(secret, 'principal', principal.id);
    // Token subjects are unbounded: start over rather than grow without limit.
    if (hashes.size >= MAX_CACHED) hashes.clear();
    hashes.set(principal.id, hash);
  }
  return hash;
}
