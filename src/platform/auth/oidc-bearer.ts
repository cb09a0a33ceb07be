// OIDC bearer tokens: verifies a JWT access token against the issuer keys and turns its claims into a Principal.
import { createHash } from 'node:crypto';
import {
  type CryptoKey,
  decodeJwt,
  decodeProtectedHeader,
  type JWSHeaderParameters,
  type JWTPayload,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose';
import type { Clock } from '../clock.ts';
import { repeatedMember } from '../http/duplicate-members.ts';
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import { isProblem, type Problem, withAdded } from '../problem/problem.ts';
import { createOidcKeySource } from './oidc-key-source.ts';
import type { Principal } from './principal.ts';
import { shownHeaderValue } from './shown-header-value.ts';
import { VerifiedTokenCache } from './verified-token-cache.ts';

export { isLoopbackUrl } from './is-loopback-url.ts';

export type OidcAlgorithm = 'RS256' | 'ES256' | 'EdDSA' | 'Ed25519';

/** Same member names as the relay's `auth.oidc` config block; durations are milliseconds. */
export interface OidcOptions {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly jwks_url?: string;
  readonly discovery_url?: string;
  readonly allowed_algorithms: readonly OidcAlgorithm[];
  readonly jwks_cache_ttl: number;
  readonly leeway: number;
  readonly scope_claim: string;
  readonly scope_map: Readonly<Record<string, string | readonly string[]>>;
  readonly allowed_clients: readonly string[];
  readonly allowed_token_types: readonly string[];
  /** Plain http to loopback issuers and key sets (development only); see oidc-key-source.ts. */
  readonly allow_dev_insecure_fetch_urls?: boolean;
}

export interface OidcAuthenticator {
  authenticate(token: string): Promise<Principal>;
}

export interface OidcAuthenticatorDeps {
  readonly clock: Clock;
  readonly fetch?: typeof fetch;
  /** For issuer key fetch failures and unusable published keys. */
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

interface CachedToken {
  readonly principal: Principal;
  readonly exp: number;
  /** Thumbprint of the key that verified the token, and the key set generation last seen publishing it. */
  readonly key: string;
  generation: number;
}

export function createOidcAuthenticator(
  options: OidcOptions,
  deps: OidcAuthenticatorDeps,
): OidcAuthenticator {
  const { clock } = deps;
  // `Ed25519` names fully (RFC 9864) the one signature `EdDSA` verifies here: an issuer moving to it stays accepted.
  const algorithms = new Set<string>(options.allowed_algorithms);
  if (algorithms.has('EdDSA')) algorithms.add('Ed25519');
  const keys = createOidcKeySource(
    { ...options, allowed_algorithms: [...algorithms] },
    {
      clock,
      fetch: deps.fetch ?? globalThis.fetch,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    },
  );
  const tokenTypes = new Set(options.allowed_token_types.map(normaliseTyp));
  const clients = new Set(options.allowed_clients);
  const leewaySeconds = options.leeway / 1000;
  const cache = new VerifiedTokenCache<CachedToken>();

  const isExpired = (exp: number, now: number) => exp <= Math.floor(now / 1000) - leewaySeconds;

  const verify = async (token: string, header: JWSHeaderParameters, now: number): Promise<Verified> => {
    const candidates = await keys.keysFor(header);
    const verifyOptions: JWTVerifyOptions = {
      issuer: options.issuer,
      audience: [...options.audiences],
      algorithms: [...algorithms],
      requiredClaims: ['exp'],
      clockTolerance: leewaySeconds,
      currentDate: new Date(now),
    };
    try {
      return await verifyWithAny(token, candidates, verifyOptions);
    } catch (error) {
      const problem = toProblem(error);
      if (problem.code !== 'auth.token_signature_invalid') throw problem;
      // The issuer may have rotated its key under the same kid (or without kids): one refetch per cooldown.
      const fresh = await keys.refetchedKeysFor(header, candidates);
      if (fresh.length === 0) throw problem;
      try {
        return await verifyWithAny(token, fresh, verifyOptions);
      } catch (again) {
        throw toProblem(again);
      }
    }
  };

  const checker: OidcAuthenticator = {
    async authenticate(token) {
      const now = clock.now();
      const cached = cache.get(token);
      if (cached) {
        if (isExpired(cached.exp, now)) {
          cache.delete(token);
          throw platformProblem('auth.token_expired', 'The bearer token has expired.');
        }
        if (keys.isCurrent(cached.generation, now)) return cached.principal;
        // The key set was refetched or is due: the token stands only while its key is still published.
        await keys.refreshIfDue();
        const generation = keys.holding(cached.key);
        if (generation !== undefined) {
          cached.generation = generation;
          return cached.principal;
        }
        cache.delete(token);
      }
      const header = checkHeader(token, algorithms, tokenTypes);
      const { payload, key } = await verify(token, header, now);
      // jose checks `iat` only together with maxTokenAge; a token minted in the future is not yet valid.
      if (typeof payload.iat === 'number' && payload.iat > Math.floor(now / 1000) + leewaySeconds) {
        throw platformProblem('auth.token_not_yet_valid', 'The bearer token `iat` lies in the future.');
      }
      if (clients.size > 0) {
        const presented = [stringClaim(payload, 'azp'), stringClaim(payload, 'client_id')];
        if (!presented.some((client) => client !== undefined && clients.has(client))) {
          throw platformProblem(
            'auth.client_not_allowed',
            'The token was issued to a client that is not allowed.',
          );
        }
      }
      const principal = toPrincipal(payload, options);
      const thumbprint = await keys.thumbprintOf(key);
      // A refresh that ran meanwhile and dropped the key leaves the token uncached, so the next use fails.
      const generation = keys.holding(thumbprint);
      if (generation !== undefined) {
        cache.set(token, { principal, exp: payload.exp as number, key: thumbprint, generation });
      }
      return principal;
    },
  };
  return {
    authenticate: (token) =>
      checker.authenticate(token).catch((error: unknown) => {
        throw withInvalidTokenChallenge(error);
      }),
  };
}

/** RFC 6750 §3.1: a presented token that is refused is `invalid_token` (realm as create-server.ts sends it). */
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="ambit", error="invalid_token"';

function withInvalidTokenChallenge(error: unknown): unknown {
  if (!isProblem(error) || error.status !== 401) return error;
  return withAdded(error, { headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE } });
}

/** Header checks that need no key: shape (one meaning for every member), then algorithm, then token type. */
function checkHeader(token: string, algorithms: ReadonlySet<string>, tokenTypes: ReadonlySet<string>) {
  let header: JWSHeaderParameters;
  try {
    if (!COMPACT_JWS.test(token)) throw new TypeError('not a compact JWS');
    header = decodeProtectedHeader(token) as JWSHeaderParameters;
    decodeJwt(token);
  } catch (cause) {
    throw platformProblem('auth.malformed_credential', 'The bearer token is not a well-formed JWT.', {
      cause,
    });
  }
  const [headerPart = '', payloadPart = ''] = token.split('.');
  for (const [part, where] of [
    [headerPart, 'header names'],
    [payloadPart, 'claims name'],
  ] as const) {
    const name = repeatedMember(Buffer.from(part, 'base64url').toString('utf8'));
    if (name !== undefined) {
      throw platformProblem(
        'auth.malformed_credential',
        `The bearer token ${where} ${shownHeaderValue(name)} more than once.`,
      );
    }
  }
  if (typeof header.alg !== 'string' || !algorithms.has(header.alg)) {
    throw platformProblem(
      'auth.algorithm_not_allowed',
      `Tokens signed with ${shownHeaderValue(header.alg)} are not accepted.`,
    );
  }
  // No critical extension is understood here: such a token is refused as such, not tried against every key (the
  // library would reject it per key, which read as a signature that does not verify).
  if (header.crit !== undefined) {
    throw platformProblem(
      'auth.malformed_credential',
      'The bearer token names critical header parameters (`crit`), which are not supported.',
    );
  }
  const typ = header.typ ?? 'JWT';
  if (typeof typ !== 'string' || !tokenTypes.has(normaliseTyp(typ))) {
    throw platformProblem(
      'auth.token_type_not_allowed',
      `Tokens of type ${shownHeaderValue(typ)} are not accepted.`,
    );
  }
  return header;
}

/** `typ` compares case-insensitively and may carry the `application/` prefix (RFC 7515 §4.1.9). */
function normaliseTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') && lower.indexOf('/') === lower.lastIndexOf('/')
    ? lower.slice('application/'.length)
    : lower;
}

