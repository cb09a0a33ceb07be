// The error boundary: a thrown non-Problem error becomes a generic 500 problem, its cause only logged.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { capturedLog } from '../helpers/captured-log.ts';
import { assertProblem, assertSecurityHeaders, bareApp } from '../helpers/http-checks.ts';

describe('error boundary', () => {
  const { lines, logger } = capturedLog('error');
  const app = bareApp(5_000, { logger });
  app.get('/boom', async () => {
    throw new Error('db password=hunter2 at /srv/registry/secret.db');
  });
  app.get('/teapot', async () => {
    // A status code on a foreign error is not trusted: it is still an internal failure.
    throw Object.assign(new TypeError('upstream said 418'), { statusCode: 418 });
  });
  after(() => app.close());

  it('turns a thrown non-Problem error into a generic 500 internal.unhandled and logs the cause', async () => {
    for (const url of ['/boom', '/teapot']) {
      const response = await app.inject({ method: 'GET', url });
      const body = assertProblem(response, 500, 'internal.unhandled');
      assertSecurityHeaders(response);
      assert.equal(body.detail, 'An internal error occurred.');
      assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'request_id', 'status', 'title', 'type']);
      for (const leak of ['hunter2', '/srv/registry', 'upstream said', 'Error', 'stack', '    at ']) {
        assert.ok(!response.body.includes(leak), `${url} leaks ${leak}`);
      }
      const logged = lines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.request_id === body.request_id);
      assert.ok(logged, 'the cause is logged with the request id');
    }
    assert.ok(
      lines.some((line) => line.includes('hunter2')),
      'the server log keeps the real message',
    );
  });
});
