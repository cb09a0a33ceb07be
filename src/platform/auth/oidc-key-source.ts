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
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { isAllowedFetchUrl } from './is-loopback-url.ts';
import { describeFailure, fetchJson, KeyFetchError } from './oidc-key-fetch.ts';
import { shownHeaderValue } from './shown-header-value.ts';

export interface OidcKeySourceOptions {
  readonly issuer: string;
  readonly jwks_url?: string;
  readonly discovery_url?: string;
  /** How long a fetched JWKS is trusted before it is refetched in the background (ms). */
  readonly jwks_cache_ttl: number;
  /** The algorithms a token may name: a published key is checked for use with these when the JWKS loads. */
  readonly allowed_algorithms: readonly string[];
  /** Plain http to loopback addresses is allowed (development only), also for a JWKS named by discovery. */
  readonly allow_dev_insecure_fetch_urls?: boolean;
}

export interface OidcKeySourceDeps {
  readonly clock: Clock;
  readonly fetch: typeof fetch;
  /** Receives one warning per failure streak and per unusable key; never a body, token or key. */
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
  /** Minimum gap between fetches for an unknown `kid` or unverified signature, or after a failed refresh (ms). */
  readonly refreshCooldownMs?: number;
  readonly fetchTimeoutMs?: number;
}

export interface OidcKeySource {
  /**
   * The keys that may have signed a token with this header. On a miss, a newer key set (see `refetchedKeysFor`), then
   * `auth.kid_unknown`; `auth.jwks_unavailable` while no newer set can be had because the issuer keys cannot be fetched.
   */
  keysFor(header: JWSHeaderParameters): Promise<readonly CryptoKey[]>;
  /**
   * For a token none of the keys `tried` (from `keysFor`) verified: the keys for its header from a newer key set (an
   * issuer may rotate its key under the same kid, or without kids), or none while the refetch cooldown runs or the
   * refetch fails.
   */
  refetchedKeysFor(header: JWSHeaderParameters, tried: readonly CryptoKey[]): Promise<readonly CryptoKey[]>;
  /** Whether the key set of this generation is still the one in use and no fetch is due: a cheap check per request. */
  isCurrent(generation: number, now: number): boolean;
  /** Starts a refresh if one is due, as `keysFor` would; waits only while no key set has been fetched yet. */
  refreshIfDue(): Promise<void>;
  /** The generation of the key set in use if it publishes the key with this RFC 7638 thumbprint. */
  holding(thumbprint: string): number | undefined;
  /** RFC 7638 thumbprint of a key `keysFor` returned. */
  thumbprintOf(key: CryptoKey): Promise<string>;
}

type KeySet = ReturnType<typeof createLocalJWKSet>;

/** The current failure streak: when its last attempt failed, how many attempts failed, and why. */
interface FailureStreak {
  readonly at: number;
  readonly count: number;
  readonly cause: unknown;
}

const DEFAULT_COOLDOWN_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 5_000;
/** First wait after a failed fetch while no key set is held; it doubles per failure up to the cooldown. */
const COLD_BACKOFF_MS = 1_000;
const MIN_RSA_BITS = 2048;

/**
 * Milliseconds from `then` to `now` on the wall clock; a clock stepped back since (an NTP correction, a restored VM)
 * reads as a wait long over, so the next fetch is not held off until the clock has caught up again.
 */
const elapsed = (then: number, now: number) => (now < then ? Number.POSITIVE_INFINITY : now - then);

