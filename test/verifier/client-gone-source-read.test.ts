// A client that closes its connection while its evaluation's read is on its way to the relay: the read is dropped
// there and then (the relay sees its connection close), and the connection's only max_in_flight slot serves the next
// evaluation, rather than staying taken until the attempt's own time-out.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answerLivingPerson, type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  auditOfRequest,
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';
import { until } from '../helpers/wait-until.ts';

const person = (id: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value: id }] });

describe('a client that goes away while its read is on its way to the relay', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let port: number;
  const held: string[] = [];
  const closed: string[] = [];

  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      const id = new URL(request.url ?? '', 'http://relay').searchParams.get('national_id') ?? '';
      if (id !== 'FAKE-gone') {
        answerLivingPerson(response, id);
        return;
      }
      // Never answered: only the verifier dropping the read ends it.
      held.push(id);
      response.on('close', () => closed.push(id));
    });
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      // One slot, and attempts and requests far longer than the test.
      edit: (text) =>
        text
          .replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 60s\n')
          .replace(
            '      allow_insecure_localhost: true\n',
            '      allow_insecure_localhost: true\n      max_in_flight: 1\n      timeout: 60s\n',
          ),
    });
    const address = await verifier.verifier.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  it('drops the read, audits the request as the client closing, and serves the next one', async () => {
    const text = JSON.stringify({ target: person('FAKE-gone'), claims: ['person_alive'] });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/evaluations HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\nx-request-id: gone\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
    await until('the read reaches the relay', () => held.length === 1);
    socket.destroy();

    await until('the relay sees the read dropped', () => closed.length === 1);
    const record = auditOfRequest(verifier, 'gone');
    assert.equal(record?.status, 499);
    assert.equal(record?.error_code, 'http.client_closed');
    assert.equal(record?.source_read_count, 1);

    const next = await verifier.evaluate(
      { target: person('FAKE-next'), claims: ['person_alive'] },
      { headers: { 'x-request-id': 'next' } },
    );
    assert.equal(next.statusCode, 200, next.body);
    assert.equal(auditOfRequest(verifier, 'next')?.source_read_count, 1);
  });
});
