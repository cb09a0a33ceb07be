// A source that answers with something HTTP/1.1 does not allow (not HTTP at all, an interim or upgrade answer never
// asked for, conflicting lengths, a header block past the limit) answers the same way again: 503 at once, unretried.
// A connection cut before the answer ends may pass, and is retried.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditCodeOf } from './failure-reason.ts';
import { failure, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';

const BODY = '{"data":[{}]}';

const BROKEN_ANSWERS: Record<string, string> = {
  'not HTTP': 'SSH-2.0-OpenSSH_9.6\r\n',
  'an interim 100 never asked for': 'HTTP/1.1 100 Continue\r\n\r\n',
  'an upgrade never asked for':
    'HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n',
  'two different Content-Length': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\nContent-Length: 14\r\n\r\n${BODY} `,
  'a bad chunk size':
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  // RFC 9110 §15: a status code is 100 to 599; the HTTP client trips over one below 100.
  'a status code below 100': `HTTP/1.1 099 Odd\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
  'a status code of 000': `HTTP/1.1 000 Odd\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n${BODY}`,
  'a header block past the limit': `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(100_000)}\r\nContent-Length: 13\r\n\r\n${BODY}`,
};

describe('registry_data_api connector: answers that break HTTP/1.1', () => {
  const upstream = useConnectorUpstream();

  for (const [name, answer] of Object.entries(BROKEN_ANSWERS)) {
    it(`answers ${name} 503 source.unavailable (reason source.protocol_error), without retrying`, async () => {
      upstream.handler = (request) => request.socket.end(answer);
      const reader = upstream.connector();
      const problem = await failure(reader.read(LOOKUP));
      reader.close();
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.protocol_error'],
      );
      assert.deepEqual([upstream.requests.length, upstream.sleeps.length], [1, 0]);
    });
  }

  it('answers an https base URL on a port that speaks plain HTTP 503 (reason source.protocol_error), unretried', async () => {
    // The TLS handshake gets an HTTP answer: the port does not speak TLS, and will not on the next attempt.
    const reader = upstream.connector({ base_url: `https://127.0.0.1:${upstream.port}/relay/` });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.protocol_error'],
    );
    assert.deepEqual(upstream.sleeps, []);
  });

  it('still retries an answer cut short by its connection (reason source.network)', async () => {
    upstream.handler = (request) =>
      request.socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"data":',
      );
    const reader = upstream.connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual([problem.status, auditCodeOf(problem)], [503, 'source.network']);
    assert.deepEqual([upstream.requests.length, upstream.sleeps.length], [3, 2]);
  });
});
