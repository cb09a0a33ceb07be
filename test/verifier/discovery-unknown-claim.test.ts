// `GET /v1/claims/{claim_id}`, or an evaluation naming a claim, with an id that cannot be a claim's: a problem that
// names what claim ids look like, never the text sent (markup, control characters), and the same answer for every
// caller.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

describe('verifier discovery of ids that are no claim ids', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
    });
  });
  after(() => verifier?.close());

  it('does not say back markup or control characters from the path', async () => {
    for (const [path, sent] of [
      ['/v1/claims/%3Cscript%3Ealert(1)%3C%2Fscript%3E', '<script>'],
      ['/v1/claims/%3Cimg%20src%3Dx%3E', '<img'],
      ['/v1/claims/a%00b', '\\u0000'],
      ['/v1/claims/a%0D%0Ab', '\\r\\n'],
      ['/v1/claims/%E2%80%AEevil', '\u202e'],
    ] as const) {
      const response = await verifier.get(path, { as: 'full' });
      const problem = assertProblem(response, 404, 'claim.not_found');
      assert.ok(!response.body.includes(sent), `${path}: ${response.body}`);
      assert.match(String(problem.detail), /claim ids match/, path);
    }
  });

  it('still names an id of claim-id characters, cut short when long', async () => {
    const problem = assertProblem(
      await verifier.get('/v1/claims/no_such.claim-1', { as: 'full' }),
      404,
      'claim.not_found',
    );
    assert.match(String(problem.detail), /`no_such\.claim-1`/);
  });

  it('answers an odd id alike for a caller who may see every claim and one who may see none', async () => {
    const path = '/v1/claims/%3Cb%3Eeligible%3C%2Fb%3E';
    const full = assertProblem(await verifier.get(path, { as: 'full' }), 404, 'claim.not_found');
    const none = assertProblem(await verifier.get(path, { as: 'no_scopes' }), 404, 'claim.not_found');
    assert.equal(full.detail, none.detail);
  });

  it('does not say back markup from an evaluation body either, and still hints at a near visible claim', async () => {
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
    for (const id of ['<script>alert(1)</script>', 'a\u202eb', 'x\r\ny']) {
      const response = await verifier.evaluate({ target, claims: [id] }, { as: 'full' });
      const problem = assertProblem(response, 404, 'claim.not_found');
      assert.ok(!response.body.includes(JSON.stringify(id).slice(1, -1)), response.body);
      assert.match(String(problem.detail), /claim ids match/);
    }
    const near = assertProblem(
      await verifier.evaluate({ target, claims: ['person_alive_'] }, { as: 'full' }),
      404,
      'claim.not_found',
    );
    assert.match(String(near.detail), /`person_alive_`.*did you mean/);
  });
});
