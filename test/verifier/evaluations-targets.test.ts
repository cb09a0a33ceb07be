// POST /v1/evaluations on two real relays: targets refused before any read, the largest taken, unknown ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { person, rowReads, useEvaluations } from './evaluations-fixture.ts';

describe('verifier evaluations over two real relays', () => {
  const setup = useEvaluations();

  it('requires the target attributes a CEL rule reads (400 before any read, instead of a rule failure)', async () => {
    const { social, verifier, enrolledHead } = setup;
    const reads = rowReads(social).length;
    for (const attributes of [undefined, {}, { newborns: null }, { newborns: '  ' }]) {
      const target = { ...person(enrolledHead), ...(attributes === undefined ? {} : { attributes }) };
      const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
      const problem = assertProblem(response, 400, 'target.identifier_missing');
      assert.match(String(problem.detail), /target\.attributes\.newborns/);
    }
    assert.equal(rowReads(social).length, reads, 'no source read happens');
  });

  it('refuses a target attribute of another type than the claim declares (400 before any read, not a 500)', async () => {
    const { social, verifier, enrolledHead } = setup;
    const reads = rowReads(social).length;
    for (const newborns of ['two', true, 2.5, '2']) {
      const target = { ...person(enrolledHead), attributes: { newborns } };
      const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
      const problem = assertProblem(response, 400, 'request.invalid');
      assert.match(String(problem.detail), /`target\.attributes\.newborns` must be of type integer/);
    }
    assert.equal(rowReads(social).length, reads, 'no source read happens');
  });

  it('takes a target as large as the request limits allow into a CEL rule (the rule input limit bounds sourced data)', async () => {
    const { verifier, enrolledHead } = setup;
    // 32 attributes of 1,024 control characters: about 200 KB as JSON, over cel.max_binding_json_bytes (64 KiB).
    const attributes: Record<string, string | number> = { newborns: 1 };
    for (let index = 1; index < 32; index++) attributes[`note_${index}`] = '\u0001'.repeat(1024);
    const target = { ...person(enrolledHead), attributes };
    const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
    assert.equal(response.statusCode, 200, response.body);
    const tooMany = { ...target, attributes: { ...attributes, note_32: 'x' } };
    const refused = assertProblem(
      await verifier.evaluate({ target: tooMany, claims: ['household_size_plus'] }),
      400,
      'request.invalid',
    );
    assert.match(String(refused.detail), /target\.attributes/);
  });

  it('takes target attributes named like JavaScript object members (constructor) into a CEL rule, not a 500', async () => {
    const { verifier, enrolledHead } = setup;
    const evaluate = async (attributes: Record<string, string | number>) => {
      const target = { ...person(enrolledHead), attributes };
      const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
      assert.equal(response.statusCode, 200, response.body);
      return JSON.parse(response.body).results[0].value;
    };
    const plain = await evaluate({ newborns: 1 });
    assert.equal(await evaluate({ newborns: 1, constructor: 'x', toString: 'y' }), plain);
  });

  it('refuses an identifier over 1,024 bytes in UTF-8 (400), which no relay URL could carry, before any read', async () => {
    const { civil, verifier } = setup;
    const reads = rowReads(civil).length;
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: '\u4e2d'.repeat(400) }] };
    const problem = assertProblem(
      await verifier.evaluate({ target, claims: ['person_alive'] }),
      400,
      'request.invalid',
    );
    assert.match(String(problem.detail), /target\.identifiers\.0\.value.*1024 bytes/);
    assert.equal(rowReads(civil).length, reads);
    // 1,024 bytes exactly is a value like any other (here: no such person).
    const largest = {
      type: 'person',
      identifiers: [{ scheme: 'national_id', value: `${'\u4e2d'.repeat(341)}x` }],
    };
    assertProblem(
      await verifier.evaluate({ target: largest, claims: ['person_alive'] }),
      409,
      'evidence.not_available',
    );
  });

  it('answers 409 evidence.not_available for an unknown subject, with the precise reason only in audit', async () => {
    const { verifier } = setup;
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] };
    const response = await verifier.evaluate({ target, claims: ['person_alive'] });
    const body = assertProblem(response, 409, 'evidence.not_available');
    assert.ok(!response.body.includes('target.not_found'));
    assert.ok(!response.body.includes('FAKE-000000'));
    const record = verifier.auditRecords().find((entry) => entry.request_id === body.request_id);
    assert.equal(record?.error_code, 'target.not_found');
    assert.equal(record?.problem_code, 'evidence.not_available');
    assert.equal(record?.decision, 'evaluate_denied');
    assert.equal(record?.source_read_count, 1);
  });

  it('gives identifiers of one value issued by different countries different handles', async () => {
    const { verifier, alive } = setup;
    const handleOf = async (qualifiers: Record<string, string>) => {
      const identifiers = [{ scheme: 'national_id', value: String(alive.national_id), ...qualifiers }];
      const response = await verifier.evaluate({
        target: { type: 'person', identifiers },
        claims: ['person_alive'],
      });
      assert.equal(response.statusCode, 200, response.body);
      return JSON.parse(response.body).results[0].target_ref.handle as string;
    };
    const plain = await handleOf({});
    const french = await handleOf({ country: 'FR' });
    assert.notEqual(french, plain);
    assert.notEqual(await handleOf({ country: 'DE' }), french);
    assert.notEqual(await handleOf({ issuer: 'https://civil.example' }), plain);
    assert.equal(await handleOf({ country: 'fr' }), french);
  });
});
