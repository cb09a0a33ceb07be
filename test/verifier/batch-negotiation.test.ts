// POST /v1/batch-evaluations and Accept: the envelope is UTF-8 JSON, so an Accept that names application/json
// with `charset=utf-8` (as many HTTP clients send it) is answered, and one that refuses JSON is still 406.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countingReads, nationalIdTable } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { CCCEV, CLAIM_RESULT, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const BATCH = '/v1/batch-evaluations';
const BODY = {
  items: [{ target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'A1' }] } }],
  claims: ['person_alive'],
};

describe('batch evaluations and Accept', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const counted = countingReads(nationalIdTable([{ national_id: 'A1', deceased: false }]));
  const reads = counted.reads;

  before(async () => {
    upstream = await startFakeUpstream(counted.handler);
    const url = upstream.url;
    verifier = await startTestVerifier({ relays: { civil: url, social: url } });
  });

  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  it('answers an Accept naming application/json with charset=utf-8, in any case and spacing', async () => {
    for (const accept of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'text/html, application/json; charset=utf-8;q=0.5',
    ]) {
      const response = await verifier.post(BATCH, BODY, { headers: { accept } });
      assert.equal(response.statusCode, 200, `${accept}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/json');
    }
  });

  it('still refuses, before any read, an Accept that excludes JSON or asks for another charset', async () => {
    const before = reads();
    for (const accept of [
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-8; q=0',
      'application/json;q=0, */*',
      'application/problem+json',
    ]) {
      const response = await verifier.post(BATCH, BODY, { headers: { accept } });
      assertProblem(response, 406, 'claim.format_not_supported');
    }
    assert.equal(reads(), before, 'a refused batch reads() nothing');
  });

  it('reads a result format named in Accept as the batch format, as the verifier contract negotiates it', async () => {
    // A client sends the Accept it uses for /v1/evaluations: the envelope stays JSON, its items are made in that format.
    for (const [accept, format] of [
      [CLAIM_RESULT, CLAIM_RESULT],
      [CCCEV, CCCEV],
      [`${CLAIM_RESULT};q=0.5, ${CCCEV}`, CCCEV],
      [`${CLAIM_RESULT};q=0, */*`, CCCEV],
    ] as const) {
      const response = await verifier.post(BATCH, BODY, { headers: { accept } });
      assert.equal(response.statusCode, 200, `${accept}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/json');
      const batch = JSON.parse(response.body);
      assert.equal(batch.format, format, accept);
      const id = batch.items[0].evaluation_id;
      const rendered = await verifier.post(`/v1/evaluations/${id}/render`, undefined);
      assert.equal(rendered.headers['content-type'], format, accept);
    }
    // A body format Accept permits neither as such nor as JSON is refused, as on /v1/evaluations.
    const refused = await verifier.post(
      BATCH,
      { ...BODY, format: CCCEV },
      { headers: { accept: CLAIM_RESULT } },
    );
    assertProblem(refused, 406, 'claim.format_not_supported');
  });

  it('takes the format Accept chose as part of the request an Idempotency-Key stands for', async () => {
    const key = { 'idempotency-key': 'batch-format-0001' };
    const first = await verifier.post(BATCH, BODY, { headers: { ...key, accept: CCCEV } });
    assert.equal(first.statusCode, 200, first.body);
    const replay = await verifier.post(BATCH, BODY, {
      headers: { ...key, accept: `${CCCEV}, ${CLAIM_RESULT}` },
    });
    assert.equal(replay.headers['idempotent-replayed'], 'true', replay.body);
    assert.equal(JSON.parse(replay.body).batch_id, JSON.parse(first.body).batch_id);
    // The same body asked in another format is another batch: never answered with evaluations made in CCCEV.
    const other = await verifier.post(BATCH, BODY, { headers: { ...key, accept: CLAIM_RESULT } });
    assertProblem(other, 409, 'idempotency.conflict');
  });
});
