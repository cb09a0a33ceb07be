// A body `format` is read as the same value in `Accept` is: a `charset=utf-8` parameter is met (every answer is
// UTF-8) and the cccev `profile` is compared by meaning, on evaluations, renders and batches alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countingReads, nationalIdTable } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { CCCEV, CLAIM_RESULT, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'A1' }] };
const RESULT_UTF8 = `${CLAIM_RESULT}; charset=utf-8`;
const CCCEV_UTF8 = [
  `${CCCEV}; charset=utf-8`,
  'application/ld+json; charset=UTF-8; profile=cccev',
  'application/ld+json;profile="CCCEV";charset="utf-8"',
];

describe('body format with media-type parameters', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const counted = countingReads(nationalIdTable([{ national_id: 'A1', deceased: false }]));
  const reads = counted.reads;

  before(async () => {
    upstream = await startFakeUpstream(counted.handler);
    verifier = await startTestVerifier({ relays: { civil: upstream.url, social: upstream.url } });
  });

  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  it('answers a body format with charset=utf-8 as Accept with it is answered', async () => {
    const acceptHeaders: Record<string, string>[] = [{}, { accept: RESULT_UTF8 }];
    for (const headers of acceptHeaders) {
      const response = await verifier.evaluate(
        { target: TARGET, claims: ['person_alive'], format: RESULT_UTF8 },
        { headers },
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], CLAIM_RESULT);
      assert.equal(JSON.parse(response.body).results[0].format, CLAIM_RESULT);
    }
    for (const format of CCCEV_UTF8) {
      const response = await verifier.evaluate({ target: TARGET, claims: ['person_alive'], format });
      assert.equal(response.statusCode, 200, `${format}: ${response.body}`);
      assert.equal(response.headers['content-type'], CCCEV);
      const id = JSON.parse(response.body)['@graph'][0]['dcterms:identifier'];
      // The render takes the same body format.
      const rendered = await verifier.post(`/v1/evaluations/${id}/render`, { format });
      assert.equal(rendered.statusCode, 200, rendered.body);
      assert.equal(rendered.body, response.body);
    }
  });

  it('takes a batch body format with charset=utf-8, binding its evaluations to the format named', async () => {
    const response = await verifier.post('/v1/batch-evaluations', {
      items: [{ target: TARGET }],
      claims: ['person_alive'],
      format: CCCEV_UTF8[1],
    });
    assert.equal(response.statusCode, 200, response.body);
    const batch = JSON.parse(response.body);
    assert.equal(batch.format, CCCEV);
    const rendered = await verifier.post(`/v1/evaluations/${batch.items[0].evaluation_id}/render`, {
      format: CCCEV,
    });
    assert.equal(rendered.statusCode, 200, rendered.body);
  });

  it('still refuses (406, before any read) another charset, another profile, or a format the claim lacks', async () => {
    const before = reads();
    for (const format of [
      `${CLAIM_RESULT}; charset=iso-8859-1`,
      'application/ld+json; charset=utf-8',
      'application/ld+json; charset=utf-8; profile=other',
    ]) {
      const response = await verifier.evaluate({ target: TARGET, claims: ['person_alive'], format });
      const problem = assertProblem(response, 406, 'claim.format_not_supported');
      assert.match(String(problem.detail), /body `format` is not a result format/, format);
    }
    // Accept must permit the body format, parameters or not.
    const excluded = await verifier.evaluate(
      { target: TARGET, claims: ['person_alive'], format: CCCEV_UTF8[0] },
      { headers: { accept: RESULT_UTF8 } },
    );
    assertProblem(excluded, 406, 'claim.format_not_supported');
    // birth_date offers the claim-result format only: a CCCEV body format is a result format, but not the claim's.
    for (const format of CCCEV_UTF8) {
      const response = await verifier.evaluate({ target: TARGET, claims: ['birth_date'], format });
      const problem = assertProblem(response, 406, 'claim.format_not_supported');
      assert.match(String(problem.detail), /birth_date/, format);
    }
    assert.equal(reads(), before, 'a refused evaluation reads() nothing');
  });
});
