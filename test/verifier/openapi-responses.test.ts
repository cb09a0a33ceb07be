// Real verifier answers of the discovery routes and probes validated against the runtime OpenAPI document the same
// caller receives: its status, media type and body schema, which must describe the body (not any object).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { assertDefaultProblems } from '../helpers/openapi-conformance.ts';
import { type Caller, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

describe('verifier runtime OpenAPI against real responses', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
    });
  });
  after(() => verifier?.close());

  /** Validates one GET against the caller's own document; returns the validator of its declared body schema. */
  async function conforms(as: Caller | undefined, docPath: string, url: string) {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: as ?? 'full' })).body);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'https://openapi.test/doc', components: document.components });
    const operation: Operation | undefined = document.paths[docPath]?.get;
    assert.ok(operation, `${docPath} is documented`);
    const response = await verifier.get(url, { as });
    const declared = operation.responses[String(response.statusCode)];
    assert.ok(declared, `${url}: status ${response.statusCode} is declared`);
    const mediaType = String(response.headers['content-type']).split(';')[0] as string;
    const content = declared.content?.[mediaType];
    assert.ok(content, `${url}: ${mediaType} is declared for ${response.statusCode}`);
    const schema = JSON.parse(
      JSON.stringify(content.schema).replaceAll('"#/components/', '"https://openapi.test/doc#/components/'),
    );
    const validate = ajv.compile(schema);
    assert.ok(validate(JSON.parse(response.body)), `${url}: ${ajv.errorsText(validate.errors)}`);
    return validate;
  }

  it('describes the discovery bodies each caller receives, and nothing else passes for them', async () => {
    const routes = [
      ['/.well-known/evidence-service', '/.well-known/evidence-service'],
      ['/v1/claims', '/v1/claims'],
      ['/v1/claims/{claim_id}', '/v1/claims/person_alive'],
      ['/v1/formats', '/v1/formats'],
    ] as const;
    for (const as of ['full', 'civil_only', 'bearer_only'] as const) {
      for (const [docPath, url] of routes) {
        const validate = await conforms(as, docPath, url);
        assert.ok(!validate({}), `${docPath}: the declared schema describes the body`);
      }
    }
    await conforms('full', '/v1/claims/{claim_id}', '/v1/claims/eligible');
    await conforms('full', '/v1/claims/{claim_id}', '/v1/claims/household_size_plus');
    await conforms('civil_only', '/v1/claims/{claim_id}', '/v1/claims/eligible');
    await conforms('no_scopes', '/v1/claims', '/v1/claims');
  });

  it('gives every operation a default problem response for the errors it does not list', async () => {
    assertDefaultProblems(JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body), 5);
  });

  it('declares the extension members of the problems clients act on', async () => {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    const declared = Object.keys(document.components.schemas.Problem.properties);
    const person = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000001' }] };
    const refusals = [
      // request.invalid lists where the body went wrong in `errors`.
      await verifier.evaluate({ target: person, claims: ['person_alive'], extra: 1 }),
      // batch.too_large says how many items fit, past the service's limit and past a claim's.
      await verifier.post('/v1/batch-evaluations', {
        items: Array.from({ length: 101 }, () => ({ target: person })),
        claims: ['person_alive'],
      }),
      await verifier.post('/v1/batch-evaluations', {
        items: Array.from({ length: 4 }, () => ({ target: person })),
        claims: ['person_registered'],
      }),
    ];
    assert.deepEqual(
      refusals.map((response) => response.statusCode),
      [400, 413, 413],
    );
    for (const response of refusals) {
      const members = Object.keys(JSON.parse(response.body));
      const undeclared = members.filter((member) => !declared.includes(member));
      assert.deepEqual(undeclared, [], `${response.body}: every member is in the Problem schema`);
    }
    const { errors, max_items } = document.components.schemas.Problem.properties;
    assert.equal(errors.items.properties.path.type, 'string');
    assert.equal(max_items.type, 'integer');
  });

  it('describes the probes and the refusals', async () => {
    for (const path of ['/healthz', '/ready']) {
      const validate = await conforms(undefined, path, path);
      assert.ok(!validate({}), `${path}: the declared schema describes the body`);
    }
    await conforms(undefined, '/v1/claims', '/v1/claims');
    await conforms(undefined, '/.well-known/evidence-service', '/.well-known/evidence-service');
  });
});
