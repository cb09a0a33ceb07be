// With CORS origins listed, whether an answer carries Access-Control-Allow-Origin depends on the request's Origin,
// so every answer names Origin in Vary, the ones without the echo too (Fetch, "CORS protocol and HTTP caches"): a
// cache keyed without it would hand the answer given to a plain or unlisted request to a listed page, which the
// browser then refuses for its missing echo.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addGetRoute } from '../../src/platform/http/fast-lane.ts';
import { addVary } from '../../src/platform/http/vary.ts';
import { assertProblem, bareApp, type HttpResult, listenLocal, rawRequest } from '../helpers/http-checks.ts';

const LISTED = 'https://app.example.org';

function varyOf(response: HttpResult): string[] {
  return String(response.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
    .sort();
}

describe('Vary: Origin with CORS origins listed', () => {
  const app = bareApp(5_000, { corsAllowedOrigins: [LISTED] });
  addGetRoute(app, '/lane/:id', async (_request, reply) => reply.send(Buffer.from('{}')));
  app.get('/fastify', async (_request, reply) => {
    addVary(reply, 'Accept');
    return {};
  });
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  for (const origin of [undefined, 'https://evil.example.net', LISTED]) {
    it(`names Origin in Vary on every answer (Origin: ${origin ?? 'none'})`, async () => {
      const headers: Record<string, string> = origin === undefined ? {} : { origin };
      const lane = await rawRequest(port, '/lane/1', { headers });
      assert.equal(lane.statusCode, 200);
      assert.deepEqual(varyOf(lane), ['origin']);
      const fastify = await rawRequest(port, '/fastify', { headers });
      assert.equal(fastify.statusCode, 200);
      assert.deepEqual(varyOf(fastify), ['accept', 'origin']);
      const missing = await rawRequest(port, '/nope', { headers });
      assertProblem(missing, 404, 'http.not_found');
      assert.deepEqual(varyOf(missing), ['origin']);
      const echoed = origin === LISTED ? LISTED : undefined;
      for (const response of [lane, fastify, missing]) {
        assert.equal(response.headers['access-control-allow-origin'], echoed);
      }
    });
  }
});

describe('Vary with no CORS origin listed', () => {
  const app = bareApp();
  addGetRoute(app, '/lane/:id', async (_request, reply) => reply.send(Buffer.from('{}')));
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  it('names no Origin: no answer depends on it', async () => {
    const response = await rawRequest(port, '/lane/1', { headers: { origin: LISTED } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers.vary, undefined);
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });
});
