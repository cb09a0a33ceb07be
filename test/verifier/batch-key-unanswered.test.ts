// A keyed batch whose client went away before its answer keeps none of its evaluations: a retry under its
// Idempotency-Key (what a client whose own time-out ran out does) runs the batch afresh, and never replays a
// response nobody received, naming evaluations that were not kept.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answerLivingPerson, type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
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
const BODY = { items: [item('FAKE-QUICK'), item('FAKE-HELD')], claims: ['person_alive'] };
const KEY = 'client-gave-up-then-retried';

describe('a keyed batch whose client went away', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let port: number;
  // The first read of FAKE-HELD waits here until the test answers it; every other read is answered at once.
  const held: ServerResponse[] = [];

  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      const id = new URL(request.url ?? '', 'http://x').searchParams.get('national_id') ?? '';
      if (id === 'FAKE-HELD' && held.length === 0) held.push(response);
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

  it('frees its key: the retry runs the batch again, and names evaluations that render', async () => {
    const text = JSON.stringify(BODY);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/batch-evaluations HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\nidempotency-key: ${KEY}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
    await until('the held read reaches the relay', () => held.length === 1);
    socket.destroy();
    await until('the batch is audited as its client left', () =>
      verifier.auditRecords().some((record) => record.endpoint_kind === 'batch_evaluate'),
    );
    // The held read is answered now: the first request ends, its items with it.
    answerLivingPerson(held[0] as ServerResponse, 'FAKE-HELD');
    await until('the items are audited', () =>
      verifier.auditRecords().some((record) => record.endpoint_kind === 'batch_item'),
    );

    // While the first request is still ending, a retry is told to wait; then it gets an answer of its own.
    const headers = { 'idempotency-key': KEY };
    let retry = await verifier.post('/v1/batch-evaluations', BODY, { headers });
    for (let attempt = 0; attempt < 200 && retry.statusCode === 409; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      retry = await verifier.post('/v1/batch-evaluations', BODY, { headers });
    }
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry ran; nothing was replayed');
    const items = JSON.parse(retry.body).items as { status: string; evaluation_id?: string }[];
    assert.deepEqual(
      items.map((entry) => entry.status),
      ['succeeded', 'succeeded'],
    );
    for (const entry of items) {
      const render = await verifier.post(`/v1/evaluations/${entry.evaluation_id}/render`, undefined);
      assert.equal(render.statusCode, 200, render.body);
    }
  });
});
