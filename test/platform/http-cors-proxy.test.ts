// CORS (deny by default, echo for listed origins) and X-Forwarded-For only from listed proxies, on the demo relay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { assertProblem, assertRequestId, assertSecurityHeaders } from '../helpers/http-checks.ts';
import { PURPOSE, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const LISTED = 'https://app.example.org';
const UNLISTED = 'https://evil.example.net';
const CASEWORKER = { authorization: `Bearer ${TEST_KEYS.caseworker}` };

/** Adds `server.cors` and `server.trust_proxy` blocks to the demo config. */
function withServerBlocks(text: string): string {
  const blocks =
    'server:\n' +
    `  cors:\n    allowed_origins: ["${LISTED}"]\n` +
    '  trust_proxy:\n    enabled: true\n    trusted_proxies: ["127.0.0.1", "10.0.0.0/8"]\n';
  assert.ok(text.includes('\nserver:\n'));
  return text.replace('\nserver:\n', `\n${blocks}`);
}

/** The header names in Vary, lower-cased and sorted. */
function varyOf(response: Response): string[] {
  return String(response.headers.vary)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .sort();
}

function preflight(relay: TestRelay, origin?: string): Promise<Response> {
  return relay.inject({
    method: 'OPTIONS',
    url: '/v1/datasets',
    headers: {
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
      ...(origin === undefined ? {} : { origin }),
    },
  });
}

/** The remote_addr audited for a catalogue read from `peer` with the given X-Forwarded-For. */
async function auditedAddress(relay: TestRelay, peer: string, forwardedFor?: string): Promise<unknown> {
  const response = await relay.inject({
    method: 'GET',
    url: '/v1/datasets',
    remoteAddress: peer,
    headers: { ...CASEWORKER, ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
  });
  assert.equal(response.statusCode, 200);
  const id = assertRequestId(response);
  const record = relay.auditRecords().find((entry) => entry.request_id === id);
  assert.ok(record, 'request audited');
  return record.remote_addr;
}

describe('default server settings', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('sends no access-control-allow-origin to any origin', async () => {
    for (const origin of [LISTED, UNLISTED, 'null']) {
      const response = await relay.get('/v1/datasets', { as: 'caseworker', headers: { origin } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['access-control-allow-origin'], undefined);
    }
  });

  it('refuses every preflight with 403 http.cors_denied', async () => {
    for (const origin of [LISTED, UNLISTED, undefined]) {
      const response = await preflight(relay, origin);
      assertProblem(response, 403, 'http.cors_denied');
      assertSecurityHeaders(response);
      assert.equal(response.headers['access-control-allow-origin'], undefined);
      assert.equal(response.headers['access-control-allow-methods'], undefined);
    }
  });

  it('ignores X-Forwarded-For', async () => {
    assert.equal(await auditedAddress(relay, '127.0.0.1', '203.0.113.7'), '127.0.0.1');
    assert.equal(await auditedAddress(relay, '10.1.2.3', '203.0.113.7'), '10.1.2.3');
  });
});

describe('configured CORS origins and trusted proxies', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({ edit: withServerBlocks });
  });
  after(() => relay.close());

  it('echoes a listed origin on the preflight', async () => {
    const response = await preflight(relay, LISTED);
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal(response.headers['access-control-allow-origin'], LISTED);
    assert.match(String(response.headers.vary), /Origin/);
    assert.match(String(response.headers['access-control-allow-methods']), /GET/);
    assert.match(String(response.headers['access-control-allow-headers']), /authorization/);
    assert.doesNotMatch(String(response.headers['access-control-allow-headers']), /idempotency-key/);
    assertSecurityHeaders(response);
  });

  it('echoes a listed origin on GET, success or error', async () => {
    const ok = await relay.get('/v1/datasets', { as: 'caseworker', headers: { origin: LISTED } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['access-control-allow-origin'], LISTED);
    assert.match(String(ok.headers.vary), /Origin/);
    // What a page may read is said on the response itself.
    assert.equal(
      ok.headers['access-control-expose-headers'],
      'etag, link, x-request-id, retry-after, x-ambit-disclosure-control, x-ambit-freshness, x-ambit-completeness',
    );
    const denied = await relay.get('/v1/datasets', { headers: { origin: LISTED } });
    assertProblem(denied, 401, 'auth.missing_credential');
    assert.equal(denied.headers['access-control-allow-origin'], LISTED);
  });

  it('keeps Origin in Vary beside what a route adds to it', async () => {
    const aggregate = await relay.get('/v1/datasets/social_protection/aggregates/payments_by_district', {
      as: 'analyst',
      headers: { origin: LISTED, 'data-purpose': PURPOSE, accept: 'text/csv' },
    });
    assert.equal(aggregate.statusCode, 200, aggregate.body);
    assert.deepEqual(varyOf(aggregate), ['accept', 'origin']);
    const scopedMetadata = await relay.get('/metadata/datasets/civil_registry/policy', {
      as: 'caseworker',
      headers: { origin: LISTED },
    });
    assert.equal(scopedMetadata.statusCode, 200, scopedMetadata.body);
    assert.deepEqual(varyOf(scopedMetadata), ['accept', 'authorization', 'origin', 'x-api-key']);
  });

  it('refuses an unlisted origin, including look-alikes', async () => {
    for (const origin of [
      UNLISTED,
      `${LISTED}.evil.net`,
      'https://evilapp.example.org',
      'http://app.example.org',
      `${LISTED}:8443`,
      `${LISTED}/`,
      `${LISTED}/portal`,
      'https://APP.example.org',
      'null',
      `${LISTED}, ${LISTED}`,
    ]) {
      assertProblem(await preflight(relay, origin), 403, 'http.cors_denied');
      const get = await relay.get('/v1/datasets', { as: 'caseworker', headers: { origin } });
      assert.equal(get.statusCode, 200);
      assert.equal(get.headers['access-control-allow-origin'], undefined, origin);
      assert.equal(get.headers['access-control-expose-headers'], undefined, origin);
    }
    assertProblem(await preflight(relay), 403, 'http.cors_denied');
  });

  it('answers a plain OPTIONS (no Origin) with Allow and grants no origin anything', async () => {
    const plain = await relay.inject({ method: 'OPTIONS', url: '/v1/datasets' });
    assert.equal(plain.statusCode, 204);
    assert.equal(plain.headers.allow, 'GET, HEAD, OPTIONS');
    assert.equal(plain.headers['access-control-allow-origin'], undefined);
    assert.equal(plain.headers['access-control-allow-methods'], undefined);
    assert.deepEqual(varyOf(plain), ['origin']);
    assertProblem(await relay.inject({ method: 'OPTIONS', url: '/nowhere' }), 404, 'http.not_found');
    // The same request naming an unlisted origin is a preflight, refused as before.
    const unlisted = await relay.inject({
      method: 'OPTIONS',
      url: '/v1/datasets',
      headers: { origin: UNLISTED },
    });
    assertProblem(unlisted, 403, 'http.cors_denied');
    assert.equal(unlisted.headers.allow, undefined);
  });

  it('honours X-Forwarded-For from a listed peer only', async () => {
    assert.equal(await auditedAddress(relay, '127.0.0.1', '203.0.113.7'), '203.0.113.7');
    assert.equal(await auditedAddress(relay, '10.20.30.40', '203.0.113.8'), '203.0.113.8');
    // The client is the nearest address that is not itself a trusted proxy.
    assert.equal(
      await auditedAddress(relay, '127.0.0.1', '198.51.100.1, 203.0.113.9, 10.0.0.5'),
      '203.0.113.9',
    );
    assert.equal(await auditedAddress(relay, '192.0.2.50', '203.0.113.7'), '192.0.2.50');
    assert.equal(await auditedAddress(relay, '127.0.0.1'), '127.0.0.1');
  });

  it('records only an IP address from X-Forwarded-For, else the nearest trusted hop', async () => {
    // The peer is itself a trusted proxy (an internal caller): what it forwards is not an address.
    assert.equal(await auditedAddress(relay, '10.0.0.5', 'national_id=FAKE-412781'), '10.0.0.5');
    assert.equal(await auditedAddress(relay, '10.0.0.5', 'x'.repeat(4000)), '10.0.0.5');
    assert.equal(await auditedAddress(relay, '127.0.0.1', '203.0.113.9, junk, 10.0.0.6'), '10.0.0.6');
    // Forms an address parser may accept but a reader of the record would not take for one.
    for (const odd of [
      '2130706433',
      '0x7f.1',
      '203.0.113.9:443',
      '[2001:db8::1]',
      'fe80::1%FAKE412781',
      '',
    ]) {
      assert.equal(await auditedAddress(relay, '10.0.0.5', odd), '10.0.0.5', odd);
    }
    assert.equal(await auditedAddress(relay, '10.0.0.5', 'junk, 2001:db8::7'), '2001:db8::7');
  });

  it('builds absolute URLs from the configuration, never from forwarded host headers', async () => {
    const response = await relay.inject({
      method: 'GET',
      url: '/openapi.json',
      remoteAddress: '127.0.0.1',
      headers: {
        ...CASEWORKER,
        'x-forwarded-for': '203.0.113.7',
        'x-forwarded-host': 'evil.example.net',
        'x-forwarded-proto': 'https',
        forwarded: 'for=198.51.100.1;host=evil.example.net;proto=https',
      },
    });
    assert.equal(response.statusCode, 200);
    // The OpenAPI `servers` is `catalog.base_url`, whatever host the request claims to have come through.
    assert.ok(JSON.parse(response.body).servers[0].url);
    assert.doesNotMatch(response.body, /evil\.example\.net/);
  });

  it('reads neither Forwarded nor X-Real-IP', async () => {
    const response = await relay.inject({
      method: 'GET',
      url: '/v1/datasets',
      remoteAddress: '127.0.0.1',
      headers: { ...CASEWORKER, forwarded: 'for=203.0.113.7', 'x-real-ip': '203.0.113.8' },
    });
    assert.equal(response.statusCode, 200);
    const id = assertRequestId(response);
    assert.equal(relay.auditRecords().find((entry) => entry.request_id === id)?.remote_addr, '127.0.0.1');
  });

  it('records the same address on a request Fastify serves', async () => {
    const response = await relay.inject({
      method: 'HEAD',
      url: '/v1/datasets',
      remoteAddress: '10.0.0.5',
      headers: { ...CASEWORKER, 'x-forwarded-for': 'national_id=FAKE-412781' },
    });
    assert.equal(response.statusCode, 200);
    const id = assertRequestId(response);
    const record = relay.auditRecords().find((entry) => entry.request_id === id);
    assert.ok(record, 'request audited');
    assert.equal(record.remote_addr, '10.0.0.5');
  });
});
