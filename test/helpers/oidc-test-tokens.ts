// Hand-made OIDC fixtures for authenticator tests: signing keys, a stub JWKS fetch and token minting.
import assert from 'node:assert/strict';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  type JWTHeaderParameters,
  type JWTPayload,
  SignJWT,
} from 'jose';
import type { OidcOptions } from '../../src/platform/auth/oidc-bearer.ts';
import { isProblem, type Problem } from '../../src/platform/problem/problem.ts';

export const TEST_ISSUER = 'https://idp.test';
export const TEST_AUDIENCE = 'https://relay.test/api';
export const TEST_JWKS_URL = 'https://idp.test/jwks';
/** Test time for hand-made tokens; the authenticator clock starts here. */
export const T0 = '2030-01-01T00:00:00.000Z';
export const T0_SECONDS = Date.parse(T0) / 1000;

export interface TestSigner {
  readonly alg: 'RS256' | 'ES256' | 'EdDSA';
  readonly kid: string | undefined;
  readonly privateKey: CryptoKey;
  readonly publicJwk: Record<string, unknown>;
}

export async function makeSigner(alg: TestSigner['alg'], kid: string | undefined): Promise<TestSigner> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const publicJwk = {
    ...(await exportJWK(publicKey)),
    alg,
    use: 'sig',
    ...(kid === undefined ? {} : { kid }),
  };
  return { alg, kid, privateKey, publicJwk };
}

export function jwksOf(...signers: readonly TestSigner[]): JSONWebKeySet {
  return { keys: signers.map((signer) => signer.publicJwk) } as JSONWebKeySet;
}

export function oidcTestOptions(overrides: Partial<OidcOptions> = {}): OidcOptions {
  return {
    issuer: TEST_ISSUER,
    audiences: [TEST_AUDIENCE],
    jwks_url: TEST_JWKS_URL,
    allowed_algorithms: ['RS256', 'ES256', 'EdDSA'],
    jwks_cache_ttl: 600_000,
    leeway: 30_000,
    scope_claim: 'scope',
    scope_map: {},
    allowed_clients: [],
    allowed_token_types: ['JWT', 'at+jwt'],
    ...overrides,
  };
}

/** Claims of a token valid at T0; override or delete (value `undefined`) any of them. */
export function claimsAt(overrides: Record<string, unknown> = {}): JWTPayload {
  const claims: Record<string, unknown> = {
    iss: TEST_ISSUER,
    aud: TEST_AUDIENCE,
    sub: 'client-1',
    scope: 'relay:read',
    iat: T0_SECONDS,
    exp: T0_SECONDS + 300,
    ...overrides,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

export function signToken(
  signer: TestSigner,
  claims: JWTPayload = claimsAt(),
  header: Partial<JWTHeaderParameters> = {},
): Promise<string> {
  const protectedHeader = { alg: signer.alg, kid: signer.kid, typ: 'at+jwt', ...header };
  for (const [name, value] of Object.entries(protectedHeader)) {
    if (value === undefined) delete (protectedHeader as Record<string, unknown>)[name];
  }
  return new SignJWT(claims).setProtectedHeader(protectedHeader).sign(signer.privateKey);
}

export type StubRoute = () => Response | Promise<Response>;

/** A fetch that answers from a table of URLs (a missing URL is a network failure) and records each call. */
export function stubFetch(routes: Record<string, StubRoute>): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const stub = async (input: string | URL | Request): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    calls.push(url);
    const route = routes[url];
    if (!route) throw new TypeError(`fetch failed: no route for ${url}`);
    return route();
  };
  return { fetch: stub as typeof fetch, calls };
}

export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Awaits a rejection and checks it is the Problem with this code. */
export async function expectProblem(promise: Promise<unknown>, code: string): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isProblem(error), `expected a Problem, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but the promise resolved`);
}
