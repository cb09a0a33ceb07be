// Real relay answers validated against the runtime OpenAPI document the same caller receives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { assertDefaultProblems } from '../helpers/openapi-conformance.ts';
import {
  type Persona,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

describe('runtime OpenAPI against real responses', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  /** Checks status, media type and body of one GET against the caller's own document. */
  async function conforms(as: Persona, docPath: string, url: string, headers: Record<string, string> = {}) {
    const document = (await relay.get('/openapi.json', { as })).json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'https://openapi.test/doc', components: document.components });
    const operation: Operation | undefined = document.paths[docPath]?.get;
    assert.ok(operation, `${docPath} is documented`);
    const response = await relay.get(url, { as, headers });
    const declared = operation.responses[String(response.statusCode)];
    assert.ok(declared, `${url}: status ${response.statusCode} is declared`);
    const mediaType = String(response.headers['content-type']).split(';')[0] as string;
    const content = declared.content?.[mediaType];
    assert.ok(content, `${url}: ${mediaType} is declared for ${response.statusCode}`);
    const schema = JSON.parse(
      JSON.stringify(content.schema).replaceAll('"#/components/', '"https://openapi.test/doc#/components/'),
    );
    const validate = ajv.compile(schema);
    assert.ok(validate(response.json()), `${url}: ${ajv.errorsText(validate.errors)}`);
  }

  const households = '/v1/datasets/social_protection/entities/households';

  it('describes projected records, which leave unrequested fields out', async () => {
    await conforms('caseworker', `${households}/records`, `${households}/records?limit=2&fields=district`);
    await conforms(
      'caseworker',
      `${households}/records/{id}`,
      `${households}/records/hh-1001?fields=district`,
    );
  });

  it('describes the body of schema, relationship, dataset and probe answers', async () => {
    await conforms('caseworker', `${households}/schema`, `${households}/schema`);
    await conforms(
      'caseworker',
      `${households}/records/{id}/relationships/members`,
      `${households}/records/hh-1001/relationships/members`,
    );
    await conforms(
      'caseworker',
      '/v1/datasets/social_protection/entities/members/records/{id}/relationships/household',
      '/v1/datasets/social_protection/entities/members/records/mem-5001/relationships/household',
    );
    await conforms('caseworker', '/v1/datasets', '/v1/datasets');
    await conforms('caseworker', '/v1/datasets/social_protection', '/v1/datasets/social_protection');
    await conforms('caseworker', '/ready', '/ready');
    await conforms(
      'caseworker',
      '/v1/datasets/civil_registry/entities/persons/records/{id}',
      '/v1/datasets/civil_registry/entities/persons/records/per-10001',
      { 'data-purpose': PURPOSE },
    );
  });

  it('gives every operation a default problem response for the errors it does not list (500, 504)', async () => {
    assertDefaultProblems((await relay.get('/openapi.json', { as: 'caseworker' })).json(), 10);
  });

  it('declares the 414 any route answers to an overlong URI', async () => {
    const long = `x=${'a'.repeat(9000)}`;
    for (const [docPath, url] of [
      ['/v1/datasets', '/v1/datasets'],
      ['/v1/datasets/social_protection', '/v1/datasets/social_protection'],
      [`${households}/schema`, `${households}/schema`],
      [`${households}/records/{id}`, `${households}/records/hh-1001`],
      [
        `${households}/records/{id}/relationships/members`,
        `${households}/records/hh-1001/relationships/members`,
      ],
      ['/ready', '/ready'],
    ]) {
      await conforms('caseworker', docPath as string, `${url}?${long}`);
    }
  });

  it('describes aggregate discovery and refusals of the query body', async () => {
    const base = '/v1/datasets/social_protection';
    await conforms('analyst', `${base}/aggregates`, `${base}/aggregates`);
    await conforms('analyst', `${base}/measures/{id}`, `${base}/measures/payments`);
    await conforms(
      'analyst',
      `${base}/aggregates/payments_by_district/structure`,
      `${base}/aggregates/payments_by_district/structure`,
    );
    const document = (await relay.get('/openapi.json', { as: 'analyst' })).json();
    const query = document.paths[`${base}/aggregates/payments_by_district/query`].post.responses;
    const refused = await relay.inject({
      method: 'POST',
      url: `${base}/aggregates/payments_by_district/query`,
      headers: { authorization: `Bearer ${TEST_KEYS.analyst}`, 'content-type': 'text/plain' },
      payload: 'x',
    });
    assert.ok(query[String(refused.statusCode)], `query ${refused.statusCode} is declared`);
    assert.equal(refused.statusCode, 415);
    assert.ok(query['413'], 'the body limit refusal is declared');
  });
});
