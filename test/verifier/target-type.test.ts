// A claim is about one kind of subject (`subject_type`): a target of another type is refused before any read, as
// its lookup would find whatever record holds the identifier, whoever it belongs to.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

describe('a target of another type than the claim', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let reads = 0;
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      reads++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    verifier = await startTestVerifier({ relays: { civil: upstream.url, social: upstream.url } });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  const identifiers = [{ scheme: 'national_id', value: 'FAKE-1' }];

  it('is 400 target.type_mismatch naming the claim, and reads nothing', async () => {
    const before = reads;
    const refused = await verifier.evaluate({
      target: { type: 'organisation', identifiers },
      claims: ['person_alive'],
    });
    assert.equal(refused.statusCode, 400, refused.body);
    const problem = refused.json();
    assert.equal(problem.code, 'target.type_mismatch');
    assert.equal(problem.claim_id, 'person_alive');
    assert.equal(reads, before, 'no source read');
    // The type is compared as written.
    const cased = await verifier.evaluate({
      target: { type: 'Person', identifiers },
      claims: ['person_alive'],
    });
    assert.equal(cased.json().code, 'target.type_mismatch');
    const person = await verifier.evaluate({
      target: { type: 'person', identifiers },
      claims: ['person_alive'],
    });
    assert.equal(person.statusCode, 200, person.body);
  });

  it('fails only its own item in a batch', async () => {
    const batch = await verifier.post('/v1/batch-evaluations', {
      items: [{ target: { type: 'person', identifiers } }, { target: { type: 'household', identifiers } }],
      claims: ['person_alive'],
    });
    assert.equal(batch.statusCode, 200, batch.body);
    const [first, second] = batch.json().items;
    assert.equal(first.status, 'succeeded');
    assert.equal(second.status, 'failed');
    assert.deepEqual(
      second.errors.map((error: { code: string }) => error.code),
      ['target.type_mismatch'],
    );
  });
});
