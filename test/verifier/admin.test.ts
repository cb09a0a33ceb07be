// The admin listener (`server.admin_bind`): reload is a no-op behind `verifier:admin`, on its own address only,
// absent from the public listener and its OpenAPI document, audited on the same hash chain.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadVerifierConfigText } from '../../src/verifier/config/load-verifier-config.ts';
import { startVerifier } from '../../src/verifier/start-verifier.ts';
import { assertProblem, assertSecurityHeaders } from '../helpers/http-checks.ts';
import {
  CALLER_KEYS,
  startTestVerifier,
  type TestVerifier,
  VERIFIER_AUDIT_SECRET,
  verifierConfigText,
  verifierEnv,
} from '../helpers/verifier-harness.ts';

const OPERATOR_KEY = 'verifier-test-key-operator-000000001';
const ADMIN_ENV = { V_OPERATOR_HASH: fingerprintOf(OPERATOR_KEY) };
const NOOP = {
  reloaded: false,
  status: 'noop',
  detail: 'The verifier does not reload: key and configuration changes need a restart.',
};

/** The test config with an admin listener and an operator key holding only `verifier:admin`. */
function withAdmin(text: string, adminBind = '127.0.0.1:0'): string {
  return text
    .replace('server:\n  bind: 127.0.0.1:0\n', `server:\n  bind: 127.0.0.1:0\n  admin_bind: ${adminBind}\n`)
    .replace(
      '  bearer_tokens:\n',
      '    - { id: operator, fingerprint: { provider: env, name: V_OPERATOR_HASH }, scopes: [verifier:admin] }\n  bearer_tokens:\n',
    );
}

