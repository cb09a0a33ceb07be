// A keyed batch whose client went away before its answer keeps none of its evaluations: a retry under its
// Idempotency-Key (what a client whose own time-out ran out does) runs the batch afresh, and never replays a
// response nobody received, naming evaluations that were not kept.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { answerLivingPerson } from '../helpers/fake-upstream.ts';
import { until } from '../helpers/wait-until.ts';
import { batchItem as item, useHeldBatchSetup } from './held-batch-fixture.ts';

const BODY = { items: [item('FAKE-QUICK'), item('FAKE-HELD')], claims: ['person_alive'] };
const KEY = 'client-gave-up-then-retried';

describe('a keyed batch whose client went away', () => {
  const setup = useHeldBatchSetup();

  it('frees its key: the retry runs the batch again, and names evaluations that render', async () => {
    const socket = setup.sendBatch(BODY, { 'idempotency-key': KEY });
    await until('the held read reaches the relay', () => setup.held.length === 1);
    socket.destroy();
    await until('the batch is audited as its client left', () =>
      setup.verifier.auditRecords().some((record) => record.endpoint_kind === 'batch_evaluate'),
    );
    // The held read is answered now: the first request ends, its items with it.
    answerLivingPerson(setup.held[0] as ServerResponse, 'FAKE-HELD');
    await until('the items are audited', () =>
      setup.verifier.auditRecords().some((record) => record.endpoint_kind === 'batch_item'),
    );

    // While the first request is still ending, a retry is told to wait; then it gets an answer of its own.
    const headers = { 'idempotency-key': KEY };
    let retry = await setup.verifier.post('/v1/batch-evaluations', BODY, { headers });
    for (let attempt = 0; attempt < 200 && retry.statusCode === 409; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      retry = await setup.verifier.post('/v1/batch-evaluations', BODY, { headers });
    }
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry ran; nothing was replayed');
    const items = JSON.parse(retry.body).items as { status: string; evaluation_id?: string }[];
    assert.deepEqual(
      items.map((entry) => entry.status),
      ['succeeded', 'succeeded'],
    );
    for (const entry of items) {
      const render = await setup.verifier.post(`/v1/evaluations/${entry.evaluation_id}/render`, undefined);
      assert.equal(render.statusCode, 200, render.body);
    }
  });
});
