// Issuer verification keys: JWKS from `jwks_url` or discovery, cached on the injected clock, refreshed sparingly.
import {
  type CryptoKey,
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  type JSONWebKeySet,
  type JWK,
  type JWSHeaderParameters,
} from 'jose';
import type { Clock } from '../clock.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import { isLoopbackUrl } from './is-loopback-url.ts';

export interface OidcKeySourceOptions {
  readonly issuer: string;
  readonly jwks_url?: string;
  readonly discovery_url?: string;
  /** How long a fetched JWKS is trusted before the next request refetches it (ms). */
  readonly jwks_cache_ttl: number;
}

export interface OidcKeySourceDeps {
  readonly clock: Clock;
  readonly fetch: typeof fetch;
  /** Minimum gap between two fetches caused by an unknown `kid` or a failed refresh (ms). */
  readonly refreshCooldownMs?: number;
  readonly fetchTimeoutMs?: number;
}

export interface OidcKeySource {
  /** The keys that may have signed a token with this header; one refresh on a miss, then `auth.kid_unknown`. */
  keysFor(header: JWSHeaderParameters): Promise<readonly CryptoKey[]>;
  /** Whether the key set of this generation is still the one in use and no fetch is due: a cheap check per request. */
  isCurrent(generation: number, now: number): boolean;
  /** Fetches the key set again if it is due, as `keysFor` would. */
  refreshIfDue(): Promise<void>;
  /** The generation of the key set in use if it publishes the key with this RFC 7638 thumbprint. */
  holding(thumbprint: string): number | undefined;
  /** RFC 7638 thumbprint of a key `keysFor` returned. */
  thumbprintOf(key: CryptoKey): Promise<string>;
}

type KeySet = ReturnType<typeof createLocalJWKSet>;

const DEFAULT_COOLDOWN_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 1024 * 1024;

export function createOidcKeySource(options: OidcKeySourceOptions, deps: OidcKeySourceDeps): OidcKeySource {
  const cooldown = deps.refreshCooldownMs ?? DEFAULT_COOLDOWN_MS;
  const timeout = deps.fetchTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  let keySet: KeySet | undefined;
  // Thumbprints of every key the current set publishes; generation counts the sets fetched.
  let published = new Set<string>();
  let generation = 0;
  let fetchedAt = 0;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let failedAt = Number.NEGATIVE_INFINITY;
  const thumbprints = new WeakMap<CryptoKey, string>();
  let discoveredJwksUri: string | undefined;
  let inFlight: Promise<KeySet> | undefined;

  const getJson = async (url: string, what: string): Promise<unknown> => {
    const response = await deps.fetch(url, {
      headers: { accept: 'application/json' },
      // A redirect could lead off the https origin the configuration was checked against.
      redirect: 'error',
      signal: AbortSignal.timeout(timeout),
    });
    if (!response.ok) throw new Error(`${what} ${url} answered HTTP ${response.status}`);
    const text = await response.text();
    if (text.length > MAX_DOCUMENT_BYTES) throw new Error(`${what} ${url} is larger than 1 MiB`);
    return JSON.parse(text) as unknown;
  };

  const jwksUri = async (): Promise<string> => {
    if (options.jwks_url !== undefined) return options.jwks_url;
    if (discoveredJwksUri !== undefined) return discoveredJwksUri;
    if (options.discovery_url === undefined)
      throw new Error('neither jwks_url nor discovery_url is configured');
    const document = await getJson(options.discovery_url, 'discovery document');
    if (typeof document !== 'object' || document === null)
      throw new Error('discovery document is not an object');
    const { issuer, jwks_uri: uri } = document as { issuer?: unknown; jwks_uri?: unknown };
    if (issuer !== options.issuer) {
      throw new Error(`discovery document issuer ${JSON.stringify(issuer)} is not ${options.issuer}`);
    }
    if (typeof uri !== 'string' || !isFetchableKeyUrl(uri)) {
      throw new Error(`discovery document jwks_uri ${JSON.stringify(uri)} is not an https (or loopback) URL`);
    }
    discoveredJwksUri = uri;
    return uri;
  };

  const fetchKeySet = async (): Promise<KeySet> => {
    lastAttemptAt = deps.clock.now();
    try {
      const document = (await getJson(await jwksUri(), 'JWKS')) as JSONWebKeySet;
      const set = createLocalJWKSet(document);
      published = await thumbprintsOf(document.keys);
      keySet = set;
      generation += 1;
      fetchedAt = deps.clock.now();
      failedAt = Number.NEGATIVE_INFINITY;
      return set;
    } catch (cause) {
      failedAt = deps.clock.now();
      // Discover again next time: the issuer may have moved its keys.
      discoveredJwksUri = undefined;
      throw platformProblem('auth.jwks_unavailable', 'The issuer keys could not be fetched.', { cause });
    }
  };

  const refresh = (): Promise<KeySet> => {
    inFlight ??= fetchKeySet().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  // After a failed refresh, the last good keys serve until the cooldown ends rather than fetching on every request.
  const fetchDue = (now: number) =>
    keySet === undefined || (now - fetchedAt >= options.jwks_cache_ttl && now - failedAt >= cooldown);

  const current = async (): Promise<KeySet> => {
    if (keySet && !fetchDue(deps.clock.now())) return keySet;
    try {
      return await refresh();
    } catch (problem) {
      if (keySet) return keySet;
      throw problem;
    }
  };

  return {
    isCurrent: (seen, now) => seen === generation && !fetchDue(now),
    async refreshIfDue() {
      await current();
    },
    holding: (thumbprint) => (keySet && published.has(thumbprint) ? generation : undefined),
    async thumbprintOf(key) {
      let thumbprint = thumbprints.get(key);
      if (thumbprint === undefined) {
        thumbprint = await calculateJwkThumbprint(await exportJWK(key));
        thumbprints.set(key, thumbprint);
      }
      return thumbprint;
    },
    async keysFor(header) {
      const found = await candidates(await current(), header);
      if (found.length > 0) return found;
      if (deps.clock.now() - lastAttemptAt >= cooldown) {
        const again = await candidates(await refresh(), header);
        if (again.length > 0) return again;
      }
      throw platformProblem(
        'auth.kid_unknown',
        header.kid === undefined
          ? 'No issuer key matches the token algorithm.'
          : `No issuer key has kid ${shownKid(header.kid)} for the token algorithm.`,
      );
    },
  };
}

/** RFC 7638 thumbprints of the published keys. */
async function thumbprintsOf(keys: readonly JWK[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const jwk of keys) {
    try {
      found.add(await calculateJwkThumbprint(jwk));
    } catch {
      // A malformed key has no thumbprint, and cannot have verified a token either.
    }
  }
  return found;
}

/** Every key of the set that matches the header (several when the token carries no `kid`). */
async function candidates(set: KeySet, header: JWSHeaderParameters): Promise<CryptoKey[]> {
  try {
    return [await set(header)];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_JWKS_NO_MATCHING_KEY') return [];
    if (code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
      const keys: CryptoKey[] = [];
      for await (const key of error as AsyncIterable<CryptoKey>) keys.push(key);
      return keys;
    }
    throw platformProblem('auth.jwks_unavailable', 'The issuer key set holds an unusable key.', {
      cause: error,
    });
  }
}

/** The kid is attacker-chosen: quote and shorten it before it reaches a problem detail. */
function shownKid(kid: unknown): string {
  const text = JSON.stringify(kid) ?? 'undefined';
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function isFetchableKeyUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || (protocol === 'http:' && isLoopbackUrl(url));
  } catch {
    return false;
  }
}
