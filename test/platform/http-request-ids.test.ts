// Request ids, problem bodies and security headers on the demo relay, with its 413 and 404 problems.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { MAX_BODY_BYTES } from '../../src/platform/http/create-server.ts';
import { assertProblem, assertRequestId, assertSecurityHeaders } from '../helpers/http-checks.ts';
import { HOUSEHOLDS, jsonOfSize, SCHEMA, useDemoRelay } from './http-limits-fixture.ts';

describe('request ids and problem bodies (demo relay)', () => {
  const demo = useDemoRelay();

  it('gives every response its own ULID, equal to the problem request_id and to the audit record', async () => {
    const { relay } = demo;
    const ok = await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker' });
    assert.equal(ok.statusCode, 200);
    const ids = [assertRequestId(ok)];
    const tooMany = Array.from({ length: 101 }, (_, i) => `d${i}`).join(',');
    const problems = [
      [await relay.get(HOUSEHOLDS), 401, 'auth.missing_credential'],
      [await relay.get(HOUSEHOLDS, { as: 'catalog_viewer' }), 403, 'auth.scope_denied'],
      [await relay.get('/no/such/route', { as: 'caseworker' }), 404, 'http.not_found'],
      [await relay.get(`${HOUSEHOLDS}?limit=0`, { as: 'caseworker' }), 400, 'filter.limit_out_of_range'],
      [
        await relay.get(`${HOUSEHOLDS}?district.in=${tooMany}`, { as: 'caseworker' }),
        413,
        'filter.too_many_values',
      ],
    ] as const;
    for (const [response, status, code] of problems) {
      const body = assertProblem(response, status, code);
      ids.push(body.request_id as string);
    }
    assert.equal(new Set(ids).size, ids.length, 'request ids repeat');
    const records = relay.auditRecords();
    for (const id of ids) assert.equal(records.filter((record) => record.request_id === id).length, 1, id);
  });

  it('never adopts the caller x-request-id, but records it as client_request_id', async () => {
    const { relay } = demo;
    const callerUlid = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const ok = await relay.get(`${HOUSEHOLDS}?limit=1`, {
      as: 'caseworker',
      headers: { 'x-request-id': callerUlid },
    });
    const okId = assertRequestId(ok);
    assert.notEqual(okId, callerUlid);
    const denied = await relay.get(HOUSEHOLDS, { headers: { 'x-request-id': 'caller-correlation-42' } });
    const body = assertProblem(denied, 401, 'auth.missing_credential');
    assert.notEqual(body.request_id, 'caller-correlation-42');
    const plain = await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker' });
    const long = await relay.get(`${HOUSEHOLDS}?limit=1`, {
      as: 'caseworker',
      headers: { 'x-request-id': 'c'.repeat(300) },
    });

    // Not printable ASCII: not recorded (nor, in the verifier, forwarded to sources) as the caller's id.
    const odd = [];
    for (const value of ['a\tb', 'caf\u00e9', '', 'ok\u00ff']) {
      odd.push(
        await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker', headers: { 'x-request-id': value } }),
      );
    }

    const byId = new Map(relay.auditRecords().map((record) => [record.request_id, record]));
    assert.equal(byId.get(okId)?.client_request_id, callerUlid);
    assert.equal(byId.get(body.request_id)?.client_request_id, 'caller-correlation-42');
    assert.equal(byId.get(assertRequestId(plain))?.client_request_id, null);
    assert.equal(byId.get(assertRequestId(long))?.client_request_id, 'c'.repeat(128));
    for (const response of odd) {
      assert.equal(response.statusCode, 200);
      assert.equal(byId.get(assertRequestId(response))?.client_request_id, null);
    }
  });

  it('sets the security headers on success, error and 304 responses', async () => {
    const { relay } = demo;
    const ok = await relay.get(SCHEMA, { as: 'caseworker' });
    assert.equal(ok.statusCode, 200);
    assertSecurityHeaders(ok);
    const etag = ok.headers.etag;
    assert.equal(typeof etag, 'string');
    const notModified = await relay.get(SCHEMA, {
      as: 'caseworker',
      headers: { 'if-none-match': String(etag) },
    });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assertSecurityHeaders(notModified);
    for (const response of [
      await relay.get(SCHEMA),
      await relay.get(SCHEMA, { as: 'health_planner' }),
      await relay.get('/nowhere'),
      await relay.inject({ method: 'HEAD', url: '/healthz' }),
    ]) {
      assertSecurityHeaders(response);
    }
  });

  it('answers a JSON body over 1 MiB with 413 internal.payload_too_large, declared or streamed', async () => {
    const { relay } = demo;
    const big = jsonOfSize(MAX_BODY_BYTES + 1);
    const declared = await relay.inject({
      method: 'POST',
      url: '/v1/datasets',
      payload: big,
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(declared, 413, 'internal.payload_too_large');
    assertSecurityHeaders(declared);
    // Without Content-Length the limit is enforced while the body streams in.
    const streamed = await relay.inject({
      method: 'POST',
      url: '/v1/datasets',
      payload: Readable.from([Buffer.from(big)]),
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(streamed, 413, 'internal.payload_too_large');
    const small = await relay.inject({ method: 'POST', url: '/v1/datasets', payload: { small: true } });
    assertProblem(small, 405, 'http.method_not_allowed');
  });

  it('answers an unknown route with the 404 http.not_found problem, another method with 405', async () => {
    const { relay } = demo;
    const deleted = assertProblem(
      await relay.inject({ method: 'DELETE', url: '/v1/datasets' }),
      405,
      'http.method_not_allowed',
    );
    assert.equal(deleted.title, 'Method not allowed');
    for (const response of [
      await relay.get('/v2/datasets', { as: 'caseworker' }),
      await relay.get('/v1/datasets/social_protection/entities/households/records/hh-1001/extra/x'),
    ]) {
      const body = assertProblem(response, 404, 'http.not_found');
      assert.equal(body.title, 'Not found');
    }
  });
});
