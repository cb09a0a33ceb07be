// The registry_data_api connector's limits: request deadlines, time-outs, transport errors, address guards, answer
// size, kept-alive sockets and the in-flight bound.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { systemRandom } from '../../platform/random.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';
import {
  BINDING,
  connection,
  counter,
  failure,
  json,
  LOOKUP,
  useConnectorUpstream,
} from './relay-connector-fixture.ts';

describe('registry_data_api connector limits', () => {
  const upstream = useConnectorUpstream();
  const connector = upstream.connector;

  describe('the request deadline', () => {
    it('sends nothing once the deadline has passed: 504 internal.timeout, and the trace is not told', async () => {
      upstream.handler = (_request, response) => json(response, 200, { data: [{}] });
      const reader = connector();
      const trace = counter();
      const problem = await failure(reader.read({ ...LOOKUP, deadline: performance.now() - 1, trace }));
      reader.close();
      assert.equal(problem.status, 504);
      assert.equal(problem.code, 'internal.timeout');
      assert.equal(auditCodeOf(problem), 'source.deadline_passed');
      assert.equal(upstream.requests.length, 0);
      assert.equal(trace.sent, 0);
    });

    it('gives up waiting for a free slot at the deadline; the read is never sent', async () => {
      // The first read holds the only slot for 300 ms; the second may wait 50 ms.
      upstream.handler = (_request, response) => {
        setTimeout(() => json(response, 200, { data: [{ deceased: false }] }), 300);
      };
      const reader = connector({ max_in_flight: 1 });
      const first = counter();
      const second = counter();
      const holding = reader.read({ ...LOOKUP, trace: first });
      const problem = await failure(
        reader.read({ ...LOOKUP, deadline: performance.now() + 50, trace: second }),
      );
      assert.equal(problem.code, 'internal.timeout');
      assert.equal(auditCodeOf(problem), 'source.deadline_passed');
      // The read holding the slot was counted when it left, before its answer.
      assert.equal(first.sent, 1);
      await holding;
      await new Promise((resolve) => setTimeout(resolve, 50));
      reader.close();
      assert.equal(upstream.requests.length, 1);
      assert.equal(second.sent, 0);
    });

    // The attempt's own time limit (10 s) is beyond the test's: only the deadline can end the read in time.
    it('cuts an attempt short at the deadline and does not retry past it', { timeout: 5_000 }, async () => {
      upstream.handler = () => {};
      const reader = connector({ timeout: 10_000 });
      const trace = counter();
      const problem = await failure(reader.read({ ...LOOKUP, deadline: performance.now() + 100, trace }));
      reader.close();
      assert.equal(problem.code, 'internal.timeout');
      assert.equal(auditCodeOf(problem), 'source.timeout');
      // The attempt was sent (the deadline was not taken as passed), and none followed.
      assert.equal(upstream.requests.length, 1);
      assert.deepEqual(upstream.sleeps, []);
      assert.equal(trace.sent, 1);
    });

    it('does not wait for a retry that would start past the deadline: 503 with what the source said', async () => {
      upstream.handler = (_request, response) => json(response, 503, {}, { 'retry-after': '1' });
      const reader = connector();
      const problem = await failure(reader.read({ ...LOOKUP, deadline: performance.now() + 500 }));
      reader.close();
      assert.equal(problem.code, 'source.unavailable');
      assert.equal(auditCodeOf(problem), 'source.http_503');
      assert.equal(problem.headers['retry-after'], '1');
      assert.equal(upstream.requests.length, 1);
      assert.deepEqual(upstream.sleeps, []);
    });
  });

  it('times out a silent upstream per attempt and retries', async () => {
    upstream.handler = () => {};
    const reader = connector({
      timeout: 100,
      retry: { max_attempts: 2, base_delay: 1, max_delay: 1, max_retry_after: 0 },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(auditCodeOf(problem), 'source.timeout');
    assert.equal(upstream.requests.length, 2);
  });

  it('retries transport errors (connection refused)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const reader = createRelayConnector({ relay: connection(deadPort) }, new Map([['relay', 't']]), {
      clock: systemClock,
      random: systemRandom,
      sleep: async (ms) => {
        upstream.sleeps.push(ms);
      },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(auditCodeOf(problem), 'source.network');
    assert.equal(upstream.sleeps.length, 2);
  });

  it('answers source.unavailable for a connection that is not configured', async () => {
    const reader = connector();
    const problem = await failure(reader.read({ ...LOOKUP, binding: { ...BINDING, connection: 'other' } }));
    reader.close();
    assert.equal(problem.status, 503);
    assert.equal(auditCodeOf(problem), 'source.not_configured');
    assert.equal(upstream.requests.length, 0);
  });

  it('refuses loopback addresses, by literal and by DNS name, unless allowed', async () => {
    upstream.handler = (_request, response) => json(response, 200, { data: [{}] });
    const guarded = connector({ allow_insecure_localhost: false, allow_insecure_private_network: true });
    const literal = await failure(guarded.read(LOOKUP));
    guarded.close();
    const named = createRelayConnector(
      {
        relay: {
          ...connection(upstream.port, {
            allow_insecure_localhost: false,
            allow_insecure_private_network: true,
          }),
          base_url: `http://localhost:${upstream.port}`,
        },
      },
      new Map([['relay', 't']]),
      { clock: systemClock, random: systemRandom },
    );
    const byName = await failure(named.read(LOOKUP));
    named.close();
    assert.equal(upstream.requests.length, 0);
    for (const problem of [literal, byName]) assert.equal(auditCodeOf(problem), 'source.address_denied');
  });

  it('refuses a response over 1 MiB without retrying it', async () => {
    upstream.handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"data":[{"x":"${'a'.repeat(1024 * 1024)}"}]}`);
    };
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(auditCodeOf(problem), 'source.too_large');
    assert.equal(upstream.requests.length, 1);
  });

  it('retries a 503 or 429 whatever the size of its body (an error page is never read)', async () => {
    let calls = 0;
    upstream.handler = (_request, response) => {
      calls += 1;
      if (calls <= 2) {
        response.writeHead(calls === 1 ? 503 : 429, { 'content-type': 'text/html', 'retry-after': '0' });
        response.end(`<html>${'busy '.repeat(300_000)}</html>`);
        return;
      }
      json(response, 200, { data: [{ national_id: 'FAKE-1', deceased: false }] });
    };
    const reader = connector();
    const record = await reader.read(LOOKUP);
    reader.close();
    assert.equal(record.row.deceased, false);
    assert.equal(upstream.requests.length, 3);
  });

  it('reads an answer sent in many small chunks, and refuses one over 1 MiB sent so', async () => {
    const chunked = (text: string, size: number) => (_request: unknown, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      for (let at = 0; at < text.length; at += size) response.write(text.slice(at, at + size));
      response.end();
    };
    const name = 'é'.repeat(40_000);
    upstream.handler = chunked(`{"data":[{"national_id":"FAKE-1","name":"${name}"}]}`, 7);
    const reader = connector();
    const record = await reader.read(LOOKUP);
    upstream.handler = chunked(`{"data":[{"x":"${'a'.repeat(1024 * 1024)}"}]}`, 4096);
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(record.row.name, name);
    assert.equal(auditCodeOf(problem), 'source.too_large');
  });

  it('reuses kept-alive sockets for consecutive reads of a connection', async () => {
    upstream.handler = (_request, response) => json(response, 200, { data: [{ deceased: false }] });
    let sockets = 0;
    const count = () => sockets++;
    upstream.server.on('connection', count);
    const reader = connector();
    try {
      for (let i = 0; i < 6; i++) await reader.read(LOOKUP);
    } finally {
      reader.close();
      upstream.server.off('connection', count);
    }
    assert.equal(upstream.requests.length, 6);
    // The pool may open a second socket while the first is being handed back; never one per read.
    assert.ok(sockets <= 2, `${sockets} sockets for 6 reads`);
    assert.equal(upstream.requests[0]?.headers.host, `127.0.0.1:${upstream.port}`);
  });

  it('keeps at most max_in_flight requests open per connection', async () => {
    let open = 0;
    let peak = 0;
    upstream.handler = (_request, response) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open--;
        json(response, 200, { data: [{}] });
      }, 20);
    };
    const reader = connector({ max_in_flight: 2 });
    await Promise.all(Array.from({ length: 6 }, () => reader.read(LOOKUP)));
    reader.close();
    assert.equal(upstream.requests.length, 6);
    assert.equal(peak, 2);
  });
});
