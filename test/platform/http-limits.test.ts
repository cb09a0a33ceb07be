// Size limits from outside: the 1 MiB body limit, and the URI, path segment and query limits over a socket.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MAX_BODY_BYTES, MAX_URI_BYTES } from '../../src/platform/http/create-server.ts';
import { assertProblem, assertSecurityHeaders, bareApp, rawRequest } from '../helpers/http-checks.ts';
import { HOUSEHOLDS, jsonOfSize, SCHEMA, useDemoRelay } from './http-limits-fixture.ts';

describe('body limit on a POST route', () => {
  const app = bareApp();
  app.post('/echo', async (request) => ({ bytes: JSON.stringify(request.body).length }));
  after(() => app.close());

  it('accepts exactly 1 MiB and refuses one byte more', async () => {
    const atLimit = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: jsonOfSize(MAX_BODY_BYTES),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(atLimit.statusCode, 200);
    assert.equal(atLimit.json().bytes, MAX_BODY_BYTES);
    const over = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: jsonOfSize(MAX_BODY_BYTES + 1),
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(over, 413, 'internal.payload_too_large');
    const broken = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: '{"pad":',
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(broken, 400, 'http.invalid_body');
  });
});

describe('URI limits over a real socket', () => {
  const demo = useDemoRelay({ listen: true });

  /** A request target of exactly `length` bytes on an unknown route. */
  const targetOf = (length: number) => {
    const prefix = '/nowhere?pad=';
    return prefix + 'a'.repeat(length - prefix.length);
  };

  it('answers a URI over 8 KiB, and one of 20 KiB, with 414 internal.uri_too_long', async () => {
    const { relay, port } = demo;
    for (const length of [MAX_URI_BYTES + 1, 20 * 1024]) {
      const response = await rawRequest(port, targetOf(length));
      assertProblem(response, 414, 'internal.uri_too_long');
      assertSecurityHeaders(response);
    }
    const viaRoute = await rawRequest(port, `${HOUSEHOLDS}?district=${'w'.repeat(MAX_URI_BYTES)}`);
    assertProblem(viaRoute, 414, 'internal.uri_too_long');
    const records = relay.auditRecords().filter((record) => record.error_code === 'internal.uri_too_long');
    assert.equal(records.length, 3);
  });

  it('lets a URI of exactly 8 KiB through to routing', async () => {
    const { port } = demo;
    const response = await rawRequest(port, targetOf(MAX_URI_BYTES));
    assertProblem(response, 404, 'http.not_found');
  });

  it('takes long record ids to the route and refuses an overlong path segment with the 414 problem', async () => {
    const { port } = demo;
    const longId = await rawRequest(port, `${HOUSEHOLDS}/${'h'.repeat(300)}`, {
      headers: { authorization: 'Bearer test-key-caseworker-0000000000000001' },
    });
    assertProblem(longId, 404, 'schema.unknown_resource');
    const overlong = await rawRequest(port, `${HOUSEHOLDS}/${'h'.repeat(MAX_URI_BYTES + 10)}`);
    assertProblem(overlong, 414, 'internal.uri_too_long');
    assertSecurityHeaders(overlong);
  });

  it('answers a path that does not percent-decode with an audited 404 problem', async () => {
    const { relay, port } = demo;
    const before = relay.auditRecords().length;
    const response = await rawRequest(port, '/v1/datasets/%E0%A4%A');
    const body = assertProblem(response, 404, 'http.not_found');
    assertSecurityHeaders(response);
    const records = relay.auditRecords();
    assert.equal(records.length, before + 1);
    assert.equal(records.at(-1)?.request_id, body.request_id);
    assert.equal(records.at(-1)?.error_code, 'http.not_found');
  });

  it('refuses two Data-Purpose headers on a rows read, even where no purpose is required', async () => {
    const { relay, port } = demo;
    const headers = { authorization: 'Bearer test-key-caseworker-0000000000000001' };
    const repeated = await rawRequest(port, `${HOUSEHOLDS}?limit=1`, {
      headers: { ...headers, 'data-purpose': ['https://example.org/p/a', 'https://example.org/p/b'] },
    });
    assert.equal(
      assertProblem(repeated, 400, 'auth.purpose_required').detail,
      'send one Data-Purpose header',
    );
    const comma = await rawRequest(port, `${HOUSEHOLDS}?limit=1`, {
      headers: { ...headers, 'data-purpose': 'review, 2026' },
    });
    assert.equal(comma.statusCode, 200, comma.body);
    assert.equal(relay.auditRecords().at(-1)?.purpose, 'review, 2026');
  });

  it('refuses a query string that does not percent-decode, on every route, with an audited 400', async () => {
    const { relay, port } = demo;
    const headers = { authorization: 'Bearer test-key-caseworker-0000000000000001' };
    const before = relay.auditRecords().length;
    const targets = [
      `${HOUSEHOLDS}?district=%C3`,
      `${HOUSEHOLDS}?district=%ZZ`,
      `${HOUSEHOLDS}?district=a%`,
      `${HOUSEHOLDS}?district=%ED%A0%80`,
      `${HOUSEHOLDS}?limit=1&cursor=%`,
      `${SCHEMA}?x=%E0%A4%A`,
      '/nowhere?q=%G0',
    ];
    for (const target of targets) {
      const response = await rawRequest(port, target, { headers });
      assertProblem(response, 400, 'http.invalid_query');
      assertSecurityHeaders(response);
    }
    assert.equal(relay.auditRecords().length, before + targets.length);
    // Escapes that decode are read as their text.
    const decoded = await rawRequest(port, `${HOUSEHOLDS}?district=%6Cakeside&limit=1`, { headers });
    assert.equal(decoded.statusCode, 200, decoded.body);
    assert.equal(JSON.parse(decoded.body).data[0].district, 'lakeside');
  });
});
