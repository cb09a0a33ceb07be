// The demo relay in OIDC mode against a real OpenID provider: scopes, scope_map, audience, credential kinds, audit.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Response } from 'light-my-request';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import { assertProblem, assertRequestId } from '../helpers/http-checks.ts';
import { assertOidcAuthResponses } from '../helpers/openapi-auth-checks.ts';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';
import { oidcAuthBlock, startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
const ROWS_CLIENT = 'caseworker-app';
const MAPPED_CLIENT = 'case-portal';
/** An IdP role name the relay renames to its own scopes through `scope_map`. */
const MAPPED_ROLE = 'registry.households.read';

/** The demo config with its API-key `auth` block replaced by an OIDC block for `idp`. */
function oidcAuth(idp: TestOidcProvider, keySource: 'discovery_url' | 'jwks_url') {
  const block = oidcAuthBlock(
    idp,
    ['scope_map:', `  ${MAPPED_ROLE}: [social_protection:rows, social_protection:metadata]`],
    keySource,
  );
  return (text: string): string => {
    const edited = text.replace(/\nauth:\n[\s\S]*?\naudit:/, `\n${block}`);
    assert.ok(edited.includes('mode: oidc') && !edited.includes('api_keys'), 'auth block replaced');
    return edited;
  };
}

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

function bearer(relay: TestRelay, token: string, url = `${HOUSEHOLDS}?limit=3`): Promise<Response> {
  return relay.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

function auditedFor(relay: TestRelay, response: Response): Record<string, unknown> {
  const id = assertRequestId(response);
  const record = relay.auditRecords().find((entry) => entry.request_id === id);
  assert.ok(record, `no audit record for ${id}`);
  return record;
}

describe('relay in OIDC mode (real IdP)', () => {
  let idp: TestOidcProvider;
  let relay: TestRelay;
  const clock = movableClock();
  const issued: string[] = [];
  const token = async (...args: Parameters<TestOidcProvider['getToken']>) => {
    const minted = await idp.getToken(...args);
    issued.push(minted);
    return minted;
  };

  before(async () => {
    idp = await startOidcProvider({
      scopes: [
        'social_protection:rows',
        'social_protection:metadata',
        'civil_registry:metadata',
        MAPPED_ROLE,
      ],
      clients: [ROWS_CLIENT, MAPPED_CLIENT],
    });
    relay = await startDemoRelay({ clock, edit: oidcAuth(idp, 'discovery_url') });
  });
  after(async () => {
    await relay?.close();
    await idp?.close();
  });

  it('serves households to a token holding social_protection:rows, audited as the token subject', async () => {
    const response = await bearer(relay, await token(['social_protection:rows']));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().data.length, 3);
    const record = auditedFor(relay, response);
    assert.equal(record.principal_id, ROWS_CLIENT);
    assert.equal(record.auth_mode, 'oidc');
    assert.deepEqual(record.scopes_used, ['social_protection:rows']);
  });

  it('grants the relay scopes an IdP role is mapped to', async () => {
    const mapped = await token([MAPPED_ROLE], { clientId: MAPPED_CLIENT });
    const rows = await bearer(relay, mapped);
    assert.equal(rows.statusCode, 200, rows.body);
    assert.ok(rows.json().data.length > 0);
    const schema = await bearer(relay, mapped, '/v1/datasets/social_protection/entities/households/schema');
    assert.equal(schema.statusCode, 200);
    const record = auditedFor(relay, rows);
    assert.equal(record.principal_id, MAPPED_CLIENT);
    assert.equal(record.auth_mode, 'oidc');
  });

  it('refuses a token without the row scope with 403 auth.scope_denied', async () => {
    for (const scopes of [['social_protection:metadata'], ['civil_registry:metadata'], []]) {
      const response = await bearer(relay, await token(scopes));
      const body = assertProblem(response, 403, 'auth.scope_denied');
      assert.equal(body.detail, 'required scope: social_protection:rows');
      assert.doesNotMatch(response.body, /hh-\d/);
      const record = auditedFor(relay, response);
      assert.equal(record.principal_id, ROWS_CLIENT);
      assert.equal(record.auth_mode, 'oidc');
      assert.equal(record.error_code, 'auth.scope_denied');
    }
  });

  it('refuses a token minted for another audience with 401 auth.audience_mismatch', async () => {
    const other = await token(['social_protection:rows'], { audience: 'https://another-relay.test/api' });
    const response = await bearer(relay, other);
    assertProblem(response, 401, 'auth.audience_mismatch');
    assert.match(String(response.headers['www-authenticate']), /^Bearer /);
    assert.equal(auditedFor(relay, response).principal_id, null);
  });

  it('refuses garbage and tampered tokens with 401', async () => {
    assertProblem(await bearer(relay, 'garbage'), 401, 'auth.malformed_credential');
    assertProblem(await bearer(relay, 'a.b.c'), 401, 'auth.malformed_credential');
    assertProblem(await bearer(relay, TEST_KEYS.caseworker), 401, 'auth.malformed_credential');
    const valid = await token(['social_protection:rows']);
    const [header, payload, signature = ''] = valid.split('.');
    const middle = Math.floor(signature.length / 2);
    const flipped = signature[middle] === 'A' ? 'B' : 'A';
    const tampered = `${header}.${payload}.${signature.slice(0, middle)}${flipped}${signature.slice(middle + 1)}`;
    assertProblem(await bearer(relay, tampered), 401, 'auth.token_signature_invalid');
    const forgedClaims = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()),
        scope: 'relay:admin',
      }),
    ).toString('base64url');
    assertProblem(
      await bearer(relay, `${header}.${forgedClaims}.${signature}`),
      401,
      'auth.token_signature_invalid',
    );
  });

  it('refuses a token whose header values nest thousands deep with 401, not a server error', async () => {
    const [, payload] = (await token(['social_protection:rows'])).split('.');
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const [header, code] of [
      [{ alg: deep }, 'auth.algorithm_not_allowed'],
      [{ alg: '"RS256"', typ: deep }, 'auth.token_type_not_allowed'],
      [{ alg: '"RS256"', kid: deep }, 'auth.kid_unknown'],
    ] as const) {
      const members = Object.entries(header).map(([name, value]) => `"${name}":${value}`);
      const encoded = Buffer.from(`{${members.join(',')}}`).toString('base64url');
      const response = await bearer(relay, `${encoded}.${payload}.c2ln`);
      assertProblem(response, 401, code);
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="ambit", error="invalid_token"');
    }
  });

  it('names a refused token invalid_token in WWW-Authenticate (RFC 6750), and a request without one only the realm', async () => {
    const otherAudience = await token(['social_protection:rows'], {
      audience: 'https://another-relay.test/api',
    });
    for (const refused of [await bearer(relay, 'garbage'), await bearer(relay, otherAudience)]) {
      assert.equal(refused.statusCode, 401, refused.body);
      assert.equal(refused.headers['www-authenticate'], 'Bearer realm="ambit", error="invalid_token"');
    }
    const none = await relay.inject({ method: 'GET', url: HOUSEHOLDS });
    const problem = assertProblem(none, 401, 'auth.missing_credential');
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="ambit"');
    // Only what this relay takes: an access token, never an API key.
    assert.match(String(problem.detail), /Authorization: Bearer <access token>/);
    assert.doesNotMatch(String(problem.detail), /x-api-key/);
  });

  it('refuses an x-api-key header with 401 auth.malformed_credential, whatever it holds', async () => {
    const valid = await token(['social_protection:rows']);
    for (const value of [TEST_KEYS.caseworker, valid]) {
      const response = await relay.inject({
        method: 'GET',
        url: HOUSEHOLDS,
        headers: { 'x-api-key': value },
      });
      assertProblem(response, 401, 'auth.malformed_credential');
    }
    const none = await relay.inject({ method: 'GET', url: HOUSEHOLDS });
    assertProblem(none, 401, 'auth.missing_credential');
  });

  it('its OpenAPI document declares 403 auth.client_not_allowed and 503 auth.jwks_unavailable where it authenticates', async () => {
    const response = await bearer(relay, await token(['social_protection:metadata']), '/openapi.json');
    assert.equal(response.statusCode, 200, response.body);
    const document = response.json();
    assert.ok(assertOidcAuthResponses(document) > 1);
    assert.equal(document.paths['/v1/datasets'].get.responses['403'].description, 'Token client not allowed');
    // Tokens go in Authorization only (x-api-key is refused): no other scheme is offered to the docs page.
    assert.deepEqual(document.security, [{ bearer: [] }]);
    assert.deepEqual(Object.keys(document.components.securitySchemes), ['bearer']);
    assert.doesNotMatch(document.components.securitySchemes.bearer.description, /API key/i);
  });

  it('keeps every token out of the audit file', () => {
    const text = readFileSync(relay.auditPath, 'utf8');
    assert.ok(issued.length >= 6);
    for (const minted of issued) {
      for (const part of minted.split('.')) assert.ok(!text.includes(part), 'audit file holds token text');
    }
  });

  // Last: moves the shared clock past the token lifetime.
  it('refuses a token once the injected clock passes its exp (plus leeway)', async () => {
    const minted = await token(['social_protection:rows']);
    assert.equal((await bearer(relay, minted)).statusCode, 200);
    const { exp } = JSON.parse(Buffer.from(minted.split('.')[1] ?? '', 'base64url').toString()) as {
      exp: number;
    };
    // One second short of exp + 30 s leeway the (cached) token still passes; one second past it, it does not.
    clock.advance((exp + 29) * 1000 - clock.now());
    assert.equal((await bearer(relay, minted)).statusCode, 200);
    clock.advance(2_000);
    assertProblem(await bearer(relay, minted), 401, 'auth.token_expired');
  });
});

