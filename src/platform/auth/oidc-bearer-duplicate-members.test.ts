// A JSON object naming a member twice reads as either value depending on the parser: a token whose header or claims
// do so is refused, signed or not, so a gateway or log reader in front can never see other claims than the check.
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { base64url } from 'jose';
import {
  claimsAt,
  expectProblem,
  jsonResponse,
  jwksOf,
  makeSigner,
  oidcTestOptions,
  stubFetch,
  T0,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcAuthenticator } from './oidc-bearer.ts';

describe('OIDC bearer tokens naming a JSON member twice', () => {
  let rs: TestSigner;

  before(async () => {
    rs = await makeSigner('RS256', 'k-rs');
  });

  const setup = () => {
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(rs)) });
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock: fixedClock(T0), fetch: net.fetch });
    return { auth, net };
  };

  /** Signs header and payload text as given (the library would serialise an object, losing the duplicate). */
  const signRaw = async (header: string, payload: string) => {
    const input = `${base64url.encode(header)}.${base64url.encode(payload)}`;
    const signature = await webcrypto.subtle.sign(
      'RSASSA-PKCS1-v1_5',
      rs.privateKey as webcrypto.CryptoKey,
      new TextEncoder().encode(input),
    );
    return `${input}.${base64url.encode(new Uint8Array(signature))}`;
  };

  const HEADER = '{"alg":"RS256","kid":"k-rs","typ":"at+jwt"}';
  const claims = () => JSON.stringify(claimsAt());
  /** The claims with one more member spliced in after the opening brace. */
  const withMember = (member: string) => `{${member},${claims().slice(1)}`;

  it('accepts the same token written without a repeated member (the control)', async () => {
    const { auth } = setup();
    assert.equal((await auth.authenticate(await signRaw(HEADER, claims()))).id, 'client-1');
  });

  it('refuses a signed token repeating a claim, however the name is spelled, with 401', async () => {
    const { auth } = setup();
    for (const payload of [
      withMember('"scope":"admin"'),
      withMember('"sub":"someone-else"'),
      // The same name through an escape.
      withMember('"\\u0073cope":"admin"'),
      // Nested objects are checked too: a role object is a scope claim form.
      withMember('"roles":{"admin":{"1":"a"},"admin":false}'),
    ]) {
      const problem = await expectProblem(
        auth.authenticate(await signRaw(HEADER, payload)),
        'auth.malformed_credential',
      );
      assert.equal(problem.status, 401);
      assert.match(problem.detail, /more than once/);
    }
  });

  it('refuses a header repeating a parameter before fetching any key', async () => {
    const { auth, net } = setup();
    for (const header of [
      '{"alg":"RS256","kid":"k-rs","typ":"at+jwt","alg":"RS256"}',
      '{"alg":"RS256","kid":"other","typ":"at+jwt","kid":"k-rs"}',
    ]) {
      await expectProblem(auth.authenticate(await signRaw(header, claims())), 'auth.malformed_credential');
    }
    assert.deepEqual(net.calls, []);
  });

  it('keeps members of different objects, and equal values in a list, apart', async () => {
    const { auth } = setup();
    const payload = withMember('"act":{"sub":"client-1","act":{"sub":"client-1"}},"groups":["a","a"]');
    assert.equal((await auth.authenticate(await signRaw(HEADER, payload))).id, 'client-1');
  });
});
