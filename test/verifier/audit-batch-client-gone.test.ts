// A batch whose client goes away while its items are still read: as for a single evaluation, nothing it produces
// reaches anyone, so no item evaluation is kept, and the audit trail says so. The batch's event (499) is written
// when it is answered; the item events come after it, once the items end, and carry that answer, never a 200 for
// an evaluation nobody received.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { answerLivingPerson } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { until } from '../helpers/wait-until.ts';
import { batchItem as item, useHeldBatchSetup } from './held-batch-fixture.ts';

describe('audit of a batch whose client went away', () => {
  const setup = useHeldBatchSetup();

  it('keeps no item evaluation and records every item with the answer the batch was given', async () => {
    const socket = setup.sendBatch({
      items: [item('FAKE-QUICK'), item('FAKE-HELD')],
      claims: ['person_alive'],
    });
    await until('the held read reaches the relay', () => setup.held.length === 1);
    socket.destroy();
    const batchEvent = () =>
      setup.verifier.auditRecords().find((record) => record.endpoint_kind === 'batch_evaluate');
    await until('the batch is audited', () => batchEvent() !== undefined);
    const batch = batchEvent() as Record<string, unknown>;
    assert.equal(batch.status, 499);
    assert.equal(batch.problem_code, 'http.client_closed');
    // The requests sent before it was answered count (the held one reached the relay), as its reads do.
    assert.ok(
      Number(batch.upstream_request_count) >= 1,
      `upstream_request_count ${batch.upstream_request_count}`,
    );
    assert.equal(batch.upstream_request_count, batch.source_read_count);

    // The held read is answered now: both items end (one with its record read before the client left).
    answerLivingPerson(setup.held[0] as ServerResponse, 'FAKE-HELD');
    const itemEvents = () =>
      setup.verifier.auditRecords().filter((record) => record.endpoint_kind === 'batch_item');
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
    const render = await setup.verifier.post(`/v1/evaluations/${String(quick.verification_id)}/render`, {});
    assertProblem(render, 404, 'evaluation.not_found');
  });
});
