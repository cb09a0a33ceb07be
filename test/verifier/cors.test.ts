// CORS on the verifier: a listed origin may send a batch's Idempotency-Key and read whether it was replayed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const LISTED = 'https://portal.example.org';
const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

describe('verifier CORS for a listed origin', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    const url = upstream.url;
    verifier = await startTestVerifier({
      relays: { civil: url, social: url },
      edit: (text) => text.replace('server:\n', `server:\n  cors: { allowed_origins: ["${LISTED}"] }\n`),
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  const preflight = (origin: string) =>
    verifier.inject({
      method: 'OPTIONS',
      url: '/v1/batch-evaluations',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, data-purpose, idempotency-key, x-api-key',
      },
    });

  it('allows the Idempotency-Key request header on the preflight', async () => {
    const response = await preflight(LISTED);
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['access-control-allow-origin'], LISTED);
    const allowed = String(response.headers['access-control-allow-headers']).split(', ');
    for (const name of ['content-type', 'data-purpose', 'idempotency-key', 'x-api-key']) {
      assert.ok(allowed.includes(name), `${name} allowed`);
    }
    assertProblem(await preflight('https://elsewhere.example.net'), 403, 'http.cors_denied');
  });

  it('keeps Origin in Vary beside Accept on an evaluation', async () => {
    const response = await verifier.post(
      '/v1/evaluations',
      { target: TARGET, claims: ['person_alive'] },
      { headers: { origin: LISTED } },
    );
    assert.equal(response.statusCode, 200, response.body);
    // The answer depends on both the negotiated format and the origin.
    assert.deepEqual(String(response.headers.vary).split(', ').sort(), ['Accept', 'Origin']);
  });

  it('exposes idempotent-replayed on a replayed batch', async () => {
    const body = { items: [{ target: TARGET }], claims: ['person_alive'] };
    const headers = { origin: LISTED, 'idempotency-key': 'cors-batch-1' };
    const first = await verifier.post('/v1/batch-evaluations', body, { headers });
    assert.equal(first.statusCode, 200, first.body);
    const replay = await verifier.post('/v1/batch-evaluations', body, { headers });
    assert.equal(replay.statusCode, 200, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.headers['access-control-allow-origin'], LISTED);
    const exposed = String(replay.headers['access-control-expose-headers']).split(', ');
    assert.ok(exposed.includes('idempotent-replayed'), exposed.join(', '));
    assert.ok(exposed.includes('x-request-id'));
  });
});
