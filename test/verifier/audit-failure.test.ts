// A failed audit write under `write_policy: fail_closed` (the default): the verifier answers 500
// `audit.write_failed` (verifier contract §2.12, §6), never the result it could not record.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { countingReads, oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

/** The harness config with its audit records written to /dev/full, where every write fails (ENOSPC). */
const auditToDevFull = (text: string) => text.replace(/^( {2}path: ).*$/m, '$1/dev/full');

describe('verifier audit write failures', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const counted = countingReads(oneLivingPerson);
  const reads = counted.reads;
  before(async () => {
    assert.ok(existsSync('/dev/full'), 'the test writes its audit records to /dev/full');
    upstream = await startFakeUpstream(counted.handler);
    const url = upstream.url;
    verifier = await startTestVerifier({ relays: { civil: url }, edit: auditToDevFull });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  it('answers 500 audit.write_failed instead of an evaluation, a batch or a catalogue', async () => {
    const evaluation = await verifier.evaluate({ target: TARGET, claims: ['person_alive'] });
    const batch = await verifier.post(
      '/v1/batch-evaluations',
      { items: [{ target: TARGET }], claims: ['person_alive'] },
      { headers: { 'idempotency-key': 'audit-failure-1' } },
    );
    const claims = await verifier.get('/v1/claims', { as: 'full' });
    for (const response of [evaluation, batch, claims]) {
      const problem = assertProblem(response, 500, 'audit.write_failed');
      assert.equal(problem.detail, 'The audit record could not be written.');
      assert.doesNotMatch(response.body, /satisfied|evaluation_id|person_alive|FAKE-1/);
    }
    // A denial is recorded too, so it fails alike.
    assertProblem(
      await verifier.get('/v1/claims', { headers: { 'x-api-key': 'nope' } }),
      500,
      'audit.write_failed',
    );
    // Unaudited probes still answer.
    assert.equal((await verifier.get('/healthz')).statusCode, 200);
  });

  it('withdraws the Idempotency-Key of a batch whose audit records could not be written', async () => {
    // The batch completed its key before its records (its items' and its own, one append) failed.
    const request = { items: [{ target: TARGET }], claims: ['person_alive'] };
    const headers = { 'idempotency-key': 'audit-failure-after-items' };
    for (let attempt = 1; attempt <= 2; attempt++) {
      const before = reads();
      const answer = await verifier.post('/v1/batch-evaluations', request, { headers });
      assertProblem(answer, 500, 'audit.write_failed');
      assert.doesNotMatch(answer.body, /satisfied|evaluation_id/);
      // The retry runs the batch again (a source read, and it fails alike): no replay of what nobody received.
      assert.equal(reads(), before + 1, `attempt ${attempt} read its source`);
      // The withdrawal runs as the problem is written; let it land before the retry.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
});
