// The metadata surface in the runtime OpenAPI document: every /metadata route the caller may use is described
// with its media type, listed per visible dataset and entity, and nothing hidden is named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { METADATA_ROUTES } from '../../src/relay/metadata/routes/metadata-route-table.ts';
import { type Persona, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

type Operation = {
  operationId: string;
  parameters: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
};
type Document = { paths: Record<string, { get?: Operation }> };

/** Values for the templated parameters, so documented paths can be requested. */
const EXAMPLES: Record<string, string> = {
  profile_id: 'dcat-ap',
  form_id: 'cash-transfer-application',
  record_id: 'social_protection',
  offering_id: 'sp-household-enrolment',
  profile: 'bregdcat-ap',
};

describe('metadata routes in /openapi.json', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());
  const documentFor = async (persona: Persona) =>
    (await relay.get('/openapi.json', { as: persona })).json() as Document;
  const metadataPaths = (document: Document) =>
    Object.keys(document.paths).filter((path) => path.startsWith('/metadata'));

  it('describes every metadata route, each documented path answering with its documented media type', async () => {
    const document = await documentFor('caseworker');
    const paths = metadataPaths(document);
    const templates = new Set(
      paths.map((path) => path.replace(/civil_registry|social_protection/, ':dataset_id')),
    );
    for (const route of METADATA_ROUTES) {
      const documented = [...templates].some(
        (path) =>
          path
            .replace(/\{(\w+)\}/g, ':$1')
            .replace(/entities\/[a-z_]+/, 'entities/:entity')
            .replace(/schema\/:dataset_id\/[a-z_]+/, 'schema/:dataset_id/:entity') === route.path,
      );
      assert.ok(documented, `${route.path} is not in the document`);
    }
    for (const path of paths) {
      const operation = document.paths[path]?.get as Operation;
      const [mediaType] = Object.keys(operation.responses['200']?.content ?? {});
      const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => EXAMPLES[name] ?? name);
      const response = await relay.get(url, { as: 'caseworker' });
      assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
      const contentType = String(response.headers['content-type']).replace('; charset=utf-8', '');
      assert.equal(contentType, mediaType, url);
      assert.ok(operation.responses['304'] && operation.responses['403'], url);
    }
    const ids = paths.map((path) => document.paths[path]?.get?.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
  });

  it('lists dataset and entity routes per visible dataset only', async () => {
    const planner = metadataPaths(await documentFor('health_planner'));
    assert.ok(planner.includes('/metadata/datasets/health_facilities/entities/facilities/shacl'));
    assert.ok(planner.includes('/metadata/schema/health_facilities/facilities/schema.json'));
    assert.ok(!planner.some((path) => /civil_registry|social_protection|persons|households/.test(path)));
    // health_facilities declares no policy, so no policy route is offered.
    assert.ok(!planner.includes('/metadata/datasets/health_facilities/policy'));
    const caseworker = metadataPaths(await documentFor('caseworker'));
    assert.ok(caseworker.includes('/metadata/datasets/civil_registry/policy'));
    assert.ok(!caseworker.some((path) => path.includes('health_facilities')));
    const offerings = (await documentFor('caseworker')).paths['/metadata/evidence-offerings']?.get;
    assert.deepEqual(
      offerings?.parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name),
      ['evidence_type', 'country', 'procedure_context'],
    );
  });

  it('offers no metadata route to a caller without a metadata scope, and the API catalog to everyone', async () => {
    const operator = await documentFor('operator');
    assert.deepEqual(metadataPaths(operator), []);
    assert.ok(operator.paths['/.well-known/api-catalog']);
  });
});

