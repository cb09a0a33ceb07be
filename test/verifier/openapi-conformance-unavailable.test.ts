// Verifier answers while its state store or its sources are down, checked against the operation its own
// /openapi.json gives for each: the 503s are declared, with the Retry-After they carry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { systemClock } from '../../src/platform/clock.ts';
import { verifierProblem } from '../../src/verifier/problems.ts';
import { createMemoryEvaluationStore } from '../../src/verifier/state/create-memory-evaluation-store.ts';
import type { EvaluationStore } from '../../src/verifier/state/evaluation-store.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { conformanceChecker } from '../helpers/openapi-conformance.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

/** A state store that is down: not ready, and every read or write refused as the PostgreSQL store refuses them. */
function downStore(): EvaluationStore {
  const store = createMemoryEvaluationStore({
    clock: systemClock,
    maxEntries: 10,
    maxEvaluationBytes: 1_048_576,
    maxIdempotencyRecords: 10,
    maxIdempotencyBytes: 1_048_576,
  });
  const refuse = async (): Promise<never> => {
    throw verifierProblem('state.unavailable', 'The state store is unavailable; retry later.', {
      headers: { 'retry-after': '1' },
    });
  };
  return {
    ...store,
    isReady: async () => false,
    put: refuse,
    putMany: refuse,
    get: refuse,
    beginIdempotent: refuse,
  };
}

describe('verifier 503s against its runtime OpenAPI document', () => {
  let rows: FakeUpstream;
  let busy: FakeUpstream;
  let storeDown: TestVerifier;
  let sourceDown: TestVerifier;
  before(async () => {
    rows = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    busy = await startFakeUpstream((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
      response.end('{}');
    });
    storeDown = await startTestVerifier({
      relays: { civil: rows.url, social: rows.url },
      deps: { store: downStore() },
    });
    sourceDown = await startTestVerifier({ relays: { civil: busy.url, social: busy.url } });
  });
  after(async () => {
    await storeDown?.close();
    await sourceDown?.close();
    await rows?.close();
    await busy?.close();
  });

  it('declares the 503 of the probe, evaluations, batches and renders, and their Retry-After', async () => {
    const document = await storeDown.get('/openapi.json', { as: 'full' });
    assert.equal(document.statusCode, 200, document.body);
    const checker = conformanceChecker(JSON.parse(document.body));
    const expect503 = (method: string, docPath: string, response: Response) => {
      assert.equal(response.statusCode, 503, `${docPath}: ${response.body}`);
      checker.check(method, docPath, response);
    };
    const notReady = await storeDown.get('/ready');
    expect503('GET', '/ready', notReady);
    // `checks` says what is not ready: a member the Problem schema declares, as a client reads it.
    const declared = Object.keys(JSON.parse(document.body).components.schemas.Problem.properties);
    assert.deepEqual(
      Object.keys(JSON.parse(notReady.body)).filter((member) => !declared.includes(member)),
      [],
    );
    expect503(
      'POST',
      '/v1/evaluations',
      await storeDown.evaluate({ target: TARGET, claims: ['person_alive'] }),
    );
    expect503(
      'POST',
      '/v1/batch-evaluations',
      await storeDown.post(
        '/v1/batch-evaluations',
        { items: [{ target: TARGET }], claims: ['person_alive'] },
        { headers: { 'idempotency-key': 'down-1' } },
      ),
    );
    expect503(
      'POST',
      '/v1/evaluations/{evaluation_id}/render',
      await storeDown.post('/v1/evaluations/01J00000000000000000000000/render', {}),
    );
    const unavailable = await sourceDown.evaluate({ target: TARGET, claims: ['person_alive'] });
    expect503('POST', '/v1/evaluations', unavailable);
    assert.equal(unavailable.headers['retry-after'], '1');
  });
});