export function createOidcKeySource(options: OidcKeySourceOptions, deps: OidcKeySourceDeps): OidcKeySource {
  const cooldown = deps.refreshCooldownMs ?? DEFAULT_COOLDOWN_MS;
  const timeout = deps.fetchTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  let keySet: KeySet | undefined;
  // Thumbprints of every key the current set publishes; generation counts the sets fetched.
  let published = new Set<string>();
  let generation = 0;
  let fetchedAt = 0;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let failure: FailureStreak | undefined;
  const thumbprints = new WeakMap<CryptoKey, string>();
  // The key set each key handed out came from: a token's retry looks at a newer set, not the one it failed on.
  const origins = new WeakMap<CryptoKey, KeySet>();
  const warnedKeys = new Set<string>();
  let discoveredJwksUri: string | undefined;
  let inFlight: Promise<KeySet> | undefined;

  const getJson = (url: string, what: string) => fetchJson(deps.fetch, url, what, timeout);

  const jwksUri = async (): Promise<string> => {
    if (options.jwks_url !== undefined) return options.jwks_url;
    if (discoveredJwksUri !== undefined) return discoveredJwksUri;
    const url = options.discovery_url;
    if (url === undefined) throw new Error('neither jwks_url nor discovery_url is configured');
    const document = await getJson(url, 'discovery document');
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      throw new KeyFetchError(url, 'invalid_discovery_document', 'discovery document is not an object');
    }
    const { issuer, jwks_uri: uri } = document as { issuer?: unknown; jwks_uri?: unknown };
    // Compared exactly (OpenID Connect Discovery §4.3): `https://idp.example/` is not `https://idp.example`.
    if (issuer !== options.issuer) {
      const shown = typeof issuer === 'string' ? { discoveredIssuer: issuer } : {};
      throw new KeyFetchError(url, 'discovery_issuer_mismatch', 'discovery document issuer differs', shown);
    }
    // The same rule as for a configured URL: a discovered one is not trusted more.
    if (typeof uri !== 'string' || !isAllowedFetchUrl(uri, options.allow_dev_insecure_fetch_urls ?? false)) {
      throw new KeyFetchError(
        url,
        'discovery_jwks_uri_not_allowed',
        'discovery document jwks_uri is not an allowed https URL',
      );
    }
    discoveredJwksUri = uri;
    return uri;
  };

  /** Warns once per key and reason: the JWKS is refetched every TTL and would repeat it each time. */
  const warnDropped = (kid: unknown, reason: string) => {
    const shown = typeof kid === 'string' ? kid.slice(0, 64) : undefined;
    const seen = `${shown} ${reason}`;
    if (warnedKeys.has(seen)) return;
    warnedKeys.add(seen);
    deps.logger?.warn(
      { kid: shown, reason },
      'issuer key ignored: it cannot verify tokens with the allowed algorithms',
    );
  };

  /** The key set of a JWKS document without the keys that cannot verify a token they could be chosen for. */
  const loadKeys = async (url: string, document: unknown) => {
    try {
      createLocalJWKSet(document as JSONWebKeySet);
    } catch (cause) {
      throw new KeyFetchError(url, 'invalid_jwks', `JWKS ${url} is not a JSON Web Key Set`, { cause });
    }
    const { keys } = document as JSONWebKeySet;
    const kept: JWK[] = [];
    const keyPrints = new Set<string>();
    for (const jwk of keys) {
      const found = await inspectKey(jwk, options.allowed_algorithms);
      if ('reason' in found) {
        warnDropped(jwk.kid, found.reason);
        continue;
      }
      kept.push(jwk);
      if (found.thumbprint !== undefined) keyPrints.add(found.thumbprint);
    }
    // An issuer that signs tokens publishes a key: a set without one is its outage (503, the last good keys kept),
    // not a verdict that every caller's token names an unknown key.
    if (kept.length === 0) {
      throw new KeyFetchError(url, 'no_usable_key', `JWKS ${url} holds no usable key`);
    }
    return { set: createLocalJWKSet({ keys: kept }), published: keyPrints };
  };

  const recordFailure = (cause: unknown) => {
    failure = { at: deps.clock.now(), count: (failure?.count ?? 0) + 1, cause };
    if (failure.count > 1) return;
    deps.logger?.warn(
      { ...describeFailure(cause), keys_held: keySet !== undefined },
      keySet === undefined
        ? 'issuer keys could not be fetched: bearer tokens answer 503 until they can'
        : 'issuer keys could not be refreshed: the last good keys keep serving',
    );
  };

  const fetchKeySet = async (): Promise<KeySet> => {
    lastAttemptAt = deps.clock.now();
    try {
      const url = await jwksUri();
      const loaded = await loadKeys(url, await getJson(url, 'JWKS'));
      keySet = loaded.set;
      published = loaded.published;
      generation += 1;
      fetchedAt = deps.clock.now();
      if (failure !== undefined) {
        deps.logger?.info({ failed_attempts: failure.count }, 'issuer keys fetched again');
      }
      failure = undefined;
      return loaded.set;
    } catch (cause) {
      // Discover again next time: the issuer may have moved its keys.
      discoveredJwksUri = undefined;
      recordFailure(cause);
      throw unavailable(cause);
    }
  };

  /** While no key set is held, the wait after the streak's last failure; it doubles per failure up to the cooldown. */
  const coldBackoff = (streak: FailureStreak) =>
    Math.min(cooldown, COLD_BACKOFF_MS * 2 ** (streak.count - 1));

  /** The outage's 503, with the whole seconds (at least 1) until the issuer is asked again as Retry-After. */
  const unavailable = (cause: unknown): Problem => {
    const now = deps.clock.now();
    const wait =
      keySet === undefined && failure !== undefined
        ? coldBackoff(failure) - elapsed(failure.at, now)
        : cooldown - elapsed(lastAttemptAt, now);
    return platformProblem('auth.jwks_unavailable', 'The issuer keys could not be fetched.', {
      cause,
      headers: { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) },
    });
  };

  const refresh = (): Promise<KeySet> => {
    inFlight ??= fetchKeySet().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  // After a failed refresh, the last good keys serve until the cooldown ends rather than fetching on every request.
  const fetchDue = (now: number) =>
    elapsed(fetchedAt, now) >= options.jwks_cache_ttl &&
    (failure === undefined || elapsed(failure.at, now) >= cooldown);

  /** Without any key set there is nothing to serve: wait for a fetch, but back off after failures. */
  const firstKeys = (now: number): Promise<KeySet> => {
    if (inFlight === undefined && failure !== undefined) {
      if (elapsed(failure.at, now) < coldBackoff(failure)) return Promise.reject(unavailable(failure.cause));
    }
    return refresh();
  };

  /** A token's own need (a kid or a signature the keys in hand do not match) fetches at most once per cooldown. */
  const refetchAllowed = () => elapsed(lastAttemptAt, deps.clock.now()) >= cooldown;

  /**
   * A key set newer than the one a token was tried against: a refresh under way (often the due one this very
   * request started, which the cooldown would otherwise hold against it), one that landed meanwhile, or a refetch.
   */
  const newerThan = (tried: KeySet | undefined): Promise<KeySet> | undefined => {
    if (inFlight !== undefined) return inFlight;
    if (keySet !== undefined && keySet !== tried) return Promise.resolve(keySet);
    return refetchAllowed() ? refresh() : undefined;
  };

  const keysIn = async (set: KeySet, header: JWSHeaderParameters): Promise<CryptoKey[]> => {
    const found = await candidates(set, header);
    for (const key of found) origins.set(key, set);
    return found;
  };

  // With a key set in hand no request waits for the issuer: a due refresh runs in the background.
  const current = (): Promise<KeySet> => {
    const now = deps.clock.now();
    if (keySet === undefined) return firstKeys(now);
    if (fetchDue(now)) {
      refresh().catch(() => {
        // Recorded and logged by fetchKeySet; the current keys keep serving.
      });
    }
    return Promise.resolve(keySet);
  };

  return {
    isCurrent: (seen, now) => keySet !== undefined && seen === generation && !fetchDue(now),
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
      const tried = await current();
      const found = await keysIn(tried, header);
      if (found.length > 0) return found;
      // The kid may be a rotated key: wait for a newer key set (a refetch at most once per cooldown).
      const newer = newerThan(tried);
      if (newer !== undefined) {
        const again = await keysIn(await newer, header);
        if (again.length > 0) return again;
      } else if (failure !== undefined) {
        // The last fetch failed and the cooldown holds the next: the kid may be the issuer's newest key, so this
        // is the outage's 503 (as the refetch itself answers), not a verdict on the token.
        throw unavailable(failure.cause);
      }
      throw platformProblem(
        'auth.kid_unknown',
        header.kid === undefined
          ? 'No issuer key matches the token algorithm.'
          : `No issuer key has kid ${shownHeaderValue(header.kid)} for the token algorithm.`,
      );
    },
    async refetchedKeysFor(header, tried) {
      const newer = newerThan(tried[0] === undefined ? undefined : origins.get(tried[0]));
      // A failed refetch is recorded and logged by fetchKeySet; the token is refused as it stands.
      const set = await newer?.catch(() => undefined);
      return set === undefined ? [] : keysIn(set, header);
    },
  };
}

