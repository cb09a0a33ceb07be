// The verifier in OIDC mode against a real OpenID provider, sent hostile and borderline tokens: each is refused (or
// accepted) with the contract's status and code before any source is read, the issuer key set is fetched sparingly,
// and no token reaches the audit trail or the logs.
import assert from 'node:assert/strict';
import { createHmac, createPublicKey, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { systemClock } from '../../src/platform/clock.ts';
import { type CapturedLog, capturedLog } from '../helpers/captured-log.ts';
import { countingReads, oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { oidcAuthBlock, startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const LEEWAY_S = 30;
/** The key source's minimum gap between fetches a token's unknown kid may cause. */
const REFETCH_COOLDOWN_MS = 30_000;

/** Time stands still unless a test moves it: token edges are exact to the second. */
const start = systemClock.now();
let offset = 0;
const clock = { now: () => start + offset };
const nowSeconds = () => Math.floor(clock.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('verifier in OIDC mode: hostile and borderline tokens (real IdP)', () => {
  let idp: TestOidcProvider;
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let log: CapturedLog;
  const counted = countingReads(oneLivingPerson);
  const presented: string[] = [];
  let keyFetches = 0;
  let issuerDown = true;

  before(async () => {
    idp = await startOidcProvider({ scopes: ['civil:evidence', 'other:scope', 'evidence:all'] });
    upstream = await startFakeUpstream(counted.handler);
    log = capturedLog('debug');
    const fetchKeys: typeof fetch = async (input, init) => {
      keyFetches++;
      if (issuerDown) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    const block = oidcAuthBlock(idp, [
      'allowed_algorithms: [RS256]',
      'allowed_token_types: [at+jwt]',
      `leeway: ${LEEWAY_S}s`,
      'scope_map:',
      '  evidence:all: [civil:evidence, social:evidence]',
    ]);
    verifier = await startTestVerifier({
      clock,
      relays: { civil: upstream.url, social: upstream.url },
      edit: (text) => text.replace(/\nauth:\n[\s\S]*?\naudit:/, `\n${block}`),
      deps: { fetch: fetchKeys, logger: log.logger },
    });
  });

  after(async () => {
    await verifier?.close();
    await upstream?.close();
    await idp?.close();
  });

  const evaluate = (token: string, claims: readonly string[] = ['person_alive']) => {
    presented.push(token);
    return verifier.evaluate(
      { target: TARGET, claims },
      { as: 'full', headers: { 'x-api-key': '', authorization: `Bearer ${token}` } },
    );
  };
  /** The token is refused 401 auth.invalid_token without a source read; the audit keeps the precise reason. */
  const refused = async (token: string, reason: string) => {
    const reads = counted.reads();
    const response = await evaluate(token);
    assertProblem(response, 401, 'auth.invalid_token');
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="ambit", error="invalid_token"');
    assert.equal(counted.reads(), reads, `${reason}: no source read`);
    assert.equal(verifier.auditRecords().at(-1)?.error_code, reason);
  };
  const accepted = async (token: string, claims: readonly string[] = ['person_alive']) => {
    const response = await evaluate(token, claims);
    assert.equal(response.statusCode, 200, response.body);
  };
  const token = (scopes: readonly string[] | string, claims?: Record<string, unknown>) =>
    idp.getToken(scopes, claims === undefined ? {} : { claims });

  // First: the verifier fetches the issuer keys on the first token it sees, so the issuer is down from the start.
  it('answers 503 auth.jwks_unavailable while the issuer keys cannot be fetched, then recovers', async () => {
    const good = await token(['civil:evidence']);
    assertProblem(await evaluate(good), 503, 'auth.jwks_unavailable');
    assertProblem(await evaluate(good), 503, 'auth.jwks_unavailable');
    assert.equal(keyFetches, 1, 'a second token within the backoff does not fetch again');
    issuerDown = false;
    offset += 1_000;
    await accepted(good);
    assert.equal(keyFetches, 2);
    assert.equal(counted.reads(), 1, 'only the accepted token read the source');
  });

  it('refuses alg none, HS256 keyed with the public key, and algorithms or types not allowed', async () => {
    const jwks = (await (await fetch(idp.jwksUrl)).json()) as { keys: (JsonWebKey & { kid: string })[] };
    const [published] = jwks.keys;
    assert.ok(published);
    const claims = b64({
      iss: idp.issuer,
      aud: idp.audience,
      sub: 'forger',
      scope: 'civil:evidence',
      iat: nowSeconds(),
      exp: nowSeconds() + 300,
    });
    const header = b64({ alg: 'none', typ: 'at+jwt', kid: published.kid });
    await refused(`${header}.${claims}.`, 'auth.algorithm_not_allowed');
    const pem = createPublicKey({ key: published, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    for (const secret of [String(pem), JSON.stringify(published)]) {
      const signed = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: published.kid })}.${claims}`;
      const mac = createHmac('sha256', secret).update(signed).digest('base64url');
      await refused(`${signed}.${mac}`, 'auth.algorithm_not_allowed');
    }
    const { privateKey } = await generateKeyPair('ES256');
    const es256 = await new SignJWT({ sub: 'forger', scope: 'civil:evidence' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: published.kid })
      .setIssuer(idp.issuer)
      .setAudience(idp.audience)
      .setExpirationTime(nowSeconds() + 300)
      .sign(privateKey);
    await refused(es256, 'auth.algorithm_not_allowed');
    for (const typ of ['JWT', 'id_token+jwt', undefined]) {
      await refused(
        await idp.getToken(['civil:evidence'], { header: { typ } }),
        'auth.token_type_not_allowed',
      );
    }
    await accepted(await idp.getToken(['civil:evidence'], { header: { typ: 'application/AT+JWT' } }));
    assert.equal(keyFetches, 2, 'no forged token made the verifier fetch keys');
  });

  it('fetches the key set at most once per cooldown for a flood of unknown kids, and picks up a rotated key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const foreign = (kid: string) =>
      new SignJWT({ sub: 'intruder', scope: 'civil:evidence' })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
        .setIssuer(idp.issuer)
        .setAudience(idp.audience)
        .setExpirationTime(nowSeconds() + 300)
        .sign(privateKey);
    offset += REFETCH_COOLDOWN_MS;
    const fetched = keyFetches;
    const flood = await Promise.all(Array.from({ length: 20 }, (_, n) => foreign(`flood-${n}`)));
    const answers = await Promise.all(flood.map((forged) => evaluate(forged)));
    for (const answer of answers) assertProblem(answer, 401, 'auth.invalid_token');
    for (let n = 20; n < 40; n++) await refused(await foreign(`flood-${n}`), 'auth.kid_unknown');
    assert.equal(keyFetches - fetched, 1, 'one fetch for the whole flood');

    // A key the issuer signs with at once: refused only until the cooldown allows the next fetch.
    const rotated = await idp.rotateKeys();
    const fresh = await token(['civil:evidence']);
    await refused(fresh, 'auth.kid_unknown');
    offset += REFETCH_COOLDOWN_MS;
    await accepted(fresh);
    assert.equal(keyFetches - fetched, 2);
    assert.equal(idp.currentKid(), rotated);
  });

  it('honours the leeway exactly at exp and nbf, and refuses iat in the future or no exp', async () => {
    await refused(await token(['civil:evidence'], { exp: nowSeconds() - LEEWAY_S }), 'auth.token_expired');
    await accepted(await token(['civil:evidence'], { exp: nowSeconds() - LEEWAY_S + 1 }));
    await accepted(await token(['civil:evidence'], { nbf: nowSeconds() + LEEWAY_S }));
    await refused(
      await token(['civil:evidence'], { nbf: nowSeconds() + LEEWAY_S + 1 }),
      'auth.token_not_yet_valid',
    );
    await refused(
      await token(['civil:evidence'], { iat: nowSeconds() + LEEWAY_S + 1 }),
      'auth.token_not_yet_valid',
    );
    await refused(await token(['civil:evidence'], { exp: undefined }), 'auth.invalid_credential');
  });

  it('compares iss and aud exactly, aud being a string or a list', async () => {
    await refused(await token(['civil:evidence'], { iss: `${idp.issuer}/` }), 'auth.issuer_mismatch');
    await refused(await token(['civil:evidence'], { aud: `${idp.audience}/` }), 'auth.audience_mismatch');
    await refused(
      await token(['civil:evidence'], { aud: ['https://elsewhere.test'] }),
      'auth.audience_mismatch',
    );
    await accepted(await token(['civil:evidence'], { aud: ['https://elsewhere.test', idp.audience] }));
  });

  it('reads scopes as a string or a list, maps one to several, and checks every claim before any read', async () => {
    await accepted(await token([], { scope: ['other:scope', 'civil:evidence'] }));
    await accepted(await token(['other:scope', 'civil:evidence']));
    // `eligible` needs civil and social evidence through its sub-claims: one mapped scope grants both.
    const all = await token(['evidence:all']);
    presented.push(all);
    const listed = await verifier.get('/v1/claims', { headers: { authorization: `Bearer ${all}` } });
    assert.equal(listed.statusCode, 200, listed.body);
    const ids = JSON.parse(listed.body).data.map((claim: { id: string }) => claim.id);
    assert.ok(ids.includes('eligible') && ids.includes('household_enrolled'), String(ids));
    const civil = await token(['civil:evidence']);
    const reads = counted.reads();
    for (const claims of [['person_alive', 'household_enrolled'], ['eligible']]) {
      assertProblem(await evaluate(civil, claims), 403, 'auth.scope_denied');
    }
    presented.push(civil);
    assertProblem(
      await verifier.post(
        '/v1/batch-evaluations',
        { items: [{ target: TARGET }, { target: TARGET }], claims: ['person_alive', 'eligible'] },
        { headers: { 'x-api-key': '', authorization: `Bearer ${civil}` } },
      ),
      403,
      'auth.scope_denied',
    );
    assert.equal(counted.reads(), reads, 'no source read for a claim outside the scopes');
  });

  it('refuses a token naming no principal, or naming it with a number or an empty subject', async () => {
    await refused(
      await token(['civil:evidence'], { sub: undefined, client_id: undefined }),
      'auth.invalid_credential',
    );
    await refused(await token(['civil:evidence'], { sub: 7 }), 'auth.malformed_credential');
    await refused(await token(['civil:evidence'], { sub: '' }), 'auth.malformed_credential');
    await accepted(await token(['civil:evidence'], { sub: undefined }));
  });

  // Last: reads what every test above wrote.
  it('writes no token, nor its signature, to the audit trail or the logs', () => {
    const audit = readFileSync(verifier.auditPath, 'utf8');
    const logs = log.lines.join('');
    assert.ok(audit.length > 0 && presented.length > 40);
    // The issuer outage above was logged: the logs checked below are the verifier's, and not empty.
    assert.match(logs, /issuer keys could not be fetched/);
    for (const presentedToken of presented) {
      const signature = presentedToken.split('.')[2] ?? '';
      for (const [where, text] of [
        ['audit', audit],
        ['log', logs],
      ] as const) {
        assert.ok(!text.includes(presentedToken), `a token in the ${where}`);
        assert.ok(signature.length < 16 || !text.includes(signature), `a token signature in the ${where}`);
      }
    }
  });
});
