// POST /v1/evaluations on two real relays: CEL, exists and extract rules, disclosure, provenance, sub-claims.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ULID_PATTERN } from '../helpers/http-checks.ts';
import { CLAIM_RESULT, EVIDENCE_PURPOSE } from '../helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../relay/read-demo-data.ts';
import { person, rowReads, useEvaluations } from './evaluations-fixture.ts';

describe('verifier evaluations over two real relays', () => {
  const setup = useEvaluations();

  it('evaluates a CEL claim with predicate disclosure: the outcome only, never the row', async () => {
    const { verifier, alive, deceased } = setup;
    const response = await verifier.evaluate({ target: person(alive), claims: ['person_alive'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], CLAIM_RESULT);
    // A result is the caller's alone: no shared cache may keep it.
    assert.equal(response.headers['cache-control'], 'no-store');
    const { results } = JSON.parse(response.body);
    assert.equal(results.length, 1);
    const [result] = results;
    assert.match(result.evaluation_id, ULID_PATTERN);
    assert.deepEqual(
      {
        ...result,
        evaluation_id: undefined,
        issued_at: undefined,
        target_ref: undefined,
        provenance: undefined,
      },
      {
        evaluation_id: undefined,
        claim_id: 'person_alive',
        claim_version: '1',
        subject_type: 'person',
        target_ref: undefined,
        value: true,
        satisfied: true,
        disclosure: 'predicate',
        format: CLAIM_RESULT,
        issued_at: undefined,
        expires_at: null,
        provenance: undefined,
      },
    );
    assert.deepEqual(result.target_ref.identifier_schemes, ['national_id', 'person_id']);
    assert.match(result.target_ref.handle, /^amref:v1:[0-9a-f]{32}$/);
    assert.ok(!response.body.includes(String(alive.national_id)), 'no identifier in the response');
    assert.ok(!response.body.includes('deceased'), 'no source field in the response');
    assert.deepEqual(result.provenance, {
      schema_version: 'ambit-verifier-claim-provenance/v1',
      generated_by: {
        type: 'claim_evaluation',
        service_id: 'test.verifier',
        evaluation_id: result.evaluation_id,
        claim_id: 'person_alive',
        claim_version: '1',
      },
      used: { source_count: 1, source_versions: {} },
      derived_from: [],
    });

    const dead = JSON.parse(
      (await verifier.evaluate({ target: person(deceased), claims: ['person_alive'] })).body,
    );
    assert.equal(dead.results[0].satisfied, false);
  });

  it('evaluates exists and extract rules; value disclosure shows the extracted value', async () => {
    const { verifier, alive } = setup;
    const response = await verifier.evaluate({
      target: person(alive),
      claims: ['person_registered', { id: 'birth_date', version: '2' }],
      disclosure: 'value',
    });
    assert.equal(response.statusCode, 200, response.body);
    const [registered, birth] = JSON.parse(response.body).results;
    // person_registered allows predicate only and downgrades to redacted.
    assert.equal(registered.disclosure, 'redacted');
    assert.equal(registered.value, null);
    assert.equal(registered.satisfied, null);
    assert.deepEqual(registered.redacted_fields, ['person_registered']);
    assert.equal(birth.disclosure, 'value');
    assert.equal(birth.value, alive.birth_date);
    assert.equal(birth.satisfied, null);
    assert.equal(registered.evaluation_id, birth.evaluation_id);
  });

  it('composes sub-claims from two relays, each read with its own token: source_count 2', async () => {
    const { civil, social, verifier, enrolledHead, pendingHead } = setup;
    const civilBefore = rowReads(civil).length;
    const socialBefore = rowReads(social).length;
    const response = await verifier.evaluate(
      { target: person(enrolledHead), claims: ['eligible'] },
      { headers: { 'x-request-id': 'corr-eligible-1' } },
    );
    assert.equal(response.statusCode, 200, response.body);
    const [result] = JSON.parse(response.body).results;
    assert.equal(result.satisfied, true);
    assert.equal(result.provenance.used.source_count, 2);
    assert.deepEqual(result.provenance.derived_from, [
      { claim_id: 'person_alive', claim_version: '1' },
      { claim_id: 'household_enrolled', claim_version: '1' },
    ]);
    const civilReads = rowReads(civil).slice(civilBefore);
    const socialReads = rowReads(social).slice(socialBefore);
    assert.equal(civilReads.length, 1);
    assert.equal(socialReads.length, 1);
    assert.equal(civilReads[0]?.principal_id, 'verifier_service');
    assert.equal(socialReads[0]?.principal_id, 'caseworker');
    assert.equal(civilReads[0]?.dataset_id, 'civil_registry');
    assert.equal(socialReads[0]?.dataset_id, 'social_protection');
    for (const read of [...civilReads, ...socialReads]) {
      assert.equal(read.purpose, EVIDENCE_PURPOSE);
      assert.equal(read.client_request_id, 'corr-eligible-1');
      assert.equal(read.row_count, 1);
    }

    const pending = JSON.parse(
      (await verifier.evaluate({ target: person(pendingHead), claims: ['eligible'] })).body,
    );
    assert.equal(pending.results[0].satisfied, false);
  });

  it('binds target attributes into ctx for CEL (integer arithmetic)', async () => {
    const { verifier, enrolledHead } = setup;
    const data = await readDemoData();
    const household = data.households.find(
      (row) => row.head_of_household_person_id === enrolledHead.person_id,
    ) as Row;
    const target = { ...person(enrolledHead), attributes: { newborns: 2 } };
    const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(JSON.parse(response.body).results[0].value, Number(household.household_size) + 2);
  });
});
