// The audit events of evaluation, batch and render requests refused early: before their route read the body (a body
// too large or not JSON) or before a batch was planned. Each is still that route's event, as docs/verifier.md (Audit)
// describes it, so that counting refused evaluations or batches by `endpoint_kind` and `decision` finds them all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const BATCH = '/v1/batch-evaluations';
const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const RENDER = '/v1/evaluations/01JZ0000000000000000000000/render';

describe('audit events of refused requests', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier();
  });
  after(async () => verifier?.close());

  /** The one event the request with this request id wrote. */
  const eventOf = (requestId: string) => {
    const events = verifier.auditRecords().filter((record) => record.request_id === requestId);
    assert.equal(events.length, 1, `one event for ${requestId}`);
    return events[0] as Record<string, unknown>;
  };
  const raw = (url: string, payload: string) =>
    verifier.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/json',
        'x-api-key': CALLER_KEYS.full,
        'data-purpose': EVIDENCE_PURPOSE,
      },
      payload,
    });

  it('records a body too large or not JSON as a refusal of the route it was sent to', async () => {
    const cases = [
      ['/v1/evaluations', 'evaluate', 'evaluate_denied'],
      [BATCH, 'batch_evaluate', 'batch_evaluate_denied'],
      [RENDER, 'render', 'render_failed'],
    ] as const;
    for (const [url, kind, decision] of cases) {
      const tooLarge = await raw(url, JSON.stringify({ pad: 'x'.repeat(1_100_000) }));
      const notJson = await raw(url, '{"target": ');
      for (const [response, code, status] of [
        [tooLarge, 'internal.payload_too_large', 413],
        [notJson, 'http.invalid_body', 400],
      ] as const) {
        const problem = assertProblem(response, status, code);
        const event = eventOf(String(problem.request_id));
        assert.equal(event.endpoint_kind, kind, `${url} ${code}`);
        assert.equal(event.decision, decision, `${url} ${code}`);
        assert.equal(event.status, status);
        assert.equal(event.problem_code, code);
      }
    }
  });

  it('gives every batch event its batch fields, a batch refused before it was planned included', async () => {
    const items = (count: number) => Array.from({ length: count }, () => ({ target: TARGET }));
    const unknownKey = { 'x-api-key': 'unknown-key-000000000000000000000' };
    const otherPurpose = { 'data-purpose': 'https://elsewhere.example/p', 'idempotency-key': 'refused-1' };
    const refusals = [
      // No credential: nothing of the body is looked at, and no key was sent.
      [
        await verifier.post(BATCH, { items: items(1) }, { headers: unknownKey }),
        401,
        'auth.missing_credential',
        null,
        'none',
      ],
      // More items than the batch limit: refused before the items are read (the route does not record the count).
      [
        await verifier.post(BATCH, { items: items(101), claims: ['person_alive'] }),
        413,
        'batch.too_large',
        null,
        'none',
      ],
      // A purpose the verifier does not accept: parsed, refused while planning, before its key was looked at.
      [
        await verifier.post(BATCH, { items: items(2), claims: ['person_alive'] }, { headers: otherPurpose }),
        403,
        'purpose.not_allowed',
        2,
        null,
      ],
    ] as const;
    for (const [response, status, code, size, idempotency] of refusals) {
      const problem = assertProblem(response, status, code);
      const event = eventOf(String(problem.request_id));
      assert.equal(event.endpoint_kind, 'batch_evaluate', code);
      assert.equal(event.decision, 'batch_evaluate_denied', code);
      assert.equal(event.batch_id, null, `${code}: no batch id was given`);
      assert.equal(event.batch_size, size, `${code}: batch_size`);
      assert.equal(event.batch_succeeded, 0, code);
      assert.equal(event.batch_failed, 0, code);
      assert.equal(event.upstream_request_count, 0, code);
      // A key sent but never looked at is not said to be `none`.
      assert.equal(event.idempotency, idempotency, `${code}: idempotency`);
    }
  });
});
