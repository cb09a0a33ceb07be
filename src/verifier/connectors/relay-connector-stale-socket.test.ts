// A kept-alive socket the source closed between two reads: the read sent on it is sent again on a fresh socket at
// once, without spending an attempt; a source that drops fresh sockets still fails as a transport error.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { auditCodeOf } from './failure-reason.ts';
import { failure, json, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';

const NO_RETRY = { max_attempts: 1, base_delay: 1, max_delay: 1, max_retry_after: 0 };

/** Answers the first request of each socket; a later request on it finds the socket closed, by FIN or by RST. */
function closingReusedSockets(close: 'end' | 'reset') {
  const answered = new WeakSet<object>();
  return (request: IncomingMessage, response: ServerResponse) => {
    if (answered.has(request.socket)) {
      if (close === 'reset') request.socket.resetAndDestroy();
      else request.socket.destroy();
      return;
    }
    answered.add(request.socket);
    json(response, 200, { data: [{ national_id: 'FAKE-1', deceased: false }] });
  };
}

describe('registry_data_api connector: kept-alive sockets closed by the source', () => {
  const upstream = useConnectorUpstream();

  for (const close of ['end', 'reset'] as const) {
    it(`sends a read again on a fresh socket when a reused one was closed (${close}), even with one attempt`, async () => {
      upstream.handler = closingReusedSockets(close);
      const sent = { count: 0, requestSent: () => sent.count++ };
      const reader = upstream.connector({ max_in_flight: 1, retry: NO_RETRY });
      try {
        for (let i = 0; i < 4; i++) {
          const record = await reader.read({ ...LOOKUP, requests: sent });
          assert.equal(record.row.deceased, false);
        }
      } finally {
        reader.close();
      }
      // No backoff: the source did not fail, a socket went stale. Every request sent is counted.
      assert.deepEqual(upstream.sleeps, []);
      assert.equal(sent.count, upstream.requests.length);
    });
  }

  it('sends a read once when the source closes a fresh socket on it: 503 source.network', async () => {
    upstream.handler = (request) => request.socket.destroy();
    const reader = upstream.connector({ retry: NO_RETRY });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.status, 503);
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(auditCodeOf(problem), 'source.network');
    assert.equal(upstream.requests.length, 1);
  });

  it('sends a read once when the source answered it with an interim or upgrade response undici refuses', async () => {
    // The source answered (101, or 100 with no Expect): a fresh socket that did its work, not a stale one.
    for (const head of [
      'HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: x',
      'HTTP/1.1 100 Continue',
    ]) {
      upstream.handler = (request) => request.socket.end(`${head}\r\n\r\n`);
      upstream.requests.length = 0;
      const reader = upstream.connector({ retry: NO_RETRY });
      const problem = await failure(reader.read(LOOKUP));
      reader.close();
      assert.equal(auditCodeOf(problem), 'source.protocol_error', head);
      assert.equal(upstream.requests.length, 1, head);
    }
  });

  it('sends a read again at most once per attempt, however many sockets went stale', async () => {
    upstream.handler = closingReusedSockets('end');
    const reader = upstream.connector({ max_in_flight: 1, retry: NO_RETRY });
    await reader.read(LOOKUP);
    // From now on every request is closed unanswered, on whatever socket it comes.
    upstream.handler = (request) => request.socket.destroy();
    upstream.requests.length = 0;
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(auditCodeOf(problem), 'source.network');
    assert.equal(upstream.requests.length, 2);
  });
});
