// A claim over a sub-claim limited to one purpose is evaluated for that purpose only, and discovery says so: a
// client reading the summary learns the purpose to send before a request is refused for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answerLivingPerson, type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const AUDIT = 'https://demo.example.gov/purpose/audit';

const PARENT = `
    - id: audited_alive
      title: Alive, from the audit-only registration
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [audit_only, person_alive]
      rule: { type: cel, expression: "claims.audit_only.value && claims.person_alive.value" }
      disclosure: { default: predicate, allowed: [predicate] }
`;

describe('a composite claim over a sub-claim limited to one purpose', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

  before(async () => {
    upstream = await startFakeUpstream((_request, response) => answerLivingPerson(response, 'FAKE-1'));
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      edit: (text) => `${text}${PARENT}`,
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  it('states the purpose in its summary, and is evaluated for it alone', async () => {
    const summary = JSON.parse((await verifier.get('/v1/claims/audited_alive', { as: 'full' })).body);
    assert.equal(summary.purpose, AUDIT);
    const listed = JSON.parse((await verifier.get('/v1/claims', { as: 'full' })).body).data;
    assert.equal(listed.find((claim: { id: string }) => claim.id === 'audited_alive')?.purpose, AUDIT);
    // A claim limited to no purpose has none in its summary.
    const alive = JSON.parse((await verifier.get('/v1/claims/person_alive', { as: 'full' })).body);
    assert.equal(Object.hasOwn(alive, 'purpose'), false);

    const refused = assertProblem(
      await verifier.evaluate({ target, claims: ['audited_alive'] }),
      403,
      'purpose.not_allowed',
    );
    assert.equal(refused.claim_id, 'audited_alive');
    const response = await verifier.evaluate(
      { target, claims: ['audited_alive'] },
      { headers: { 'data-purpose': AUDIT } },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(JSON.parse(response.body).results[0].satisfied, true);
  });
});