interface Verified {
  readonly payload: JWTPayload;
  readonly key: CryptoKey;
}

/** Tries each candidate key; with no `kid` several keys may match and only one signed the token. */
async function verifyWithAny(
  token: string,
  candidates: readonly CryptoKey[],
  verifyOptions: JWTVerifyOptions,
): Promise<Verified> {
  let lastError: unknown;
  for (const key of candidates) {
    try {
      return { payload: (await jwtVerify(token, key, verifyOptions)).payload, key };
    } catch (error) {
      if (isTokenVerdict(error)) throw error;
      // This key did not verify the token, or cannot verify at all (jose refuses a weak key with a TypeError).
      lastError = error;
    }
  }
  throw platformProblem('auth.token_signature_invalid', 'The token signature does not verify.', {
    cause: lastError,
  });
}

/** Errors about the token itself (its shape, or its claims once a key verified it): no other key changes them. */
function isTokenVerdict(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    typeof code === 'string' &&
    (code.startsWith('ERR_JWT_') || code === 'ERR_JWS_INVALID' || code === 'ERR_JOSE_ALG_NOT_ALLOWED')
  );
}

/** Maps jose failures by their stable `code` (and `claim`/`reason`), keeping the original as `cause`. */
function toProblem(error: unknown): Problem {
  if (isProblem(error)) return error;
  const { code, claim, reason } = error as { code?: unknown; claim?: unknown; reason?: unknown };
  const options = { cause: error };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return platformProblem('auth.token_expired', 'The bearer token has expired.', options);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return platformProblem('auth.algorithm_not_allowed', 'The token algorithm is not accepted.', options);
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return platformProblem(
        'auth.malformed_credential',
        'The bearer token is not a well-formed JWT.',
        options,
      );
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return claimProblem(claim, reason, options);
    default:
      // Whatever else a token makes verification throw, it is a token refused, never a server error.
      return platformProblem('auth.invalid_credential', 'The bearer token is not accepted.', options);
  }
}

