// A claim summary's `batch_max_subjects` is the batch size the verifier accepts for the claim: a client sizing its
// batches by it is never answered 413, whether the claim's own `max_subjects` or `evidence.inline_batch_limit` is
// the smaller.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000001' }] };

describe('verifier batch size in claim summaries', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
      edit: (text) =>
        text.replace(
          '  service_id: test.verifier\n',
          '  service_id: test.verifier\n  inline_batch_limit: 2\n',
        ),
    });
  });
  after(() => verifier?.close());

  const summaries = async (): Promise<Map<string, Record<string, unknown>>> => {
    const response = await verifier.get('/v1/claims', { as: 'full' });
    assert.equal(response.statusCode, 200, response.body);
    const claims = JSON.parse(response.body).data as Record<string, unknown>[];
    return new Map(claims.map((claim) => [String(claim.id), claim]));
  };

  it('states the smaller of the claim limit and the inline batch limit, as the batch route enforces', async () => {
    const listed = await summaries();
    // person_alive allows 100 per batch and person_registered 3; the deployment takes 2 at most.
    for (const id of ['person_alive', 'person_registered']) {
      assert.equal(listed.get(id)?.batch_max_subjects, 2, id);
      const single = JSON.parse((await verifier.get(`/v1/claims/${id}`, { as: 'full' })).body);
      assert.equal(single.batch_max_subjects, 2, id);
      const over = await verifier.post('/v1/batch-evaluations', {
        items: [{ target: TARGET }, { target: TARGET }, { target: TARGET }],
        claims: [id],
      });
      assert.equal(assertProblem(over, 413, 'batch.too_large').max_items, 2, id);
    }
    const envelope = JSON.parse((await verifier.get('/.well-known/evidence-service', { as: 'full' })).body);
    const inEnvelope = (envelope.claims as Record<string, unknown>[]).find(
      (claim) => claim.id === 'person_alive',
    );
    assert.equal(inEnvelope?.batch_max_subjects, 2);
    assert.equal(envelope.batch.max_inline_subjects, 2);
  });
});
