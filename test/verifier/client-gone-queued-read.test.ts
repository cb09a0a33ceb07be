// A client that goes away while its read waits for a slot of the connection (`max_in_flight`): the read is never
// sent, and the slot goes to the requests still waiting for their answer.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  auditOfRequest,
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';
import { until } from '../helpers/wait-until.ts';

const person = (id: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value: id }] });

/** Sends an evaluation on a connection of its own, which the caller destroys before any answer. */
function sendThenHangUp(port: number, body: unknown, requestId: string, path = '/v1/evaluations') {
  const text = JSON.stringify(body);
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\nx-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  return socket;
}

/** Answers a held relay request with the record it asked for. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  const nationalId = new URL(String(request.url), 'http://relay').searchParams.get('national_id');
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ data: [{ national_id: nationalId, deceased: false }] }));
}

describe('a client that goes away while its read waits for the connection', () => {
  let upstream: FakeUpstream;
  const held: [IncomingMessage, ServerResponse][] = [];
  let verifier: TestVerifier;
  let port: number;
  let readsStarted = 0;

  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      held.push([request, response]);
    });
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      // Far longer than the test: nothing here is answered by its time-out. One request to the relay at a time.
      edit: (text) =>
        text
          .replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 20s\n')
          .replace(
            '      allow_insecure_localhost: true\n',
            '      allow_insecure_localhost: true\n      max_in_flight: 1\n',
          ),
    });
    const address = await verifier.verifier.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
    const reader = verifier.verifier.runtime.engine.reader;
    const read = reader.read;
    reader.read = (lookup) => {
      readsStarted++;
      return read.call(reader, lookup);
    };
  });
  after(async () => {
    for (const [, response] of held) response.destroy();
    await verifier?.close();
    await upstream?.close();
  });

  const auditOf = (clientRequestId: string) => auditOfRequest(verifier, clientRequestId);

  it('never sends the read, and the next request waiting gets the slot', async () => {
    const first = verifier.evaluate(
      { target: person('FAKE-first'), claims: ['person_alive'] },
      { headers: { 'x-request-id': 'first' } },
    );
    await until('the first read holds the only slot', () => held.length === 1);

    const gone = sendThenHangUp(port, { target: person('FAKE-gone'), claims: ['person_alive'] }, 'gone');
    await until('the read of the request that goes away waits for the slot', () => readsStarted === 2);
    gone.destroy();
    await until('the request that went away is audited', () => auditOf('gone') !== undefined);
    assert.equal(auditOf('gone')?.status, 499);

    const next = verifier.evaluate(
      { target: person('FAKE-next'), claims: ['person_alive'] },
      { headers: { 'x-request-id': 'next' } },
    );
    await until('the read of the next request waits for the slot', () => readsStarted === 3);

    // The slot comes free: the request that stayed is served next, and the one that went away is not read.
    answer(...(held[0] as [IncomingMessage, ServerResponse]));
    assert.equal((await first).statusCode, 200);
    await until('the next read reaches the relay', () => held.length === 2);
    const [request, response] = held[1] as [IncomingMessage, ServerResponse];
    assert.equal(request.headers['x-request-id'], 'next');
    answer(request, response);
    assert.equal((await next).statusCode, 200);
    assert.deepEqual(
      held.map(([sent]) => sent.headers['x-request-id']),
      ['first', 'next'],
    );
    assert.equal(auditOf('gone')?.source_read_count, 0);
  });

  it('sends no more reads of a batch whose client went away', async () => {
    held.length = 0;
    readsStarted = 0;
    const items = ['FAKE-b1', 'FAKE-b2', 'FAKE-b3'].map((id) => ({ target: person(id) }));
    const gone = sendThenHangUp(
      port,
      { items, claims: ['person_alive'] },
      'batch-gone',
      '/v1/batch-evaluations',
    );
    await until('the first read of the batch holds the only slot', () => held.length === 1);
    await until('the other reads of the batch wait for the slot', () => readsStarted === 3);
    gone.destroy();
    await until('the batch is audited', () => auditOf('batch-gone') !== undefined);

    const next = verifier.evaluate(
      { target: person('FAKE-after'), claims: ['person_alive'] },
      { headers: { 'x-request-id': 'after' } },
    );
    await until('the read of the next request waits for the slot', () => readsStarted === 4);
    answer(...(held[0] as [IncomingMessage, ServerResponse]));
    await until('the next read reaches the relay', () => held.length === 2);
    const [request, response] = held[1] as [IncomingMessage, ServerResponse];
    assert.equal(request.headers['x-request-id'], 'after');
    answer(request, response);
    assert.equal((await next).statusCode, 200);
    assert.equal(held.length, 2);
  });
});
