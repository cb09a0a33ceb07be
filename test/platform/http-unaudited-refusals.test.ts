// Which answers write an audit record. The commit hook (`commitResponse`) is the audit's only entry: every request
// a route, a hook or the not-found handler answers passes through it once; a request refused before it is routed
// (what the HTTP parser refuses, an HTTP/1.1 request without Host, an unknown Expect, a CONNECT) never does, as
// docs/operations.md and the problem catalogue say.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RouteRequest } from '../../src/platform/http/route-types.ts';
import { assertProblem, bareApp, listenLocal, sendRaw } from '../helpers/http-checks.ts';

describe('requests refused before routing', () => {
  const committed: string[] = [];
  // A short request timeout bounds how long headers that never finish are waited for.
  const app = bareApp(300, {
    commitResponse(request: RouteRequest, _reply, done) {
      committed.push(request.id);
      done();
    },
  });
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  it('are answered with problems that no audit record holds; a routed 404 has its record', async () => {
    const refused = [
      ['GET /x HTTP/1.1\r\nhost: a\r\nx-bad: a\x7fb\r\n\r\n', 400, 'http.malformed_request'],
      [
        `GET /x HTTP/1.1\r\nhost: a\r\nx-pad: ${'p'.repeat(70 * 1024)}\r\n\r\n`,
        431,
        'http.headers_too_large',
      ],
      ['GET /x HTTP/1.1\r\nhost: a\r\nx-slow: ', 504, 'internal.timeout'],
      ['GET /x HTTP/1.1\r\n\r\n', 400, 'http.malformed_request'],
      // RFC 9112 §3.2: more than one Host field line is refused as no Host is.
      ['GET /x HTTP/1.1\r\nhost: a\r\nHost: b\r\n\r\n', 400, 'http.malformed_request'],
      ['GET /x HTTP/1.0\r\nHOST: a\r\nhost: a\r\n\r\n', 400, 'http.malformed_request'],
      ['GET /x HTTP/1.1\r\nhost: a\r\nexpect: 200-ok\r\n\r\n', 417, 'http.expectation_failed'],
      ['CONNECT example.org:443 HTTP/1.1\r\nhost: example.org:443\r\n\r\n', 404, 'http.not_found'],
    ] as const;
    for (const [bytes, status, code] of refused) {
      const body = assertProblem(await sendRaw(port, bytes), status, code);
      assert.ok(!committed.includes(body.request_id as string), `${code} was committed`);
    }
    assert.equal(committed.length, 0);

    const routed = await sendRaw(port, 'GET /x HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n');
    const body = assertProblem(routed, 404, 'http.not_found');
    assert.deepEqual(committed, [body.request_id]);
  });
});
