// The runtime OpenAPI document describes the Idempotency-Key the batch route takes: a generated client refuses
// exactly the keys the route answers 400 for (1 to 255 visible ASCII characters, no spaces).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const BATCH = '/v1/batch-evaluations';
const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] };

describe('verifier OpenAPI Idempotency-Key', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
    });
  });
  after(() => verifier?.close());

  it('refuses in its schema the keys the route refuses, and accepts the keys it takes', async () => {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    const parameter = (document.paths[BATCH].post.parameters as { name: string; schema: object }[]).find(
      (entry) => entry.name === 'Idempotency-Key',
    );
    assert.ok(parameter, 'the batch operation names its Idempotency-Key');
    const valid = new Ajv2020({ strict: false }).compile(parameter.schema);
    const refused = ['', 'has space', 'x'.repeat(256), 'tab\there', 'caf\u00e9'];
    for (const key of refused) assert.equal(valid(key), false, `schema refuses ${JSON.stringify(key)}`);
    for (const key of ['k', '6f1c2d3e-batch-0001', '!~', 'x'.repeat(255)]) {
      assert.equal(valid(key), true, `schema accepts ${JSON.stringify(key)}`);
    }
    // Not the empty key: a header without a value is not sent by the harness.
    for (const key of refused.slice(1)) {
      const response = await verifier.inject({
        method: 'POST',
        url: BATCH,
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'verifier-test-key-full-0000000000001',
          'data-purpose': 'https://demo.example.gov/purpose/benefit-eligibility',
          'idempotency-key': key,
        },
        payload: JSON.stringify({ items: [{ target: TARGET }], claims: ['person_alive'] }),
      });
      assert.equal(response.statusCode, 400, `route refuses ${JSON.stringify(key)}: ${response.body}`);
    }
  });
});