/**
 * Why a published key cannot verify any token it could be chosen for: it does not import as a public key for an
 * allowed algorithm, or it is an RSA key under 2048 bits, which jose refuses at verification. Otherwise the RFC 7638
 * thumbprint of the key as imported (none if no allowed algorithm selects it): the form `thumbprintOf` computes, so
 * a key published with leading zero octets in `n` or `e` is recognised as the key that verified a token.
 */
async function inspectKey(
  jwk: JWK,
  algorithms: readonly string[],
): Promise<{ reason: string } | { thumbprint: string | undefined }> {
  const single = createLocalJWKSet({ keys: [jwk] });
  let imported: CryptoKey | undefined;
  for (const alg of algorithms) {
    let key: CryptoKey;
    try {
      key = await single({ alg });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_JWKS_NO_MATCHING_KEY') continue;
      return { reason: `the key does not import for ${alg}` };
    }
    const { modulusLength } = key.algorithm as { modulusLength?: unknown };
    if (typeof modulusLength === 'number' && modulusLength < MIN_RSA_BITS) {
      return { reason: `RSA key of ${modulusLength} bits (at least ${MIN_RSA_BITS} required)` };
    }
    imported ??= key;
  }
  return { thumbprint: imported && (await calculateJwkThumbprint(await exportJWK(imported))) };
}

/** Every key of the set that matches the header (several when the token carries no `kid`). */
async function candidates(set: KeySet, header: JWSHeaderParameters): Promise<CryptoKey[]> {
  try {
    return [await set(header)];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
      // jose skips a key that fails to import here.
      const keys: CryptoKey[] = [];
      for await (const key of error as AsyncIterable<CryptoKey>) keys.push(key);
      return keys;
    }
    // No match, or the one match does not import (checked at load, so unexpected): no key for this token.
    return [];
  }
}