describe('verifier admin listener', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({ edit: (text) => withAdmin(text), env: ADMIN_ENV });
    await verifier.verifier.admin?.ready();
  });
  after(() => verifier?.close());

  const reload = (headers: Record<string, string> = {}, payload?: string, query = '') => {
    const admin = verifier.verifier.admin;
    assert.ok(admin, 'admin app exists when server.admin_bind is set');
    return admin.inject({
      method: 'POST',
      url: `/admin/v1/reload${query}`,
      headers,
      ...(payload === undefined ? {} : { payload }),
    });
  };

  it('answers that reload is a no-op to a caller holding verifier:admin', async () => {
    const response = await reload({ 'x-api-key': OPERATOR_KEY });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(JSON.parse(response.body), NOOP);
    assertSecurityHeaders(response);
    const bearer = await reload({ authorization: `Bearer ${OPERATOR_KEY}` });
    assert.deepEqual(JSON.parse(bearer.body), NOOP);
  });

  it('refuses callers without a credential, with a wrong one, or without the admin scope', async () => {
    assertProblem(await reload(), 401, 'auth.missing_credential');
    assertProblem(
      await reload({ 'x-api-key': 'not-a-configured-key-000000000000001' }),
      401,
      'auth.missing_credential',
    );
    const deniedResponse = await reload({ 'x-api-key': CALLER_KEYS.full });
    const denied = assertProblem(deniedResponse, 403, 'auth.scope_denied');
    assert.equal(denied.detail, 'required scope: verifier:admin');
    assert.equal(
      deniedResponse.headers['www-authenticate'],
      'Bearer realm="ambit", error="insufficient_scope"',
    );
    assertProblem(
      await reload({ 'x-api-key': OPERATOR_KEY, authorization: `Bearer ${OPERATOR_KEY}` }),
      400,
      'auth.multiple_credentials',
    );
  });

  it('marks every answer no-store, refusals included', async () => {
    const admin = verifier.verifier.admin;
    assert.ok(admin);
    const big = 'x'.repeat(5000);
    const answers = [
      await reload(),
      await reload({ 'x-api-key': CALLER_KEYS.full }),
      await reload({ 'x-api-key': OPERATOR_KEY, authorization: `Bearer ${OPERATOR_KEY}` }),
      await reload({ 'x-api-key': OPERATOR_KEY, 'content-type': 'text/plain' }, big),
      await admin.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': OPERATOR_KEY } }),
      await reload({ 'x-api-key': OPERATOR_KEY }, undefined, `?${'a'.repeat(9000)}`),
      // A path that does not decode: answered by the router, outside every hook.
      await admin.inject({ method: 'GET', url: '/admin/%zz', headers: { 'x-api-key': OPERATOR_KEY } }),
    ];
    assert.deepEqual(
      answers.map((response) => [response.statusCode, response.headers['cache-control']]),
      [401, 403, 400, 413, 404, 414, 404].map((status) => [status, 'no-store']),
    );
    // The overlong URI is answered with the code the verifier contract names, as on the public listener.
    assert.equal(JSON.parse((answers[5] as { body: string }).body).code, 'request.uri_too_long');
  });

  it('checks the credential before reading the body', async () => {
    const garbage = { 'content-type': 'application/json' };
    assertProblem(await reload(garbage, '{not json'), 401, 'auth.missing_credential');
    assertProblem(
      await reload({ ...garbage, 'x-api-key': CALLER_KEYS.full }, '{not json'),
      403,
      'auth.scope_denied',
    );
  });

  it('ignores a body of any type, or an empty one, up to 4 KiB', async () => {
    const operator = { 'x-api-key': OPERATOR_KEY };
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'x'],
      ['application/json', ''],
      ['application/json', '{not json'],
      ['text/plain', 'reload'],
    ] as const) {
      const response = await reload({ ...operator, 'content-type': type }, payload);
      assert.equal(response.statusCode, 200, `${type}: ${response.body}`);
      assert.deepEqual(JSON.parse(response.body), NOOP);
    }
    assert.equal((await reload(operator, 'x')).statusCode, 200, 'no content type');
    const large = await reload({ ...operator, 'content-type': 'text/plain' }, 'x'.repeat(5000));
    assertProblem(large, 413, 'internal.payload_too_large');
  });

  it('refuses a body over 4 KiB whatever the method, after the credential check', async () => {
    const admin = verifier.verifier.admin;
    assert.ok(admin);
    const big = 'x'.repeat(64 * 1024);
    const get = await admin.inject({
      method: 'GET',
      url: '/admin/v1/reload',
      headers: { 'x-api-key': OPERATOR_KEY },
      payload: big,
    });
    assertProblem(get, 413, 'internal.payload_too_large');
    assert.equal(get.headers.connection, 'close');
    assertProblem(await reload({}, big), 401, 'auth.missing_credential');
    assertProblem(await reload({ 'x-api-key': CALLER_KEYS.full }, big), 403, 'auth.scope_denied');
    assertProblem(await reload({ 'x-api-key': OPERATOR_KEY }, big), 413, 'internal.payload_too_large');
  });

  it('is not mounted on the public listener, nor listed in its OpenAPI document', async () => {
    for (const key of [OPERATOR_KEY, CALLER_KEYS.full]) {
      const response = await verifier.inject({
        method: 'POST',
        url: '/admin/v1/reload',
        headers: { 'x-api-key': key },
      });
      assertProblem(response, 404, 'http.not_found');
    }
    const openapi = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    assert.ok(Object.keys(openapi.paths).length > 0);
    assert.ok(!Object.keys(openapi.paths).some((path) => path.startsWith('/admin')));
    assert.ok(!JSON.stringify(openapi).includes('verifier:admin'));
  });

  it('serves nothing but admin routes', async () => {
    const admin = verifier.verifier.admin;
    assert.ok(admin);
    for (const url of ['/v1/claims', '/.well-known/evidence-service', '/openapi.json', '/docs']) {
      assertProblem(
        await admin.inject({ method: 'GET', url, headers: { 'x-api-key': OPERATOR_KEY } }),
        404,
        'http.not_found',
      );
    }
    const get = await admin.inject({
      method: 'GET',
      url: '/admin/v1/reload',
      headers: { 'x-api-key': OPERATOR_KEY },
    });
    assertProblem(get, 405, 'http.method_not_allowed');
    assert.equal(get.headers.allow, 'POST, OPTIONS');
  });

  it('audits admin calls on the verifier chain, without the key', async () => {
    const before = verifier.auditRecords().length;
    await reload({ 'x-api-key': OPERATOR_KEY });
    await reload({ 'x-api-key': CALLER_KEYS.full });
    const records = verifier.auditRecords().slice(before);
    assert.deepEqual(
      records.map((record) => [record.endpoint_kind, record.path, record.status, record.decision]),
      [
        ['admin', '/admin/v1/reload', 200, 'allowed'],
        ['admin', '/admin/v1/reload', 403, 'denied'],
      ],
    );
    assert.deepEqual(records[0]?.scopes_used, ['verifier:admin']);
    assert.equal(records[1]?.problem_code, 'auth.scope_denied');
    const text = readFileSync(verifier.auditPath, 'utf8');
    assert.ok(!text.includes(OPERATOR_KEY));
    const chain = verifyAuditChain(text.trim().split('\n'), Buffer.from(VERIFIER_AUDIT_SECRET), null);
    assert.ok(chain.ok, JSON.stringify(chain));
  });
});

