// POST /v1/evaluations/{evaluation_id}/render: a stored evaluation again, for its caller only, in the format it was
// made in (claim-result JSON or CCCEV JSON-LD), until its retention ends; a fake upstream counts reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { createMemoryEvaluationStore } from '../../src/verifier/state/create-memory-evaluation-store.ts';
import { countingReads, oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import {
  CALLER_KEYS,
  CCCEV,
  CLAIM_RESULT,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const TARGET = {
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: 'FAKE-1' },
    { scheme: 'person_id', value: 'per-1' },
  ],
};
const render = (id: string) => `/v1/evaluations/${id}/render`;

describe('render stored evaluations', () => {
  let upstream: FakeUpstream;
  const counted = countingReads(oneLivingPerson);
  const reads = counted.reads;
  let verifier: TestVerifier;
  /** The same store and audit secret, but the `full` caller lost civil:evidence. */
  let narrowed: TestVerifier;
  const clock = fixedClock('2026-03-01T10:00:00Z');

  before(async () => {
    upstream = await startFakeUpstream(counted.handler);
    const url = upstream.url;
    const store = createMemoryEvaluationStore({
      clock,
      maxEntries: 1000,
      maxEvaluationBytes: 268_435_456,
      maxIdempotencyRecords: 1000,
      maxIdempotencyBytes: 1_048_576,
    });
    verifier = await startTestVerifier({ relays: { civil: url, social: url }, clock, deps: { store } });
    narrowed = await startTestVerifier({
      relays: { civil: url, social: url },
      clock,
      deps: { store },
      edit: (text) =>
        text.replace('scopes: [civil:evidence, social:evidence],', 'scopes: [social:evidence],'),
    });
  });
  after(async () => {
    await narrowed?.close();
    await verifier?.close();
    await upstream.close();
  });

  async function evaluate(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const response = await verifier.evaluate({ target: TARGET, ...body }, { headers });
    assert.equal(response.statusCode, 200, response.body);
    return response;
  }

  it('renders the claim-result JSON exactly as it was returned, reading nothing', async () => {
    const made = await evaluate({ claims: ['person_alive', 'person_registered'] });
    const { results } = JSON.parse(made.body);
    const before = reads();
    for (const body of [undefined, {}, { format: CLAIM_RESULT }]) {
      const response = await verifier.post(render(results[0].evaluation_id), body, {
        headers: { 'data-purpose': '' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], CLAIM_RESULT);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.deepEqual(JSON.parse(response.body), { results });
    }
    assert.equal(reads(), before);
    const record = verifier.auditRecords().findLast((entry) => entry.endpoint_kind === 'render');
    assert.equal(record?.decision, 'render');
    assert.equal(record?.verification_id, results[0].evaluation_id);
    assert.deepEqual(record?.claim_ids, ['person_alive', 'person_registered']);
  });

  it('takes an empty application/json body as no options; a malformed one is still 400', async () => {
    const made = await evaluate({ claims: ['person_alive'] });
    const id = JSON.parse(made.body).results[0].evaluation_id;
    const send = (payload: string) =>
      verifier.inject({
        method: 'POST',
        url: render(id),
        headers: { 'x-api-key': CALLER_KEYS.full, 'content-type': 'application/json; charset=utf-8' },
        payload,
      });
    for (const empty of ['', ' \r\n']) {
      const response = await send(empty);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.body, made.body);
    }
    assertProblem(await send('{"format":'), 400, 'http.invalid_body');
    assertProblem(await send('{"__proto__":{"x":1}}'), 400, 'http.invalid_body');
    assertProblem(await send('{"extra":1}'), 400, 'request.invalid');
  });

  it('renders CCCEV JSON-LD for an evaluation made in CCCEV: one cccev:Evidence node per claim', async () => {
    const made = await evaluate({ claims: ['person_alive', 'eligible'].slice(0, 1) }, { accept: CCCEV });
    const evaluationId = JSON.parse(made.body)['@graph'][0]['dcterms:identifier'];
    for (const [body, accept] of [
      [{ format: CCCEV }, undefined],
      [{ format: 'application/ld+json;profile=cccev' }, undefined],
      [{}, CCCEV],
      [{}, undefined],
    ] as const) {
      const response = await verifier.post(render(evaluationId), body, {
        headers: accept ? { accept } : {},
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], CCCEV);
      assert.equal(response.body, made.body);
    }
    const document = JSON.parse(made.body);
    assert.deepEqual(Object.keys(document['@context']).sort(), [
      '@version',
      'cccev',
      'dcterms',
      'foaf',
      'time',
      'xsd',
    ]);
    const [node] = document['@graph'];
    assert.equal(node['@type'], 'cccev:Evidence');
    for (const property of [
      'cccev:isProvidedBy',
      'cccev:supportsRequirement',
      'cccev:supportsValue',
      'cccev:validityPeriod',
      'cccev:isConformantTo',
    ]) {
      assert.ok(Object.hasOwn(node, property), `node lacks ${property}`);
    }
  });

  it('binds the render to the evaluation: same format, claims, disclosure and purpose, else 403', async () => {
    const made = await evaluate({ claims: ['person_alive'], disclosure: 'value' });
    const id = JSON.parse(made.body).results[0].evaluation_id;
    const ok = [
      { claims: ['person_alive'], disclosure: 'value', purpose: EVIDENCE_PURPOSE },
      { claims: [{ id: 'person_alive' }] },
      // The claim refs of the evaluation request, versions included.
      { claims: [{ id: 'person_alive', version: '1' }] },
    ];
    for (const body of ok) {
      assert.equal((await verifier.post(render(id), body)).statusCode, 200);
    }
    // Without a body `format`, the stored format renders when Accept permits it at all, preferred or not.
    const lesser = await verifier.post(
      render(id),
      {},
      { headers: { accept: `${CCCEV}, ${CLAIM_RESULT};q=0.1` } },
    );
    assert.equal(lesser.statusCode, 200, lesser.body);
    assert.equal(lesser.headers['content-type'], CLAIM_RESULT);
    for (const [body, headers] of [
      [{ format: CCCEV }, {}],
      [{}, { accept: CCCEV }],
      [{ claims: ['person_registered'] }, {}],
      [{ claims: ['person_alive', 'person_registered'] }, {}],
      [{ disclosure: 'predicate' }, {}],
      [{ claims: [{ id: 'person_alive', version: '2' }] }, {}],
      [{ purpose: 'https://demo.example.gov/purpose/audit' }, { 'data-purpose': '' }],
      [{}, { 'data-purpose': 'https://demo.example.gov/purpose/audit' }],
    ] as const) {
      assertProblem(await verifier.post(render(id), body, { headers }), 403, 'evaluation.binding_mismatch');
    }
    const denied = verifier.auditRecords().findLast((entry) => entry.endpoint_kind === 'render');
    assert.equal(denied?.decision, 'render_failed');
    assert.equal(denied?.problem_code, 'evaluation.binding_mismatch');
  });

  it('answers 406 for formats it cannot render and 400 for a malformed body', async () => {
    const made = await evaluate({ claims: ['person_alive'] });
    const id = JSON.parse(made.body).results[0].evaluation_id;
    for (const [body, headers] of [
      [{ format: 'application/dc+sd-jwt' }, {}],
      [{ format: 'text/html' }, {}],
      [{ format: CLAIM_RESULT }, { accept: CCCEV }],
    ] as const) {
      assertProblem(await verifier.post(render(id), body, { headers }), 406, 'claim.format_not_supported');
    }
    // Plain JSON names the claim-result type, never CCCEV JSON-LD: an evaluation made in CCCEV is not that one.
    const cccev = JSON.parse((await evaluate({ claims: ['person_alive'] }, { accept: CCCEV })).body)[
      '@graph'
    ][0]['dcterms:identifier'];
    for (const [body, headers] of [
      [{}, { accept: 'application/json' }],
      [{ format: 'application/json' }, {}],
    ] as const) {
      assertProblem(
        await verifier.post(render(cccev), body, { headers }),
        403,
        'evaluation.binding_mismatch',
      );
      const answered = await verifier.post(render(id), body, { headers });
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal(answered.headers['content-type'], CLAIM_RESULT);
      assert.equal(JSON.parse(answered.body).results[0].evaluation_id, id);
    }
    // A JSON `null` is a body, and not an object: only an empty body asks for nothing.
    for (const body of [{ fromat: CLAIM_RESULT }, { claims: [] }, { disclosure: 'all' }, ['x'], null]) {
      assertProblem(await verifier.post(render(id), body), 400, 'request.invalid');
    }
  });

  it('renders for the caller that made the evaluation only, while it still holds the scopes', async () => {
    const made = await evaluate({ claims: ['person_alive'] });
    const id = JSON.parse(made.body).results[0].evaluation_id;
    assertProblem(await verifier.post(render(id), {}, { as: 'civil_only' }), 404, 'evaluation.not_found');
    assertProblem(await verifier.post(render(id), {}, { as: 'bearer_only' }), 404, 'evaluation.not_found');
    assertProblem(
      await verifier.post(render(id), {}, { headers: { 'x-api-key': '' } }),
      401,
      'auth.missing_credential',
    );
    // The same caller on an instance where it no longer holds civil:evidence.
    assertProblem(await narrowed.post(render(id), {}), 403, 'auth.scope_denied');
    const response = await verifier.post(render(id), {});
    assert.equal(response.statusCode, 200, response.body);
  });

  it('answers 404 evaluation.not_found for unknown and malformed ids, alike', async () => {
    for (const id of [
      '01J0000000000000000000000Z',
      'not-an-id',
      '01j0000000000000000000000z',
      'x'.repeat(300),
    ]) {
      const response = await verifier.post(render(encodeURIComponent(id)), {});
      const body = assertProblem(response, 404, 'evaluation.not_found');
      assert.equal(body.detail, 'No stored evaluation with this id is available to the caller.');
    }
  });

  it('forgets an evaluation after its retention and purges it', async () => {
    const made = await evaluate({ claims: ['person_alive'] });
    const id = JSON.parse(made.body).results[0].evaluation_id;
    clock.advance(15 * 60 * 1000 - 1);
    assert.equal((await verifier.post(render(id), {})).statusCode, 200);
    clock.advance(1);
    assertProblem(await verifier.post(render(id), {}), 404, 'evaluation.not_found');
    assert.ok((await verifier.verifier.runtime.store.purgeExpired()) >= 1);
  });
});
