// A discovery document the key source refuses: the warning names why, so an operator can tell an `issuer` that
// differs from the configured one (often by a trailing slash) from a `jwks_uri` that is not allowed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expectProblem,
  jsonResponse,
  oidcTestOptions,
  stubFetch,
  T0,
  TEST_ISSUER,
  TEST_JWKS_URL,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { createOidcKeySource } from './oidc-key-source.ts';

const DISCOVERY_URL = `${TEST_ISSUER}/.well-known/openid-configuration`;

/** The fields of the one warning logged when the key source reads this discovery document. */
async function warningFor(document: unknown): Promise<Record<string, unknown> | undefined> {
  const warnings: Record<string, unknown>[] = [];
  const logger = {
    warn: (fields: Record<string, unknown>) => warnings.push(fields),
    info: () => {},
  } as unknown as Pick<Logger, 'warn' | 'info'>;
  const net = stubFetch({ [DISCOVERY_URL]: () => jsonResponse(document) });
  const keys = createOidcKeySource(
    { ...oidcTestOptions({ discovery_url: DISCOVERY_URL }), jwks_url: undefined },
    { clock: fixedClock(T0), fetch: net.fetch, logger },
  );
  await expectProblem(keys.keysFor({ alg: 'RS256', kid: 'k' }), 'auth.jwks_unavailable');
  assert.equal(warnings.length, 1);
  return warnings[0];
}

describe('OIDC discovery documents refused', () => {
  it('names an issuer that differs from the configured one, and shows it', async () => {
    assert.deepEqual(await warningFor({ issuer: `${TEST_ISSUER}/`, jwks_uri: TEST_JWKS_URL }), {
      url: DISCOVERY_URL,
      error: 'discovery_issuer_mismatch',
      discovered_issuer: `${TEST_ISSUER}/`,
      keys_held: false,
    });
    const missing = await warningFor({ jwks_uri: TEST_JWKS_URL });
    assert.equal(missing?.error, 'discovery_issuer_mismatch');
    assert.equal(missing?.discovered_issuer, undefined);
  });

  it('shows at most 256 characters of a discovered issuer', async () => {
    const long = `${TEST_ISSUER}/${'a'.repeat(5_000)}`;
    const fields = await warningFor({ issuer: long, jwks_uri: TEST_JWKS_URL });
    assert.equal(fields?.discovered_issuer, long.slice(0, 256));
  });

  it('names a jwks_uri that is not an allowed https URL', async () => {
    const fields = await warningFor({ issuer: TEST_ISSUER, jwks_uri: 'http://idp.test/jwks?tenant=t1' });
    assert.deepEqual(fields, {
      url: DISCOVERY_URL,
      error: 'discovery_jwks_uri_not_allowed',
      keys_held: false,
    });
  });

  it('names a document that is not an object', async () => {
    assert.equal((await warningFor([]))?.error, 'invalid_discovery_document');
  });
});