describe('verifier admin listener configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-verifier-admin-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const text = (edit: (text: string) => string) => edit(verifierConfigText({}, join(dir, 'audit.jsonl')));
  const env = verifierEnv(ADMIN_ENV);

  it('has no admin app without server.admin_bind', async () => {
    const plain = await startTestVerifier();
    try {
      assert.equal(plain.verifier.admin, undefined);
    } finally {
      await plain.close();
    }
  });

  it('refuses an admin_bind that is the public listener, and a malformed one', () => {
    for (const [bind, adminBind] of [
      ['127.0.0.1:8081', '127.0.0.1:8081'],
      ['0.0.0.0:8081', '127.0.0.1:8081'],
      ['127.0.0.1:8081', 'localhost:8081'],
    ]) {
      const clash = (t: string) =>
        withAdmin(t, adminBind as string).replace('  bind: 127.0.0.1:0\n', `  bind: ${bind}\n`);
      assert.throws(
        () => loadVerifierConfigText(text(clash), env, dir),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.issues.some(
            (issue) => issue.path === 'server.admin_bind' && /must not be the listener/.test(issue.message),
          ),
        `${bind} ${adminBind}`,
      );
    }
    assert.throws(
      () =>
        loadVerifierConfigText(
          text((t) => withAdmin(t, 'localhost')),
          env,
          dir,
        ),
      (error: unknown) =>
        error instanceof ConfigError && error.issues.some((issue) => issue.path === 'server.admin_bind'),
    );
  });

  it('listens on two addresses: reload answers on the admin one only', async () => {
    const loaded = loadVerifierConfigText(
      text((t) => withAdmin(t)),
      env,
      dir,
    );
    const running = await startVerifier(loaded, {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    try {
      assert.ok(running.adminUrl);
      assert.notEqual(running.adminUrl, running.url);
      const post = (base: string) =>
        fetch(`${base}/admin/v1/reload`, { method: 'POST', headers: { 'x-api-key': OPERATOR_KEY } });
      const admin = await post(running.adminUrl);
      assert.equal(admin.status, 200);
      assert.deepEqual(await admin.json(), NOOP);
      assert.equal((await post(running.url)).status, 404);
      assert.equal((await fetch(`${running.url}/healthz`)).status, 200);
    } finally {
      await running.close();
    }
  });

  it('stops taking admin requests as soon as it stops, while public requests still drain', async () => {
    const loaded = loadVerifierConfigText(
      text((t) => withAdmin(t)),
      env,
      dir,
    );
    const running = await startVerifier(loaded, {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    assert.ok(running.adminUrl);
    // A public request in flight: its body has not all arrived, so the drain waits for it.
    const { port } = new URL(running.url);
    const arrived = new Promise((resolve) => running.verifier.app.server.once('request', resolve));
    const held = connect(Number(port), '127.0.0.1');
    held.write(
      'POST /v1/evaluations HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{',
    );
    await arrived;
    let drained = false;
    const closed = running.close().then(() => {
      drained = true;
    });
    const admin = running.verifier.admin;
    assert.ok(admin);
    // Closing a listener is asynchronous: wait (a few event-loop turns; at most 5 s) until the admin one stops.
    const giveUp = Date.now() + 5_000;
    while (admin.server.listening && Date.now() < giveUp)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(admin.server.listening, false, 'the admin listener stopped while the public one drains');
    await assert.rejects(
      fetch(`${running.adminUrl}/admin/v1/reload`, {
        method: 'POST',
        headers: { 'x-api-key': OPERATOR_KEY },
      }),
      // Refused at connect: not some other failure of the request.
      (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED',
      'the admin listener no longer accepts connections',
    );
    assert.equal(drained, false, 'the public request is still draining');
    held.destroy();
    await closed;
  });
});
