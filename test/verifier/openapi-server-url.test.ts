// The OpenAPI server is `evidence.api_base_url`, and a client reaches an operation by appending its path to it
// (OpenAPI 3.1 §4.8.8): a base configured with a trailing slash must still give the URLs discovery names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

describe('verifier OpenAPI server URL', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
      edit: (text) =>
        text.replace('api_base_url: https://verifier.test\n', 'api_base_url: https://verifier.test/ambit/\n'),
    });
  });
  after(() => verifier?.close());

  it('appends operation paths to the server as discovery names the routes, whatever the trailing slash', async () => {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    const envelope = JSON.parse((await verifier.get('/.well-known/evidence-service', { as: 'full' })).body);
    const server = document.servers[0].url as string;
    assert.equal(`${server}/v1/claims`, envelope.claims_url);
    assert.equal(`${server}/v1/formats`, envelope.formats_url);
    assert.equal(`${server}/v1/evaluations`, envelope.evaluations_url);
    assert.equal(server, 'https://verifier.test/ambit');
  });
});
