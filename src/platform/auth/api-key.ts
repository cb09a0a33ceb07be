// API-key authentication: only SHA-256 fingerprints are held; the presented key is hashed and compared in constant time.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Principal } from './principal.ts';

export const FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

export interface ApiKeyEntry {
  readonly id: string;
  /** `sha256:<64 lowercase hex>` of the raw key's UTF-8 bytes. */
  readonly fingerprint: string;
  readonly scopes: readonly string[];
}

export function fingerprintOf(rawKey: string): string {
  return `sha256:${createHash('sha256').update(rawKey, 'utf8').digest('hex')}`;
}

/** The commitment binds a key id to its fingerprint, so a swapped secret in the environment is detected. */
export function commitmentOf(product: string, id: string, fingerprint: string): string {
  const body = JSON.stringify({ product, credential_type: 'api_key', credential_id: id, fingerprint });
  return `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}`;
}

/**
 * Checks presented keys against the fingerprints. Given the connection the key arrived on, a key the same
 * connection presented last time is recognised without hashing it again: keep-alive clients send the same key on
 * every request. The key is then held only as long as that connection. A reverse proxy may pool several clients on
 * one connection, so the held key may be another client's: it is compared in constant time too.
 */
export function createApiKeyAuthenticator(
  entries: readonly ApiKeyEntry[],
): (secret: string, connection?: object) => Principal {
  const keys = entries.map((entry) => ({
    digest: Buffer.from(entry.fingerprint.slice('sha256:'.length), 'hex'),
    principal: {
      id: entry.id,
      authMode: 'api_key' as const,
      scopes: new Set(entry.scopes),
      credentialTag: entry.fingerprint.slice(0, 23),
    } satisfies Principal,
  }));
  const lastOnConnection = new WeakMap<object, { secret: Buffer; principal: Principal }>();
  return (secret, connection) => {
    const last = connection === undefined ? undefined : lastOnConnection.get(connection);
    const bytes = last === undefined ? undefined : Buffer.from(secret, 'utf8');
    // Only the length is compared early: it tells nothing a key format does not already.
    if (last && bytes && bytes.length === last.secret.length && timingSafeEqual(bytes, last.secret)) {
      return last.principal;
    }
    const presented = hash('sha256', secret, 'buffer');
    let found: Principal | undefined;
    // Compare against every key without an early exit so timing does not reveal which key matched.
    for (const key of keys) {
      if (timingSafeEqual(presented, key.digest) && found === undefined) found = key.principal;
    }
    if (!found) throw platformProblem('auth.invalid_credential', 'The credential is not recognised.');
    if (connection !== undefined) {
      lastOnConnection.set(connection, { secret: bytes ?? Buffer.from(secret, 'utf8'), principal: found });
    }
    return found;
  };
}
