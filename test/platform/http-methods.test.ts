// A known path asked with a method it does not answer is 405 with `Allow` (RFC 9110 §15.5.6), not 404: a client
// can tell a wrong method from a wrong path. An unknown path stays 404.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertProblem,
  assertSecurityHeaders,
  bareApp,
  listenLocal,
  rawRequest,
  sendRaw,
} from '../helpers/http-checks.ts';
import { useDemoRelay, useListening } from './http-limits-fixture.ts';

describe('a method a path does not answer', () => {
  const app = bareApp();
  app.get('/things/:id', async () => ({ ok: true }));
  app.post('/things', async () => ({ ok: true }));
  after(() => app.close());

  it('is 405 http.method_not_allowed naming the methods the path answers', async () => {
    const deleted = await app.inject({ method: 'DELETE', url: '/things/7?x=1' });
    assertProblem(deleted, 405, 'http.method_not_allowed');
    assert.equal(deleted.headers.allow, 'GET, HEAD, OPTIONS');
    const put = await app.inject({ method: 'PUT', url: '/things' });
    assertProblem(put, 405, 'http.method_not_allowed');
    assert.equal(put.headers.allow, 'POST, OPTIONS');
  });

  it('leaves an unknown path 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const response = await app.inject({ method, url: '/elsewhere/7' });
      assertProblem(response, 404, 'http.not_found');
      assert.equal(response.headers.allow, undefined);
    }
  });
});

describe('a request no route takes, with a body or content type Fastify would refuse', () => {
  const app = bareApp();
  app.get('/things/:id', async () => ({ ok: true }));
  const server = useListening(app);
  const request = (head: string, body = '') =>
    sendRaw(server.port, `${head}\r\nhost: a\r\nconnection: close\r\n\r\n${body}`);

  it('is 405 or 404 as for any method the path does not answer, never 500', async () => {
    // QUERY (RFC 10008) needs a Content-Type on the routes that take it; no route takes it here.
    const known = await request('QUERY /things/7 HTTP/1.1');
    assertProblem(known, 405, 'http.method_not_allowed');
    assert.equal(known.headers.allow, 'GET, HEAD, OPTIONS');
    assertProblem(await request('QUERY /elsewhere HTTP/1.1'), 404, 'http.not_found');
  });

  it('is 404 for an unknown path, whatever its body: the body was for a route that does not exist', async () => {
    const json = 'content-type: application/json\r\ncontent-length: 2';
    assertProblem(await request(`POST /elsewhere HTTP/1.1\r\n${json}`, '{x'), 404, 'http.not_found');
    assertProblem(
      await request('POST /elsewhere HTTP/1.1\r\ncontent-type: ;;\r\ncontent-length: 2', '{}'),
      404,
      'http.not_found',
    );
    const deleted = await request(`DELETE /things/7 HTTP/1.1\r\n${json}`, '{x');
    assertProblem(deleted, 405, 'http.method_not_allowed');
  });
});

describe('a method a relay route does not answer', () => {
  const demo = useDemoRelay({ listen: false });

  it('is 405 with Allow, audited with its code', async () => {
    const { relay } = demo;
    const response = await relay.inject({ method: 'DELETE', url: '/v1/datasets' });
    assertProblem(response, 405, 'http.method_not_allowed');
    assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS');
    assert.equal(relay.auditRecords().at(-1)?.error_code, 'http.method_not_allowed');
  });
});

describe('a plain OPTIONS request (no Origin: not a CORS preflight)', () => {
  const app = bareApp();
  app.get('/things/:id', async () => ({ ok: true }));
  app.post('/things', async () => ({ ok: true }));
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  it('is 204 with Allow naming the methods the path answers, and no CORS header', async () => {
    for (const [url, allow] of [
      ['/things/7?x=1', 'GET, HEAD, OPTIONS'],
      ['/things', 'POST, OPTIONS'],
    ] as const) {
      const response = await rawRequest(port, url, { method: 'OPTIONS' });
      assert.equal(response.statusCode, 204, url);
      assert.equal(response.body, '');
      assert.equal(response.headers.allow, allow, url);
      assert.equal(response.headers['access-control-allow-origin'], undefined);
      assert.equal(response.headers['access-control-allow-methods'], undefined);
      assertSecurityHeaders(response);
    }
  });

  it('is 404 http.not_found for an unknown path', async () => {
    const response = await rawRequest(port, '/elsewhere/7', { method: 'OPTIONS' });
    assertProblem(response, 404, 'http.not_found');
    assert.equal(response.headers.allow, undefined);
  });

  it('answers `OPTIONS *` (the server as a whole) with 204 and no Allow', async () => {
    const response = await sendRaw(
      port,
      'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers.allow, undefined);
  });

  it('leaves preflights to the CORS rules: no listed origin, 403 http.cors_denied', async () => {
    const preflights: Record<string, string>[] = [
      { origin: 'https://app.example.org' },
      { origin: 'https://app.example.org', 'access-control-request-method': 'GET' },
      { 'access-control-request-method': 'GET' },
    ];
    for (const headers of preflights) {
      const response = await rawRequest(port, '/things/7', { method: 'OPTIONS', headers });
      assertProblem(response, 403, 'http.cors_denied');
      assert.equal(response.headers.allow, undefined);
    }
  });
});

describe('a plain OPTIONS request to the relay', () => {
  const demo = useDemoRelay({ listen: false });

  it('is 204 with Allow for a relay route, and audited', async () => {
    const { relay } = demo;
    const response = await relay.inject({ method: 'OPTIONS', url: '/v1/datasets' });
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS');
    const record = relay.auditRecords().at(-1);
    assert.equal(record?.request_id, response.headers['x-request-id']);
    assert.equal(record?.status_code, 204);
  });
});
