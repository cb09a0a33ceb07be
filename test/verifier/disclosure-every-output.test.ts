// A claim's disclosure level bounds everything an evaluation answers, not only `value`: a `predicate` parent over
// `value` sub-claims, a redacted one, and a rule that fails on what the record holds leave no record value in the
// answer, its provenance, the CCCEV graph, a render, a batch item, the audit trail or the log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { CCCEV, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

/** Record values no answer below may carry: each appears in the source record only. */
const BIRTH = '1961-07-14';
const NOTE = 'note-7f3a9c';
const SIZE = 7391;

const binding = (fields: string) => `
      source_bindings:
        person:
          connector: registry_data_api
          connection: relay_civil
          required_scope: civil:evidence
          dataset: civil_registry
          entity: persons
          lookup: { input: target.identifiers.national_id, field: national_id }
          fields: [${fields}]`;

const CLAIMS = `
    - id: born
      title: Date of birth
      version: "1"
      subject_type: person
      value: { type: date }${binding('birth_date')}
      rule: { type: extract, source: person, field: birth_date }
      disclosure: { default: value, allowed: [value, redacted] }
      operations: { batch_evaluate: { enabled: true } }
    - id: size
      title: Household size
      version: "1"
      subject_type: person
      value: { type: integer }${binding('household_size')}
      rule: { type: extract, source: person, field: household_size }
      disclosure: { default: value, allowed: [value] }
    - id: born_early
      title: Born before 1970 in a household of more than one
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [born, size]
      rule: { type: cel, expression: "claims.born.value < '1970-01-01' && claims.size.value > 1" }
      disclosure: { default: predicate, allowed: [predicate, redacted] }
      operations: { batch_evaluate: { enabled: true } }
    - id: note_as_predicate
      title: Returns the note where a boolean is due
      version: "1"
      subject_type: person
      value: { type: boolean }${binding('note')}
      rule: { type: cel, expression: "source.person.note" }
      disclosure: { default: predicate, allowed: [predicate] }
    - id: note_in_error
      title: Fails on the note
      version: "1"
      subject_type: person
      value: { type: boolean }${binding('note')}
      rule: { type: cel, expression: "int(source.person.note) > 0" }
      disclosure: { default: redacted, allowed: [redacted] }
`;

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

function assertNoRecordValue(text: string, where: string): void {
  for (const secret of [BIRTH, NOTE, String(SIZE)]) {
    assert.ok(!text.includes(secret), `${where} holds the record value ${secret}: ${text}`);
  }
}

describe('disclosure bounds every output', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const row = {
        national_id: 'FAKE-1',
        deceased: false,
        birth_date: BIRTH,
        household_size: SIZE,
        note: NOTE,
      };
      response.end(JSON.stringify({ data: [row] }));
    });
    verifier = await startTestVerifier({
      relays: { civil: upstream.url, social: upstream.url },
      edit: (text) => `${text}${CLAIMS}`,
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  it('a predicate parent over value sub-claims states whether it holds, in JSON, CCCEV, render and batch', async () => {
    const json = await verifier.evaluate({ target: TARGET, claims: ['born_early'] });
    assert.equal(json.statusCode, 200, json.body);
    const [result] = JSON.parse(json.body).results;
    assert.equal(result.disclosure, 'predicate');
    assert.equal(result.value, true);
    assert.equal(result.satisfied, true);
    assert.deepEqual(
      result.provenance.derived_from.map((entry: { claim_id: string }) => entry.claim_id),
      ['born', 'size'],
    );
    assertNoRecordValue(json.body, 'the answer');

    const cccev = await verifier.evaluate(
      { target: TARGET, claims: ['born_early'] },
      { headers: { accept: CCCEV } },
    );
    assert.equal(cccev.statusCode, 200, cccev.body);
    assert.match(cccev.body, /cccev:supportsValue/);
    assertNoRecordValue(cccev.body, 'the CCCEV graph');
    const id = JSON.parse(cccev.body)['@graph'][0]['dcterms:identifier'];
    const rendered = await verifier.post(`/v1/evaluations/${id}/render`, {}, { headers: { accept: CCCEV } });
    assert.equal(rendered.statusCode, 200, rendered.body);
    assertNoRecordValue(rendered.body, 'the render');

    const batch = await verifier.post('/v1/batch-evaluations', {
      items: [{ target: TARGET }],
      claims: ['born_early', 'born'],
      disclosure: 'redacted',
    });
    assert.equal(batch.statusCode, 200, batch.body);
    const results = JSON.parse(batch.body).items[0].claim_results;
    assert.deepEqual(
      results.map((entry: Record<string, unknown>) => [entry.disclosure, entry.value, entry.satisfied]),
      [
        ['redacted', null, null],
        ['redacted', null, null],
      ],
    );
    assertNoRecordValue(batch.body, 'the batch');
  });

  it('a rule that yields or fails on a record value answers 500 without it', async () => {
    for (const claim of ['note_as_predicate', 'note_in_error']) {
      const response = await verifier.evaluate({ target: TARGET, claims: [claim] });
      assert.equal(response.statusCode, 500, response.body);
      assert.equal(JSON.parse(response.body).code, 'claim.rule_evaluation_failed');
      assertNoRecordValue(response.body, `the problem of ${claim}`);
    }
  });

  it('the audit trail holds no record value', async () => {
    const records = verifier.auditRecords();
    assert.ok(records.some((record) => record.claim_ids?.toString().includes('born_early')));
    assertNoRecordValue(JSON.stringify(records), 'the audit trail');
  });
});
