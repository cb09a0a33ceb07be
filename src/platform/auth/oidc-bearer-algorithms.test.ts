// OIDC tokens signed with `Ed25519`, the fully-specified name of EdDSA over an Ed25519 key (RFC 9864).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
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
  TEST_ISSUER,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { oidcConfigSchema } from '../config/oidc-config-schema.ts';
import { createOidcAuthenticator, type OidcOptions } from './oidc-bearer.ts';

describe('OIDC bearer tokens signed with Ed25519', () => {
  /** Published with `alg: Ed25519`, as an issuer using the new name does. */
  let named: TestSigner;
  /** Published without `alg`: usable with either name. */
  let bare: TestSigner;
  /** Published with `alg: EdDSA`. */
  let legacy: TestSigner;
  let impostor: TestSigner;

  before(async () => {
    const edKey = async (kid: string, alg: string | undefined) => {
      const signer = await makeSigner('EdDSA', kid);
      const { alg: _, ...jwk } = signer.publicJwk;
      return { ...signer, publicJwk: alg === undefined ? jwk : { ...jwk, alg } };
    };
    named = await edKey('k-ed25519', 'Ed25519');
    bare = await edKey('k-bare', undefined);
    legacy = await edKey('k-eddsa', 'EdDSA');
    // Same kid as the published key, another private key.
    impostor = await edKey('k-ed25519', 'Ed25519');
  });

  const authFor = (overrides: Partial<OidcOptions> = {}) => {
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(named, bare, legacy)) });
    return createOidcAuthenticator(oidcTestOptions(overrides), { clock: fixedClock(T0), fetch: net.fetch });
  };
  const fullySpecified = (signer: TestSigner, claims = claimsAt()) =>
    signToken(signer, claims, { alg: 'Ed25519' });

  it('accepts Ed25519 wherever EdDSA is accepted, and where it is listed itself', async () => {
    for (const allowed of [undefined, ['EdDSA'], ['Ed25519'], ['RS256', 'EdDSA']] as const) {
      const auth = authFor(allowed === undefined ? {} : { allowed_algorithms: [...allowed] });
      for (const signer of [named, bare]) {
        const principal = await auth.authenticate(await fullySpecified(signer));
        assert.equal(principal.id, 'client-1', `${allowed} ${signer.kid}`);
        assert.deepEqual([...principal.scopes], ['relay:read']);
      }
    }
    // The EdDSA tokens of the same keys go on being accepted.
    const auth = authFor({ allowed_algorithms: ['EdDSA'] });
    assert.equal((await auth.authenticate(await signToken(legacy))).id, 'client-1');
    assert.equal((await auth.authenticate(await signToken(bare))).id, 'client-1');
  });

  it('refuses Ed25519 where no EdDSA algorithm is allowed, and EdDSA where only Ed25519 is', async () => {
    await expectProblem(
      authFor({ allowed_algorithms: ['RS256', 'ES256'] }).authenticate(await fullySpecified(named)),
      'auth.algorithm_not_allowed',
    );
    await expectProblem(
      authFor({ allowed_algorithms: ['Ed25519'] }).authenticate(await signToken(legacy)),
      'auth.algorithm_not_allowed',
    );
  });

  it('verifies the signature: another key, a tampered payload or a key published for EdDSA only fails', async () => {
    const auth = authFor();
    await expectProblem(auth.authenticate(await fullySpecified(impostor)), 'auth.token_signature_invalid');
    const [header, , signature] = (await fullySpecified(named)).split('.');
    const payload = Buffer.from(JSON.stringify(claimsAt({ sub: 'admin' }))).toString('base64url');
    await expectProblem(
      auth.authenticate(`${header}.${payload}.${signature}`),
      'auth.token_signature_invalid',
    );
    // A key whose JWK names `alg: EdDSA` is chosen for EdDSA tokens only, as RFC 7517 has the member.
    await expectProblem(auth.authenticate(await fullySpecified(legacy)), 'auth.kid_unknown');
    // The other token checks still apply.
    await expectProblem(
      auth.authenticate(await fullySpecified(named, claimsAt({ iss: `${TEST_ISSUER}/` }))),
      'auth.issuer_mismatch',
    );
  });

  it('takes Ed25519 in auth.oidc.allowed_algorithms, and in the default list', () => {
    const base = { issuer: TEST_ISSUER, audiences: ['https://relay.test/api'], jwks_url: TEST_JWKS_URL };
    assert.deepEqual(oidcConfigSchema.parse(base).allowed_algorithms, ['RS256', 'ES256', 'EdDSA', 'Ed25519']);
    assert.deepEqual(
      oidcConfigSchema.parse({ ...base, allowed_algorithms: ['Ed25519'] }).allowed_algorithms,
      ['Ed25519'],
    );
    assert.equal(oidcConfigSchema.safeParse({ ...base, allowed_algorithms: ['Ed448'] }).success, false);
  });
});
