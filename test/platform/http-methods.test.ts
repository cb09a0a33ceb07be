// A known path asked with a method it does not answer is 405 with `Allow` (RFC 9110 §15.5.6), not 404: a client
// can tell a wrong method from a wrong path. An unknown path stays 404.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertProblem, bareApp } from '../helpers/http-checks.ts';
import { useDemoRelay } from './http-limits-fixture.ts';

describe('a method a path does not answer', () => {
  const app = bareApp();
  app.get('/things/:id', async () => ({ ok: true }));
  app.post('/things', async () => ({ ok: true }));
  after(() => app.close());

  it('is 405 http.method_not_allowed naming the methods the path answers', async () => {
    const deleted = await app.inject({ method: 'DELETE', url: '/things/7?x=1' });
    assertProblem(deleted, 405, 'http.method_not_allowed');
    assert.equal(deleted.headers.allow, 'GET, HEAD');
    const put = await app.inject({ method: 'PUT', url: '/things' });
    assertProblem(put, 405, 'http.method_not_allowed');
    assert.equal(put.headers.allow, 'POST');
  });

  it('leaves an unknown path 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const response = await app.inject({ method, url: '/elsewhere/7' });
      assertProblem(response, 404, 'http.not_found');
      assert.equal(response.headers.allow, undefined);
    }
  });
});

describe('a method a relay route does not answer', () => {
  const demo = useDemoRelay({ listen: false });

  it('is 405 with Allow, audited with its code', async () => {
    const { relay } = demo;
    const response = await relay.inject({ method: 'DELETE', url: '/v1/datasets' });
    assertProblem(response, 405, 'http.method_not_allowed');
    assert.equal(response.headers.allow, 'GET, HEAD');
    assert.equal(relay.auditRecords().at(-1)?.error_code, 'http.method_not_allowed');
  });
});