describe('aggregate routes in /openapi.json', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());
  const aggregatePaths = (document: Document) =>
    Object.keys(document.paths).filter((path) => /\/(aggregates|measures|dimensions)(\/|$)/.test(path));

  it('describes each discoverable aggregate: list, structure, execution by GET and POST, measures and dimensions', async () => {
    const document = (await relay.get('/openapi.json', { as: 'analyst' })).json() as Document & {
      paths: Record<string, { post?: Operation }>;
    };
    const paths = aggregatePaths(document);
    for (const path of [
      '/v1/datasets/social_protection/aggregates',
      '/v1/datasets/social_protection/aggregates/payments_by_district',
      '/v1/datasets/social_protection/aggregates/payments_by_district/structure',
      '/v1/datasets/social_protection/measures/{id}',
      '/v1/datasets/health_facilities/dimensions',
      '/v1/datasets/civil_registry/aggregates/persons_by_district',
    ]) {
      assert.ok(paths.includes(path), `missing ${path}`);
    }
    assert.ok(document.paths['/v1/datasets/social_protection/aggregates/payments_by_district/query']?.post);
    const execute = document.paths['/v1/datasets/civil_registry/aggregates/persons_by_district']
      ?.get as Operation;
    const names = execute.parameters.map((parameter) => parameter.name);
    assert.ok(
      ['f', 'group_by', 'measures', 'max_rows', 'Data-Purpose'].every((name) => names.includes(name)),
    );
    const purpose = execute.parameters.find((parameter) => parameter.name === 'Data-Purpose');
    assert.equal(purpose?.required, true, 'persons_by_district reads persons, which require a purpose');
    assert.deepEqual(Object.keys(execute.responses['200']?.content ?? {}), [
      'application/json',
      'text/csv',
      'application/vnd.sdmx.data+json;version=2.1',
    ]);
    // Every documented GET without a templated parameter answers the analyst.
    for (const path of paths.filter((each) => !each.includes('{') && document.paths[each]?.get)) {
      const response = await relay.get(path, {
        as: 'analyst',
        headers: { 'data-purpose': 'https://demo.example.gov/purpose/benefit-eligibility' },
      });
      assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 200)}`);
    }
  });

  it('describes the query body as the route reads it, so a body valid by the document is answered', async () => {
    const path = '/v1/datasets/social_protection/aggregates/payments_by_district/query';
    const document = (await relay.get('/openapi.json', { as: 'analyst' })).json() as {
      paths: Record<
        string,
        { post?: { requestBody: { content: Record<string, { schema: object; example: unknown }> } } }
      >;
    };
    const media = document.paths[path]?.post?.requestBody.content['application/json'];
    assert.ok(media);
    const valid = new Ajv2020({ strict: false }).compile(media.schema);
    const post = (body: unknown) =>
      relay.inject({
        method: 'POST',
        url: path,
        headers: { authorization: `Bearer ${TEST_KEYS.analyst}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    for (const body of [
      media.example,
      {
        filters: {
          cycle: { from: '2026-03' },
          'household.district': ['redfield', 'lakeside'],
          payment_status: 'paid',
        },
        temporal: { from: '2026-01', to: '2026-06' },
        max_rows: 10_000,
        format: 'csv',
      },
    ]) {
      assert.ok(valid(body), `${JSON.stringify(body)}: ${JSON.stringify(valid.errors)}`);
      const response = await post(body);
      assert.equal(response.statusCode, 200, `${JSON.stringify(body)}: ${response.body.slice(0, 200)}`);
    }
    for (const body of [
      { filters: [{ cycle: '2026-03' }] },
      { filters: { cycle: [] } },
      { max_rows: 10_001 },
      { format: 'xml' },
    ]) {
      assert.equal(valid(body), false, JSON.stringify(body));
      assert.equal((await post(body)).statusCode, 400, JSON.stringify(body));
    }
  });

  it('names only the aggregates the caller may discover', async () => {
    const planner = aggregatePaths(
      (await relay.get('/openapi.json', { as: 'health_planner' })).json() as Document,
    );
    assert.ok(!planner.some((path) => /civil_registry|social_protection/.test(path)), planner.join(' '));
    const operator = aggregatePaths(
      (await relay.get('/openapi.json', { as: 'operator' })).json() as Document,
    );
    assert.deepEqual(operator, []);
  });
});
