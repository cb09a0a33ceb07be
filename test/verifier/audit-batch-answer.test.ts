// The item events of a batch say what its caller received. A batch whose result is replaced after its items ended
// (its own audit record could not be written, or its Idempotency-Key could not be completed) answered nobody with
// those items: the trail must not hold them as evaluations answered with 200.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { verifierProblem } from '../../src/verifier/problems.ts';
import { oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const BATCH = { items: [{ target: TARGET }, { target: TARGET }], claims: ['person_alive'] };

type CompleteIdempotent = (...args: unknown[]) => Promise<void>;

describe('audit of a batch answered otherwise than with its result', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let store: { completeIdempotent: CompleteIdempotent };
  let complete: CompleteIdempotent;
  before(async () => {
    upstream = await startFakeUpstream(oneLivingPerson);
    verifier = await startTestVerifier({ relays: { civil: upstream.url } });
    store = verifier.verifier.runtime.store as unknown as { completeIdempotent: CompleteIdempotent };
    complete = store.completeIdempotent.bind(store);
  });
  after(async () => {
    store.completeIdempotent = complete;
    await verifier?.close();
    await upstream.close();
  });

  it('writes no item event of a batch whose own record could not be written', async () => {
    // Once the batch's items have ended, its audit file goes away and its path can no longer be opened (a
    // directory stands there): every later write fails. What the file held by then is kept to be read.
    let trail = '';
    store.completeIdempotent = async (...args) => {
      await complete(...args);
      trail = readFileSync(verifier.auditPath, 'utf8');
      unlinkSync(verifier.auditPath);
      mkdirSync(verifier.auditPath);
    };
    const answer = await verifier.post('/v1/batch-evaluations', BATCH, {
      headers: { 'idempotency-key': 'audit-batch-answer-1' },
    });
    assertProblem(answer, 500, 'audit.write_failed');
    const records = trail
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line).record as Record<string, unknown>);
    assert.deepEqual(
      records.filter((record) => record.endpoint_kind === 'batch_item'),
      [],
      'an item event without the batch event it belongs to',
    );
  });
});

describe('audit of a batch whose key could not be completed', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream(oneLivingPerson);
    verifier = await startTestVerifier({ relays: { civil: upstream.url } });
    const store = verifier.verifier.runtime.store as unknown as { completeIdempotent: CompleteIdempotent };
    store.completeIdempotent = async () => {
      throw verifierProblem('state.unavailable', 'The state store is unavailable; retry later.');
    };
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  it('records every item with the answer the batch was given', async () => {
    const answer = await verifier.post('/v1/batch-evaluations', BATCH, {
      headers: { 'idempotency-key': 'audit-batch-answer-2' },
    });
    assertProblem(answer, 503, 'state.unavailable');
    const records = verifier.auditRecords();
    const batch = records.find((record) => record.endpoint_kind === 'batch_evaluate');
    assert.equal(batch?.status, 503);
    const items = records.filter((record) => record.endpoint_kind === 'batch_item');
    assert.equal(items.length, 2);
    for (const item of items) {
      assert.equal(item.status, 503, `item ${item.input_index}`);
      assert.equal(item.decision, 'evaluate_denied', `item ${item.input_index}`);
      assert.equal(item.problem_code, 'state.unavailable', `item ${item.input_index}`);
      assert.equal(item.source_read_count, 1, `item ${item.input_index} keeps its reads`);
    }
    // The items come first, then the batch: one chain, in that order.
    assert.deepEqual(
      records.map((record) => record.endpoint_kind),
      ['batch_item', 'batch_item', 'batch_evaluate'],
    );
  });
});
