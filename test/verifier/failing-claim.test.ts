// A request for several claims fails as a whole; its problem names the claim that failed in the extension member
// `claim_id` (RFC 9457 §3.2; the verifier contract's problems allow extension members), against a fake upstream.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { CCCEV, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const ALIVE = {
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: 'FAKE-1' },
    { scheme: 'person_id', value: 'per-1' },
  ],
};

describe('the failing claim of a request', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  // Households are not found (409); persons are found alive.
  let answer = (request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const row = request.url?.includes('/households/') ? [] : [{ deceased: false }];
    response.end(JSON.stringify({ data: row }));
  };

  before(async () => {
    upstream = await startFakeUpstream((request, response) => answer(request, response));
    const url = upstream.url;
    verifier = await startTestVerifier({ relays: { civil: url, social: url } });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  it('names the first failing claim in request order when evaluating fails (409, 503, 500)', async () => {
    for (const [claims, status, code, failed] of [
      [['person_alive', 'household_enrolled'], 409, 'evidence.not_available', 'household_enrolled'],
      [['household_enrolled', 'ledger_entry'], 409, 'evidence.not_available', 'household_enrolled'],
      [['ledger_entry', 'household_enrolled'], 503, 'source.unavailable', 'ledger_entry'],
      // A sub-claim's failure is the failure of the claim the caller asked for.
      [['person_alive', 'eligible'], 409, 'evidence.not_available', 'eligible'],
      [['household_enrolled'], 409, 'evidence.not_available', 'household_enrolled'],
    ] as const) {
      const problem = assertProblem(await verifier.evaluate({ target: ALIVE, claims }), status, code);
      assert.equal(problem.claim_id, failed, claims.join());
    }
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ other: 1 }] }));
    };
    const failedRule = assertProblem(
      await verifier.evaluate({ target: ALIVE, claims: ['person_registered', 'person_alive'] }),
      500,
      'claim.rule_evaluation_failed',
    );
    assert.equal(failedRule.claim_id, 'person_alive');
    const record = verifier.auditRecords().find((entry) => entry.request_id === failedRule.request_id);
    assert.equal(record?.error_code, 'cel.error', 'the precise reason still reaches audit');
  });

  it('names the claim a check before any read refused', async () => {
    const cases: [unknown, Record<string, string>, number, string, string][] = [
      [['person_alive', 'nope'], {}, 404, 'claim.not_found', 'nope'],
      [
        ['person_alive', { id: 'birth_date', version: '9' }],
        {},
        404,
        'claim.version_not_found',
        'birth_date',
      ],
      [['person_alive', 'plugin_check'], {}, 501, 'claim.operation_unsupported', 'plugin_check'],
      [['person_alive', 'audit_only'], {}, 403, 'purpose.not_allowed', 'audit_only'],
      [['person_alive', 'birth_date'], { accept: CCCEV }, 406, 'claim.format_not_supported', 'birth_date'],
      [['person_alive', 'household_size_plus'], {}, 400, 'target.identifier_missing', 'household_size_plus'],
    ];
    for (const [claims, headers, status, code, failed] of cases) {
      const response = await verifier.evaluate({ target: ALIVE, claims }, { headers });
      assert.equal(assertProblem(response, status, code).claim_id, failed, code);
    }
    const denied = await verifier.evaluate({
      target: ALIVE,
      claims: ['person_alive', 'eligible'],
      disclosure: 'value',
    });
    assert.equal(assertProblem(denied, 403, 'claim.disclosure_not_allowed').claim_id, 'eligible');
    const scoped = await verifier.evaluate(
      { target: ALIVE, claims: ['person_alive', 'household_enrolled'] },
      { as: 'civil_only' },
    );
    assert.equal(assertProblem(scoped, 403, 'auth.scope_denied').claim_id, 'household_enrolled');
  });

  it('checks existence and scopes claim by claim, in request order (contract §2.5, step 4)', async () => {
    // civil_only may not evaluate `eligible` (it needs social scopes); `nope` does not exist.
    for (const [claims, status, code, failed] of [
      [['person_alive', 'eligible', 'nope'], 403, 'auth.scope_denied', 'eligible'],
      [['person_alive', 'nope', 'eligible'], 404, 'claim.not_found', 'nope'],
    ] as const) {
      const response = await verifier.evaluate({ target: ALIVE, claims }, { as: 'civil_only' });
      const problem = assertProblem(response, status, code);
      assert.equal(problem.claim_id, failed, claims.join());
      // The 404's did-you-mean hint names only claims the caller may evaluate.
      if (status === 404) assert.doesNotMatch(String(problem.detail), /eligible|household/);
    }
  });

  it('checks every claim for the format before any claim for its disclosure (contract §2.5, steps 6 and 7)', async () => {
    // eligible offers CCCEV but not `value`; birth_date offers `value` but not CCCEV.
    const response = await verifier.evaluate(
      { target: ALIVE, claims: ['eligible', 'birth_date'], disclosure: 'value' },
      { headers: { accept: CCCEV } },
    );
    assert.equal(assertProblem(response, 406, 'claim.format_not_supported').claim_id, 'birth_date');
  });

  it('names no claim when the problem is not one claim’s', async () => {
    const unpurposed = await verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { headers: { 'data-purpose': 'https://elsewhere.example/purpose' } },
    );
    assert.equal(Object.hasOwn(assertProblem(unpurposed, 403, 'purpose.not_allowed'), 'claim_id'), false);
    const invalid = await verifier.evaluate({ target: ALIVE, claims: [] });
    assert.equal(Object.hasOwn(assertProblem(invalid, 400, 'request.invalid'), 'claim_id'), false);
  });
});
