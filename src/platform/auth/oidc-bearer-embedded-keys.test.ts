// Tokens that bring their own key (`jwk`, `jku`, `x5u`, `x5c`) or wrap another token: only the issuer's published
// keys verify, no URL a token names is fetched, and a nested JWT is not unwrapped.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CompactSign } from 'jose';
import {
  claimsAt,
  expectProblem,
  jsonResponse,
  jwksOf,
  makeSigner,
  oidcTestOptions,
  signToken,
  stubFetch,
  T0,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcAuthenticator } from './oidc-bearer.ts';

const ATTACKER_URL = 'https://attacker.test/keys';

describe('OIDC bearer tokens naming keys of their own', () => {
  let issuer: TestSigner;
  let attacker: TestSigner;
  before(async () => {
    issuer = await makeSigner('RS256', 'k-issuer');
    attacker = await makeSigner('RS256', 'k-issuer');
  });

  const setup = () => {
    const net = stubFetch({
      [TEST_JWKS_URL]: () => jsonResponse(jwksOf(issuer)),
      [ATTACKER_URL]: () => jsonResponse(jwksOf(attacker)),
    });
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock: fixedClock(T0), fetch: net.fetch });
    return { auth, net };
  };

  it('refuses a token signed with a key its own header carries or points to, fetching nothing it names', async () => {
    const { auth, net } = setup();
    const { kid: _kid, ...attackerJwk } = attacker.publicJwk;
    for (const header of [
      { jwk: attackerJwk },
      { kid: undefined, jwk: attackerJwk },
      { jku: ATTACKER_URL },
      { kid: undefined, jku: ATTACKER_URL },
      { x5u: ATTACKER_URL },
      { x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] },
    ]) {
      await expectProblem(
        auth.authenticate(await signToken(attacker, claimsAt(), header)),
        'auth.token_signature_invalid',
      );
    }
    assert.ok(
      net.calls.every((url) => url === TEST_JWKS_URL),
      `fetched ${net.calls.join(', ')}`,
    );
    // The same headers on a token the issuer signed change nothing.
    const principal = await auth.authenticate(await signToken(issuer, claimsAt(), { jku: ATTACKER_URL }));
    assert.equal(principal.id, 'client-1');
  });

  it('refuses a nested JWT (a signed token whose payload is another token) as malformed', async () => {
    const { auth } = setup();
    const inner = await signToken(issuer);
    const nested = await new CompactSign(new TextEncoder().encode(inner))
      .setProtectedHeader({ alg: 'RS256', kid: 'k-issuer', cty: 'JWT' })
      .sign(issuer.privateKey);
    await expectProblem(auth.authenticate(nested), 'auth.malformed_credential');
  });
});
