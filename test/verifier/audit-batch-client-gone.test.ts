// A batch whose client goes away while its items are still read: as for a single evaluation, nothing it produces
// reaches anyone, so no item evaluation is kept, and the audit trail says so. The batch's event (499) is written
// when it is answered; the item events come after it, once the items end, and carry that answer, never a 200 for
// an evaluation nobody received.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answerLivingPerson, type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';
import { until } from '../helpers/wait-until.ts';

const item = (id: string) => ({
  target: { type: 'person', identifiers: [{ scheme: 'national_id', value: id }] },
});

describe('audit of a batch whose client went away', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let port: number;
  const held: ServerResponse[] = [];

  before(async () => {
    // FAKE-QUICK is answered at once, FAKE-HELD only when the test says so.
    upstream = await startFakeUpstream((request, response) => {
      const id = new URL(request.url ?? '', 'http://x').searchParams.get('national_id') ?? '';
      if (id === 'FAKE-HELD') held.push(response);
      else answerLivingPerson(response, id);
    });
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      // Far longer than the test: nothing here is answered by its time-out.
      edit: (text) => text.replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 20s\n'),
    });
    const address = await verifier.verifier.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  after(async () => {
    for (const response of held) response.destroy();
    await verifier?.close();
    await upstream?.close();
  });

  it('keeps no item evaluation and records every item with the answer the batch was given', async () => {
    const text = JSON.stringify({ items: [item('FAKE-QUICK'), item('FAKE-HELD')], claims: ['person_alive'] });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/batch-evaluations HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
    await until('the held read reaches the relay', () => held.length === 1);
    socket.destroy();
    const batchEvent = () =>
      verifier.auditRecords().find((record) => record.endpoint_kind === 'batch_evaluate');
    await until('the batch is audited', () => batchEvent() !== undefined);
    const batch = batchEvent() as Record<string, unknown>;
    assert.equal(batch.status, 499);
    assert.equal(batch.problem_code, 'http.client_closed');

    // The held read is answered now: both items end (one with its record read before the client left).
    answerLivingPerson(held[0] as ServerResponse, 'FAKE-HELD');
    const itemEvents = () =>
      verifier.auditRecords().filter((record) => record.endpoint_kind === 'batch_item');
    await until('the items are audited', () => itemEvents().length === 2);
    for (const event of itemEvents()) {
      assert.equal(event.request_id, batch.request_id);
      assert.equal(event.status, 499, `item ${event.input_index}`);
      assert.equal(event.decision, 'evaluate_denied', `item ${event.input_index}`);
      assert.equal(event.problem_code, 'http.client_closed', `item ${event.input_index}`);
      assert.ok(event.error_code, `item ${event.input_index} says why`);
    }
    // The item whose record was read had its evaluation built, but it is not kept: nobody can render it.
    const quick = itemEvents().find((event) => event.input_index === 0) as Record<string, unknown>;
    assert.equal(quick.source_read_count, 1);
    assert.equal(typeof quick.verification_id, 'string');
    const render = await verifier.post(`/v1/evaluations/${String(quick.verification_id)}/render`, {});
    assertProblem(render, 404, 'evaluation.not_found');
  });
});