function claimProblem(claim: unknown, reason: unknown, options: { cause: unknown }): Problem {
  if (claim === 'iss')
    return platformProblem('auth.issuer_mismatch', 'The token `iss` is not accepted.', options);
  if (claim === 'aud') {
    return platformProblem('auth.audience_mismatch', 'The token `aud` names no accepted audience.', options);
  }
  if (reason === 'invalid') {
    return platformProblem(
      'auth.malformed_credential',
      `The token \`${String(claim)}\` is malformed.`,
      options,
    );
  }
  if (claim === 'nbf' || claim === 'iat') {
    return platformProblem('auth.token_not_yet_valid', 'The bearer token is not valid yet.', options);
  }
  if (reason === 'missing') {
    return platformProblem(
      'auth.invalid_credential',
      `The token has no \`${String(claim)}\` claim.`,
      options,
    );
  }
  return platformProblem('auth.invalid_credential', 'The token claims are not accepted.', options);
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = Object.hasOwn(payload, name) ? payload[name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function toPrincipal(payload: JWTPayload, options: OidcOptions): Principal {
  // A caller named by a number (or a list...) is refused, not read as naming no one: two users of one client would
  // otherwise become that client, and share its stored evaluations, idempotency keys and cursors.
  for (const name of ['sub', 'client_id', 'azp']) {
    if (Object.hasOwn(payload, name) && typeof payload[name] !== 'string') {
      throw platformProblem('auth.malformed_credential', `The token \`${name}\` claim is not a string.`);
    }
  }
  // Nor is an empty subject a token without one: it names no user, and read as absent it would be the client.
  if (payload.sub === '') {
    throw platformProblem('auth.malformed_credential', 'The token `sub` claim is empty.');
  }
  // A token without `sub` is a client's own (client credentials): marked as such, so that a client whose id equals a
  // user's subject is still another caller (stored evaluations, idempotency keys and cursors are bound to the id).
  const client = stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp');
  const sub = stringClaim(payload, 'sub');
  const id = sub === undefined ? (client === undefined ? undefined : `client:${client}`) : subjectId(sub);
  if (id === undefined) {
    throw platformProblem(
      'auth.invalid_credential',
      'The token names no subject (`sub`, `client_id` or `azp`).',
    );
  }
  const tag = createHash('sha256')
    .update(JSON.stringify([payload.iss, id]), 'utf8')
    .digest('hex');
  return {
    id,
    authMode: 'oidc',
    scopes: oidcScopes(payload, options.scope_claim, options.scope_map),
    credentialTag: `sha256:${tag.slice(0, 16)}`,
  };
}

/**
 * A subject spelled as a marked client (`client:…`) is escaped with `sub:`, and so is one already starting with it:
 * an IdP that lets users pick their subject (a user name) would otherwise let a user become a client.
 */
function subjectId(sub: string): string {
  return sub.startsWith('client:') || sub.startsWith('sub:') ? `sub:${sub}` : sub;
}

/**
 * Reads the scope claim and renames through scope_map. Forms: a space-separated string, an array (its strings), or
 * a role object whose keys are granted when their value is an object (`{"admin": {"<org id>": "<domain>"}}`);
 * anything else grants nothing, so `{"admin": false}` is not the admin role.
 */
function oidcScopes(
  payload: JWTPayload,
  claim: string,
  scopeMap: Readonly<Record<string, string | readonly string[]>>,
): Set<string> {
  const value = Object.hasOwn(payload, claim) ? payload[claim] : undefined;
  let raw: string[] = [];
  // Split at U+0020 only (RFC 6749 §3.3): a scope granted as one name with a tab or a Unicode space inside (a
  // parameter its client chose) must not grant the scope spelled after it.
  if (typeof value === 'string') raw = value.split(' ');
  else if (Array.isArray(value)) raw = value.filter((entry): entry is string => typeof entry === 'string');
  else if (typeof value === 'object' && value !== null) {
    raw = Object.entries(value)
      .filter(([, grant]) => typeof grant === 'object' && grant !== null && !Array.isArray(grant))
      .map(([name]) => name);
  }
  const scopes = new Set<string>();
  for (const name of raw) {
    if (name === '') continue;
    const mapped = Object.hasOwn(scopeMap, name) ? scopeMap[name] : undefined;
    if (mapped === undefined) scopes.add(name);
    else if (typeof mapped === 'string') scopes.add(mapped);
    else for (const scope of mapped) scopes.add(scope);
  }
  return scopes;
}
