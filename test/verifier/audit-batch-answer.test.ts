// The item events of a batch say what its caller received. A batch whose result is replaced after its items ended
// (its own audit record could not be written) answered nobody with those items: the trail must not hold them as
// evaluations answered with 200. One whose Idempotency-Key could not be kept for replay once its records were
// written answers as they say.
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

type StoreCall = (...args: unknown[]) => Promise<void>;

describe('audit of a batch answered otherwise than with its result', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let store: { putMany: StoreCall };
  let putMany: StoreCall;
  before(async () => {
    upstream = await startFakeUpstream(oneLivingPerson);
    verifier = await startTestVerifier({ relays: { civil: upstream.url } });
    store = verifier.verifier.runtime.store as unknown as { putMany: StoreCall };
    putMany = store.putMany.bind(store);
  });
  after(async () => {
    store.putMany = putMany;
    await verifier?.close();
    await upstream.close();
  });

  it('writes no item event of a batch whose own record could not be written', async () => {
    // Once the batch's items have ended (and are stored), its audit file goes away and its path can no longer be
    // opened (a directory stands there): every later write fails. What the file held by then is kept to be read.
    let trail = '';
    store.putMany = async (...args) => {
      await putMany(...args);
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

describe('audit of a batch whose key could not be kept for replay', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream(oneLivingPerson);
    verifier = await startTestVerifier({ relays: { civil: upstream.url } });
    const store = verifier.verifier.runtime.store as unknown as { completeIdempotent: StoreCall };
    store.completeIdempotent = async () => {
      throw verifierProblem('state.unavailable', 'The state store is unavailable; retry later.');
    };
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  it('answers what its records say: the result, each item answered', async () => {
    // The key is kept only once the records are written: the answer they record is the one sent.
    const answer = await verifier.post('/v1/batch-evaluations', BATCH, {
      headers: { 'idempotency-key': 'audit-batch-answer-2' },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const records = verifier.auditRecords();
    const batch = records.find((record) => record.endpoint_kind === 'batch_evaluate');
    assert.equal(batch?.status, 200);
    assert.equal(batch?.batch_id, JSON.parse(answer.body).batch_id);
    const items = records.filter((record) => record.endpoint_kind === 'batch_item');
    assert.equal(items.length, 2);
    for (const item of items) {
      assert.equal(item.status, 200, `item ${item.input_index}`);
      assert.equal(item.decision, 'evaluate', `item ${item.input_index}`);
      assert.equal(item.source_read_count, 1, `item ${item.input_index} keeps its reads`);
    }
    // The items come first, then the batch: one chain, in that order.
    assert.deepEqual(
      records.map((record) => record.endpoint_kind),
      ['batch_item', 'batch_item', 'batch_evaluate'],
    );
  });
});

describe('audit of a batch whose evaluations could not be stored', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream(oneLivingPerson);
    verifier = await startTestVerifier({ relays: { civil: upstream.url } });
    const store = verifier.verifier.runtime.store as unknown as { putMany: StoreCall };
    store.putMany = async () => {
      throw verifierProblem('state.unavailable', 'The state store is unavailable; retry later.');
    };
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  it('records every item with the answer the batch was given', async () => {
    const answer = await verifier.post('/v1/batch-evaluations', BATCH, {
      headers: { 'idempotency-key': 'audit-batch-answer-3' },
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
    assert.deepEqual(
      records.map((record) => record.endpoint_kind),
      ['batch_item', 'batch_item', 'batch_evaluate'],
    );
  });
});