describe('relay in OIDC mode with a jwks_url', () => {
  let idp: TestOidcProvider;
  let relay: TestRelay;
  const clock = movableClock();

  before(async () => {
    idp = await startOidcProvider({ scopes: ['social_protection:rows'], algorithm: 'ES256' });
    relay = await startDemoRelay({ clock, edit: oidcAuth(idp, 'jwks_url') });
  });
  after(async () => {
    await relay?.close();
    await idp?.close();
  });

  it('verifies tokens against the configured key set, and picks up a rotated key after the cooldown', async () => {
    const first = await idp.getToken(['social_protection:rows']);
    assert.equal((await bearer(relay, first)).statusCode, 200);
    await idp.rotateKeys();
    const rotatedToken = await idp.getToken(['social_protection:rows']);
    // Unknown-kid refetches are rate limited (30 s from the last fetch), so the new key is not known yet.
    assertProblem(await bearer(relay, rotatedToken), 401, 'auth.kid_unknown');
    clock.advance(30_000);
    const rotated = await bearer(relay, rotatedToken);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assertProblem(await bearer(relay, await idp.getToken([])), 403, 'auth.scope_denied');
    assert.equal((await bearer(relay, first)).statusCode, 200, 'the old key is still published');
  });

  it('refuses a token it accepted before once its key is withdrawn and the key set refetched', async () => {
    const accepted = await idp.getToken(['social_protection:rows']);
    assert.equal((await bearer(relay, accepted)).statusCode, 200);
    const withdrawn = idp.currentKid();
    await idp.rotateKeys();
    idp.retireKey(withdrawn);
    // A token signed by the new key makes the relay refetch the key set (after the 30 s cooldown).
    clock.advance(30_000);
    assert.equal((await bearer(relay, await idp.getToken(['social_protection:rows']))).statusCode, 200);
    assertProblem(await bearer(relay, accepted), 401, 'auth.kid_unknown');
  });
});

describe('relay OIDC config check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-relay-oidc-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const configWith = (scopeClaim: string) =>
    [
      'server: { bind: 127.0.0.1:4242 }',
      'catalog: { title: Relay, base_url: https://relay.example.org, publisher: Example Registry Office }',
      'auth:',
      '  mode: oidc',
      '  oidc:',
      '    issuer: https://idp.example.org',
      '    audiences: [ambit-relay]',
      '    jwks_url: https://idp.example.org/jwks',
      `    scope_claim: ${scopeClaim}`,
      'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
      'datasets: []',
      '',
    ].join('\n');

  const check = (scopeClaim: string) => {
    const path = join(dir, `relay-${scopeClaim}.yaml`);
    writeFileSync(path, configWith(scopeClaim));
    return new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['bin/ambit.js', 'config', 'check', '--config', path],
        { cwd: ROOT, env: { ...process.env, AUDIT_SECRET: 'relay-oidc-audit-secret-0123456789' } },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      );
    });
  };

  it('refuses scope_claim aud, as the verifier does', async () => {
    const refused = await check('aud');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /auth\.oidc\.scope_claim: cannot be `aud`/);
    const accepted = await check('roles');
    assert.equal(accepted.code, 0, accepted.stderr);
  });
});
