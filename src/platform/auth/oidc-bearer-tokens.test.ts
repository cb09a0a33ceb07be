// OIDC bearer checks on hand-made tokens: the cases a real provider will not produce on request.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { base64url, SignJWT, UnsecuredJWT } from 'jose';
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
  T0_SECONDS,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcAuthenticator, type OidcOptions } from './oidc-bearer.ts';

describe('OIDC bearer checks on hand-made tokens', () => {
  let rs: TestSigner;
  let es: TestSigner;
  let ed: TestSigner;
  let impostor: TestSigner;

  before(async () => {
    rs = await makeSigner('RS256', 'k-rs');
    es = await makeSigner('ES256', 'k-es');
    ed = await makeSigner('EdDSA', 'k-ed');
    // Same kid as the published RSA key, different private key.
    impostor = await makeSigner('RS256', 'k-rs');
  });

  const setup = (overrides: Partial<OidcOptions> = {}) => {
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(rs, es, ed)) });
    const clock = fixedClock(T0);
    const auth = createOidcAuthenticator(oidcTestOptions(overrides), { clock, fetch: net.fetch });
    return { auth, net, clock };
  };

  it('accepts RS256, ES256 and EdDSA tokens signed by published keys', async () => {
    const { auth, net } = setup();
    for (const signer of [rs, es, ed]) {
      const principal = await auth.authenticate(await signToken(signer));
      assert.equal(principal.id, 'client-1');
      assert.deepEqual([...principal.scopes], ['relay:read']);
    }
    assert.equal(net.calls.length, 1);
  });

  it('rejects algorithms outside allowed_algorithms before fetching keys', async () => {
    const { auth, net } = setup({ allowed_algorithms: ['RS256'] });
    const hs = await new SignJWT(claimsAt())
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .sign(new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!'));
    await expectProblem(auth.authenticate(hs), 'auth.algorithm_not_allowed');
    await expectProblem(auth.authenticate(await signToken(es)), 'auth.algorithm_not_allowed');
    const none = new UnsecuredJWT(claimsAt()).encode();
    await expectProblem(auth.authenticate(none), 'auth.algorithm_not_allowed');
    assert.deepEqual(net.calls, []);
  });

  it('rejects a bad signature, whether from another key or a tampered payload', async () => {
    const { auth } = setup();
    const forged = await signToken(impostor);
    const problem = await expectProblem(auth.authenticate(forged), 'auth.token_signature_invalid');
    assert.equal((problem.cause as { code?: string }).code, 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');

    const [header, , signature] = (await signToken(rs)).split('.');
    const payload = base64url.encode(JSON.stringify(claimsAt({ sub: 'admin' })));
    await expectProblem(
      auth.authenticate(`${header}.${payload}.${signature}`),
      'auth.token_signature_invalid',
    );
  });

  it('refuses a validly signed token naming critical header parameters as malformed, not as a bad signature', async () => {
    const { auth } = setup();
    // Signed by hand: the library refuses to sign an extension it does not know.
    const header = base64url.encode(
      JSON.stringify({ alg: 'RS256', kid: 'k-rs', typ: 'at+jwt', crit: ['foo'], foo: 1 }),
    );
    const payload = base64url.encode(JSON.stringify(claimsAt()));
    const signature = await webcrypto.subtle.sign(
      'RSASSA-PKCS1-v1_5',
      rs.privateKey as webcrypto.CryptoKey,
      new TextEncoder().encode(`${header}.${payload}`),
    );
    const token = `${header}.${payload}.${base64url.encode(new Uint8Array(signature))}`;
    const problem = await expectProblem(auth.authenticate(token), 'auth.malformed_credential');
    assert.match(problem.detail ?? '', /crit/);
  });

  it('checks typ against allowed_token_types, case-insensitively, with a missing typ meaning JWT', async () => {
    const atOnly = setup({ allowed_token_types: ['at+jwt'] }).auth;
    await expectProblem(
      atOnly.authenticate(await signToken(rs, claimsAt(), { typ: 'JWT' })),
      'auth.token_type_not_allowed',
    );
    await expectProblem(
      atOnly.authenticate(await signToken(rs, claimsAt(), { typ: undefined })),
      'auth.token_type_not_allowed',
    );
    await expectProblem(
      atOnly.authenticate(await signToken(rs, claimsAt(), { typ: 'dpop+jwt' })),
      'auth.token_type_not_allowed',
    );
    assert.equal(
      (await atOnly.authenticate(await signToken(rs, claimsAt(), { typ: 'AT+JWT' }))).id,
      'client-1',
    );
    assert.equal(
      (await atOnly.authenticate(await signToken(rs, claimsAt(), { typ: 'application/at+jwt' }))).id,
      'client-1',
    );

    const jwtOnly = setup({ allowed_token_types: ['JWT'] }).auth;
    assert.equal(
      (await jwtOnly.authenticate(await signToken(rs, claimsAt(), { typ: undefined }))).id,
      'client-1',
    );
    await expectProblem(jwtOnly.authenticate(await signToken(rs)), 'auth.token_type_not_allowed');
  });

  it('rejects nbf or iat in the future beyond the leeway', async () => {
    const { auth } = setup();
    await expectProblem(
      auth.authenticate(await signToken(rs, claimsAt({ nbf: T0_SECONDS + 31 }))),
      'auth.token_not_yet_valid',
    );
    await expectProblem(
      auth.authenticate(await signToken(rs, claimsAt({ iat: T0_SECONDS + 31 }))),
      'auth.token_not_yet_valid',
    );
    assert.equal(
      (await auth.authenticate(await signToken(rs, claimsAt({ nbf: T0_SECONDS + 30 })))).id,
      'client-1',
    );
    assert.equal(
      (await auth.authenticate(await signToken(rs, claimsAt({ iat: T0_SECONDS + 30 })))).id,
      'client-1',
    );
    const strict = setup({ leeway: 0 }).auth;
    await expectProblem(
      strict.authenticate(await signToken(rs, claimsAt({ nbf: T0_SECONDS + 1 }))),
      'auth.token_not_yet_valid',
    );
  });

  it('rejects expired tokens and tokens without exp', async () => {
    const { auth } = setup();
    await expectProblem(
      auth.authenticate(await signToken(rs, claimsAt({ exp: T0_SECONDS - 30 }))),
      'auth.token_expired',
    );
    assert.equal(
      (await auth.authenticate(await signToken(rs, claimsAt({ exp: T0_SECONDS - 29 })))).id,
      'client-1',
    );
    await expectProblem(
      auth.authenticate(await signToken(rs, claimsAt({ exp: undefined }))),
      'auth.invalid_credential',
    );
    await expectProblem(
      auth.authenticate(await signToken(rs, claimsAt({ exp: 'tomorrow' }))),
      'auth.malformed_credential',
    );
  });

  it('enforces allowed_clients on azp or client_id', async () => {
    const { auth } = setup({ allowed_clients: ['good-client'] });
    const byAzp = await auth.authenticate(await signToken(rs, claimsAt({ azp: 'good-client' })));
    assert.equal(byAzp.id, 'client-1');
    const byClientId = await auth.authenticate(
      await signToken(rs, claimsAt({ azp: 'bad', client_id: 'good-client' })),
    );
    assert.equal(byClientId.id, 'client-1');
    const problem = await expectProblem(
      auth.authenticate(await signToken(rs, claimsAt({ azp: 'bad', client_id: 'worse' }))),
      'auth.client_not_allowed',
    );
    assert.equal(problem.status, 403);
    await expectProblem(auth.authenticate(await signToken(rs, claimsAt())), 'auth.client_not_allowed');
  });

  it('reads the scope claim as a string, an array or a role object, and applies scope_map', async () => {
    const scope_map = {
      admin: ['registry_relay:admin', 'registry_relay:ops_read'],
      viewer: 'people:metadata',
    };
    const { auth } = setup({ scope_claim: 'roles', scope_map });
    const scopesOf = async (roles: unknown) =>
      [
        ...(await auth.authenticate(await signToken(rs, claimsAt({ roles, scope: 'ignored' })))).scopes,
      ].sort();
    assert.deepEqual(await scopesOf('viewer  extra'), ['extra', 'people:metadata']);
    assert.deepEqual(await scopesOf(['admin', 7, 'extra', null]), [
      'extra',
      'registry_relay:admin',
      'registry_relay:ops_read',
    ]);
    assert.deepEqual(await scopesOf({ viewer: { org: '1' }, other: {} }), ['other', 'people:metadata']);
    // In a role object only a grant (an object value) names a role: false, true, null or a string do not.
    const refused = { admin: false, viewer: null, yes: true, no: 'false', zero: 0, list: ['org'] };
    assert.deepEqual(await scopesOf(refused), []);
    assert.deepEqual(await scopesOf(undefined), []);
    assert.deepEqual(await scopesOf(42), []);
    // Names that exist on Object.prototype are ordinary scopes, not map lookups.
    assert.deepEqual(await scopesOf('constructor toString'), ['constructor', 'toString']);
  });

  it('takes the principal id from sub, else from client_id or azp marked as a client', async () => {
    const { auth } = setup();
    const principalOf = async (claims: Record<string, unknown>) =>
      auth.authenticate(await signToken(rs, claimsAt({ sub: undefined, ...claims })));
    const idOf = async (claims: Record<string, unknown>) => (await principalOf(claims)).id;
    assert.equal(await idOf({ sub: 's', client_id: 'c', azp: 'a' }), 's');
    assert.equal(await idOf({ client_id: 'c', azp: 'a' }), 'client:c');
    assert.equal(await idOf({ azp: 'a' }), 'client:a');
    await expectProblem(idOf({}), 'auth.invalid_credential');
    // A subject present but empty is malformed, not absent: the token is not the client's own.
    const empty = await expectProblem(idOf({ sub: '', client_id: 'c' }), 'auth.malformed_credential');
    assert.match(`${empty.status} ${empty.detail}`, /^401 .*`sub` claim is empty/);
    await expectProblem(idOf({ sub: '', azp: 'a' }), 'auth.malformed_credential');
    // Read as absent, a subject that is not a string would make every user of the client that client.
    await expectProblem(idOf({ sub: 42, client_id: 'c' }), 'auth.malformed_credential');
    await expectProblem(idOf({ sub: ['s'], client_id: 'c' }), 'auth.malformed_credential');
    await expectProblem(idOf({ sub: null, azp: 'a' }), 'auth.malformed_credential');
    await expectProblem(idOf({ client_id: 7, azp: 'a' }), 'auth.malformed_credential');
    // A client named like a user's subject is another caller: stored evaluations, idempotency keys and cursors
    // are theirs alone.
    const user = await principalOf({ sub: 'reporting' });
    const client = await principalOf({ client_id: 'reporting' });
    assert.notEqual(user.id, client.id);
    assert.notEqual(user.credentialTag, client.credentialTag);
    // So is a user whose subject is spelled as that client's id, or as such a user's id.
    const ids = new Set<string>();
    const tags = new Set<string>();
    for (const claims of [
      { client_id: 'reporting' },
      { sub: 'client:reporting' },
      { sub: 'sub:client:reporting' },
      { sub: 'sub:sub:client:reporting' },
    ]) {
      const principal = await principalOf(claims);
      ids.add(principal.id);
      tags.add(principal.credentialTag);
    }
    assert.equal(ids.size, 4);
    assert.equal(tags.size, 4);
    assert.equal(await idOf({ sub: 'client:reporting' }), 'sub:client:reporting');
  });

  it('rejects malformed tokens as malformed credentials', async () => {
    const { auth, net } = setup();
    const valid = await signToken(rs);
    const [header, payload] = valid.split('.');
    const notJson = base64url.encode('not json');
    for (const token of [
      'not-a-jwt',
      'a.b',
      `${valid}.extra.parts`,
      `${notJson}.${payload}.c2ln`,
      `${header}.${notJson}.c2ln`,
      `${header}.${payload}.sig+nature`,
      '',
    ]) {
      await expectProblem(auth.authenticate(token), 'auth.malformed_credential');
    }
    assert.deepEqual(net.calls, []);
  });

  it('refuses header values nested thousands deep with 401, naming only their kind in the detail', async () => {
    const { auth } = setup();
    const [, payload] = (await signToken(rs)).split('.');
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const cases = [
      [`{"alg":${deep}}`, 'auth.algorithm_not_allowed'],
      [`{"alg":"RS256","typ":${deep}}`, 'auth.token_type_not_allowed'],
      [`{"alg":"RS256","typ":"at+jwt","kid":${deep}}`, 'auth.kid_unknown'],
    ] as const;
    for (const [header, code] of cases) {
      const problem = await expectProblem(
        auth.authenticate(`${base64url.encode(header)}.${payload}.c2ln`),
        code,
      );
      assert.ok(problem.detail.length < 100, problem.detail);
      assert.match(problem.detail, /a list/);
    }
  });
  it('tries each key when the token has no kid and several keys could match', async () => {
    const first = await makeSigner('RS256', undefined);
    const second = await makeSigner('RS256', undefined);
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(first, second)) });
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock: fixedClock(T0), fetch: net.fetch });
    assert.equal((await auth.authenticate(await signToken(second))).id, 'client-1');
    assert.equal((await auth.authenticate(await signToken(first, claimsAt({ sub: 'other' })))).id, 'other');
    await expectProblem(
      auth.authenticate(await signToken(await makeSigner('RS256', undefined))),
      'auth.token_signature_invalid',
    );
  });

  it('refuses a token signed by, or trying, a published RSA key under 2048 bits with 401', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const weakJwk = { ...weak.publicKey.export({ format: 'jwk' }), kid: 'k-weak', alg: 'RS256', use: 'sig' };
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse({ keys: [weakJwk, rs.publicJwk] }) });
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock: fixedClock(T0), fetch: net.fetch });
    // jose will not sign with a weak key, so the token is signed by hand.
    const signedByWeak = (header: Record<string, unknown>) => {
      const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claimsAt()))}`;
      return `${input}.${base64url.encode(sign('sha256', Buffer.from(input), weak.privateKey))}`;
    };
    await expectProblem(
      auth.authenticate(signedByWeak({ alg: 'RS256', kid: 'k-weak', typ: 'at+jwt' })),
      'auth.kid_unknown',
    );
    const problem = await expectProblem(
      auth.authenticate(signedByWeak({ alg: 'RS256', typ: 'at+jwt' })),
      'auth.token_signature_invalid',
    );
    assert.equal(problem.status, 401);
    assert.equal(
      (await auth.authenticate(await signToken(rs, claimsAt(), { kid: undefined }))).id,
      'client-1',
    );
  });

  it('refetches the keys once a signature fails, for an issuer that rotates its key under the same kid or none', async () => {
    for (const kid of ['k-same', undefined]) {
      const before = await makeSigner('RS256', kid);
      const after = await makeSigner('RS256', kid);
      let published = before;
      const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(published)) });
      const clock = fixedClock(T0);
      const auth = createOidcAuthenticator(oidcTestOptions(), { clock, fetch: net.fetch });
      assert.equal((await auth.authenticate(await signToken(before))).id, 'client-1');
      published = after;
      const rotated = await signToken(after, claimsAt({ iat: T0_SECONDS + 20 }));
      // Within the 30 s cooldown of the last fetch a failed signature does not fetch again.
      await expectProblem(auth.authenticate(rotated), 'auth.token_signature_invalid');
      assert.equal(net.calls.length, 1);
      clock.advance(30_000);
      assert.equal((await auth.authenticate(rotated)).id, 'client-1', `kid ${kid}`);
      assert.equal(net.calls.length, 2);
      // A forged token cannot make the keys be fetched more than once per cooldown.
      const forged = await signToken(await makeSigner('RS256', kid), claimsAt({ iat: T0_SECONDS + 20 }));
      await expectProblem(auth.authenticate(forged), 'auth.token_signature_invalid');
      assert.equal(net.calls.length, 2);
    }
  });

  it('accepts a key rotated in under the same kid while idle, though the request itself starts the due refresh', async () => {
    const before = await makeSigner('RS256', 'k-same');
    const after = await makeSigner('RS256', 'k-same');
    let published = before;
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(published)) });
    const clock = fixedClock(T0);
    const options = oidcTestOptions({ jwks_cache_ttl: 60_000 });
    const auth = createOidcAuthenticator(options, { clock, fetch: net.fetch });
    assert.equal((await auth.authenticate(await signToken(before))).id, 'client-1');
    // Nothing for a whole jwks_cache_ttl; meanwhile the issuer replaced its key.
    clock.advance(60_000);
    published = after;
    const rotated = await signToken(after, claimsAt({ iat: T0_SECONDS + 60 }));
    assert.equal((await auth.authenticate(rotated)).id, 'client-1');
    assert.equal(net.calls.length, 2, 'one fetch: the due refresh');
  });

  it('remembers a verified token when the issuer publishes RSA integers with leading zero octets', async (t) => {
    // Some issuers encode n and e with a leading zero octet (RFC 7518 asks for the minimum): the key imports as
    // the same key, and a repeated token is still served from memory, not verified again.
    const modulus = base64url.decode(rs.publicJwk.n as string);
    const padded = {
      ...rs.publicJwk,
      n: base64url.encode(Buffer.concat([Buffer.of(0), modulus])),
      e: 'AAEAAQ',
    };
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse({ keys: [padded] }) });
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock: fixedClock(T0), fetch: net.fetch });
    const token = await signToken(rs);
    assert.equal((await auth.authenticate(token)).id, 'client-1');
    const verify = t.mock.method(crypto.subtle, 'verify');
    assert.equal((await auth.authenticate(token)).id, 'client-1');
    assert.equal(verify.mock.callCount(), 0, 'a repeated token is not verified again');
  });

  it('binds the credential tag to issuer and principal, never to the token', async () => {
    const { auth } = setup();
    const a = await auth.authenticate(await signToken(rs, claimsAt({ jti: '1' })));
    const b = await auth.authenticate(await signToken(es, claimsAt({ jti: '2' })));
    const c = await auth.authenticate(await signToken(rs, claimsAt({ sub: 'client-2' })));
    assert.equal(a.credentialTag, b.credentialTag);
    assert.notEqual(a.credentialTag, c.credentialTag);
  });
});
