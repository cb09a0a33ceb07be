// What discovery tells a caller about claims outside its scopes: nothing. A claim it may not evaluate answers as an
// id no claim has, in status, headers and body alike, and a public OpenAPI document names no claim at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { assertProblem } from '../helpers/http-checks.ts';
import {
  CALLER_KEYS,
  type Caller,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const RELAYS = { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' };

/** The answer with what differs per request (its id, its date) left out, and `claimId` written as `<id>`. */
function comparable(response: Response, claimId: string) {
  const { 'x-request-id': _id, date: _date, ...headers } = response.headers;
  const body = response.body === '' ? {} : JSON.parse(response.body);
  delete body.request_id;
  return {
    status: response.statusCode,
    headers,
    body: JSON.parse(JSON.stringify(body).replaceAll(claimId, '<id>')),
  };
}

describe('verifier discovery at the edge of the caller scopes', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({ relays: RELAYS });
  });
  after(() => verifier?.close());

  it('answers a claim outside the caller scopes exactly as an id no claim has', async () => {
    // Each hidden claim beside an unknown id of the same length: even the body length cannot tell them apart.
    const cases: [Caller, string, string][] = [
      ['civil_only', 'household_enrolled', 'household_enrolxed'],
      ['civil_only', 'eligible', 'eligiblx'],
      ['no_scopes', 'person_alive', 'person_alivx'],
    ];
    for (const [as, hidden, unknown] of cases) {
      for (const method of ['GET', 'HEAD'] as const) {
        const ask = (id: string) =>
          verifier.inject({ method, url: `/v1/claims/${id}`, headers: { 'x-api-key': CALLER_KEYS[as] } });
        const before = verifier.auditRecords().length;
        const hiddenAnswer = await ask(hidden);
        const unknownAnswer = await ask(unknown);
        if (method === 'GET') assertProblem(hiddenAnswer, 404, 'claim.not_found');
        assert.deepEqual(
          comparable(hiddenAnswer, hidden),
          comparable(unknownAnswer, unknown),
          `${as} ${method} ${hidden}`,
        );
        // Nor does the audit trail set them apart: neither names a claim.
        const events = verifier.auditRecords().slice(before);
        assert.equal(events.length, 2);
        assert.deepEqual(
          events.map((event) => [event.status, event.claim_ids, event.error_code]),
          [
            [404, [], 'claim.not_found'],
            [404, [], 'claim.not_found'],
          ],
        );
      }
    }
    // The control: a caller holding the scopes is shown the claim.
    const shown = await verifier.get('/v1/claims/household_enrolled', { as: 'full' });
    assert.equal(shown.statusCode, 200, shown.body);
  });
});

describe('verifier OpenAPI document served without a credential', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: RELAYS,
      edit: (text) => text.replace('\nserver:\n', '\nserver:\n  openapi_requires_auth: false\n'),
    });
  });
  after(() => verifier?.close());

  it('names no claim, whatever credential the request carries', async () => {
    const documents = [];
    for (const as of [undefined, 'no_scopes', 'full'] as const) {
      const response = await verifier.get('/openapi.json', as === undefined ? {} : { as });
      assert.equal(response.statusCode, 200, response.body);
      documents.push(response.body);
    }
    // One document for everyone: what a full credential may see is not shown to it here either.
    assert.equal(new Set(documents).size, 1);
    const document = JSON.parse(documents[0] as string);
    assert.ok(document.paths['/v1/evaluations'].post, 'the routes are described');
    const claimParameter = document.paths['/v1/claims/{claim_id}'].get.parameters[0].schema;
    assert.deepEqual(claimParameter, { type: 'string' });
    for (const id of ['person_alive', 'household_enrolled', 'eligible', 'plugin_check']) {
      assert.ok(!(documents[0] as string).includes(id), `the public document names ${id}`);
    }
  });
});
