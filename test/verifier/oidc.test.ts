// The verifier in OIDC mode against a real OpenID provider: token scopes (and scope_map) decide visible and
// evaluable claims; API-key headers are refused.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { assertOidcAuthResponses } from '../helpers/openapi-auth-checks.ts';
import { oidcAuthBlock, startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.ts';
import {
  ALWAYS_TRUE_CLAIM_LINES,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Wall-clock time (the IdP stamps tokens with it) that a test can move forward without waiting. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => systemClock.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
  };
}

describe('verifier in OIDC mode (real IdP)', () => {
  let idp: TestOidcProvider;
  let verifier: TestVerifier;
  const clock = movableClock();

  before(async () => {
    idp = await startOidcProvider({ scopes: ['civil:evidence', 'registry.civil.verify', 'other:scope'] });
    const block = oidcAuthBlock(idp, [
      'jwks_cache_ttl: 1m',
      'scope_map:',
      '  registry.civil.verify: [civil:evidence]',
    ]);
    verifier = await startTestVerifier({
      clock,
      relays: { civil: 'http://127.0.0.1:9' },
      edit: (text) => text.replace(/\nauth:\n[\s\S]*?\naudit:/, `\n${block}`),
    });
  });

  after(async () => {
    await verifier?.close();
    await idp?.close();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const claimIds = async (token: string) => {
    const response = await verifier.get('/v1/claims', { headers: bearer(token) });
    assert.equal(response.statusCode, 200, response.body);
    return JSON.parse(response.body).data.map((claim: { id: string }) => claim.id) as string[];
  };

  it('shows the claims the token scopes (directly or through scope_map) allow', async () => {
    for (const scope of ['civil:evidence', 'registry.civil.verify']) {
      const ids = await claimIds(await idp.getToken([scope]));
      assert.ok(ids.includes('person_alive') && !ids.includes('eligible'), `${scope}: ${ids}`);
    }
    const envelope = JSON.parse(
      (
        await verifier.get('/.well-known/evidence-service', {
          headers: bearer(await idp.getToken(['other:scope'])),
        })
      ).body,
    );
    assert.deepEqual(envelope.auth.methods, ['bearer']);
    assert.ok(!envelope.claims.some((claim: { id: string }) => claim.id === 'person_alive'));
  });

  it('grants nothing for a scope claim that is missing, empty, or not a string, a list of strings or a role object', async () => {
    // Missing, empty or blank; a list of lists, or of one entry holding a space (a list entry is one scope, unsplit).
    for (const scope of [
      { 'civil:evidence': false },
      { 'civil:evidence': true },
      7,
      undefined,
      null,
      '',
      '   ',
      [],
      [['civil:evidence']],
      [' civil:evidence'],
      ['other:scope civil:evidence'],
    ]) {
      const ids = await claimIds(await idp.getToken(['civil:evidence'], { claims: { scope } }));
      assert.ok(!ids.includes('person_alive'), JSON.stringify(scope));
    }
    const listed = await claimIds(await idp.getToken([], { claims: { scope: ['civil:evidence'] } }));
    assert.ok(listed.includes('person_alive'));
  });

  it('enforces claim scopes from the token before reading, and refuses API-key headers', async () => {
    const audited = verifier.auditRecords().length;
    const other = await idp.getToken(['other:scope']);
    assertProblem(
      await verifier.evaluate(
        { target: TARGET, claims: ['person_alive'] },
        { as: 'full', headers: { 'x-api-key': '', ...bearer(other) } },
      ),
      403,
      'auth.scope_denied',
    );
    const civil = await idp.getToken(['civil:evidence']);
    assertProblem(
      await verifier.evaluate(
        { target: TARGET, claims: ['person_alive'] },
        { as: 'full', headers: bearer(civil) },
      ),
      400,
      'auth.multiple_credentials',
    );
    // The verifier contract's codes: no bearer token at all, or one that does not verify (the detail says why).
    assertProblem(
      await verifier.evaluate({ target: TARGET, claims: ['person_alive'] }, { as: 'full' }),
      401,
      'auth.missing_credential',
    );
    const refused = await verifier.get('/v1/claims', { headers: bearer('not-a-jwt') });
    assertProblem(refused, 401, 'auth.invalid_token');
    assert.equal(refused.headers['www-authenticate'], 'Bearer realm="ambit", error="invalid_token"');
    const records = verifier
      .auditRecords()
      .slice(audited)
      .filter((record) => record.endpoint_kind === 'evaluate');
    // Each of the three refused evaluations is audited, none after a read.
    assert.deepEqual(
      records.map((record) => [record.problem_code, record.source_read_count]),
      [
        ['auth.scope_denied', 0],
        ['auth.multiple_credentials', 0],
        ['auth.missing_credential', 0],
      ],
    );
    const denied = records.find((record) => record.problem_code === 'auth.scope_denied');
    assert.equal(denied?.auth_mode, 'oidc');
    assert.equal(denied?.decision, 'evaluate_denied');
  });

  it('its OpenAPI document declares 403 auth.client_not_allowed and 503 auth.jwks_unavailable where it authenticates, and the bearer scheme only', async () => {
    const response = await verifier.get('/openapi.json', {
      headers: bearer(await idp.getToken(['civil:evidence'])),
    });
    assert.equal(response.statusCode, 200, response.body);
    const document = JSON.parse(response.body);
    assert.equal(assertOidcAuthResponses(document), 7);
    // Tokens go in Authorization only: no x-api-key scheme is offered to the docs page or a generated client.
    assert.deepEqual(document.security, [{ bearer: [] }]);
    assert.deepEqual(Object.keys(document.components.securitySchemes), ['bearer']);
    // A route's own reasons for the same status stay listed.
    const evaluate = document.paths['/v1/evaluations'].post.responses;
    assert.match(evaluate['503'].description, /^Source or state store unavailable, or /);
    assert.match(document.paths['/v1/claims'].get.responses['403'].description, /^Scope denied, or /);
  });

  // Last: withdraws the signing key and moves the shared clock.
  it('refuses a token it accepted before once the issuer withdraws its key, by jwks_cache_ttl', async () => {
    const token = await idp.getToken(['civil:evidence']);
    assert.ok((await claimIds(token)).includes('person_alive'));
    const revoked = idp.currentKid();
    await idp.rotateKeys();
    idp.retireKey(revoked);
    clock.advance(60_000);
    // Due: this request is still served from the keys in hand while the key set is refetched in the background.
    assert.ok((await claimIds(token)).includes('person_alive'));
    let refused = await verifier.get('/v1/claims', { headers: bearer(token) });
    for (let waited = 0; refused.statusCode === 200 && waited < 2_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      refused = await verifier.get('/v1/claims', { headers: bearer(token) });
    }
    assertProblem(refused, 401, 'auth.invalid_token');
    assert.match(refused.json().detail, /key|kid/i);
    // The caller gets the contract's one code, the audit the precise one.
    assert.equal(verifier.auditRecords().at(-1)?.error_code, 'auth.kid_unknown');
    assert.ok((await claimIds(await idp.getToken(['civil:evidence']))).includes('person_alive'));
  });
});

describe('verifier OIDC config check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-verifier-oidc-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const configWith = (scopeClaim: string) =>
    [
      'server: { bind: 127.0.0.1:0 }',
      'auth:',
      '  mode: oidc',
      '  oidc:',
      '    issuer: https://idp.example.org',
      '    audiences: [ambit-verifier]',
      '    jwks_url: https://idp.example.org/jwks',
      `    scope_claim: ${scopeClaim}`,
      'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
      'evidence:',
      '  service_id: oidc.verifier',
      '  claims:',
      ...ALWAYS_TRUE_CLAIM_LINES,
      '',
    ].join('\n');

  const check = (scopeClaim: string) => {
    const path = join(dir, `verifier-${scopeClaim}.yaml`);
    writeFileSync(path, configWith(scopeClaim));
    return new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['bin/ambit.js', 'config', 'check', '--config', path],
        { cwd: ROOT, env: { ...process.env, AUDIT_SECRET: 'verifier-oidc-audit-secret-0123456789' } },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      );
    });
  };

  it('refuses scope_claim aud, as the relay does', async () => {
    const refused = await check('aud');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /auth\.oidc\.scope_claim: cannot be `aud`/);
    const accepted = await check('roles');
    assert.equal(accepted.code, 0, accepted.stderr);
  });
});
