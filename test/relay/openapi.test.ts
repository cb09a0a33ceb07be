// Runtime OpenAPI: auth-gated by default, limited to what the caller may see, public when configured.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  loadingDemoRelay,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';

const STORAGE_ONLY = [
  'street_address',
  'phone',
  'registrar_notes',
  'case_notes',
  'bank_account_hint',
  'exact_latitude',
  'internal_notes',
];

describe('GET /openapi.json', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('requires a credential by default', async () => {
    const response = await relay.get('/openapi.json');
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'auth.missing_credential');
  });

  it('lists only the entities whose metadata scope the caller holds', async () => {
    const planner = (await relay.get('/openapi.json', { as: 'health_planner' })).json();
    assert.equal(planner.openapi, '3.1.0');
    const plannerPaths = Object.keys(planner.paths);
    assert.ok(plannerPaths.includes('/v1/datasets/health_facilities/entities/facilities/records'));
    assert.ok(
      !plannerPaths.some((path) => path.includes('social_protection') || path.includes('civil_registry')),
    );

    const caseworker = (await relay.get('/openapi.json', { as: 'caseworker' })).json();
    const paths = Object.keys(caseworker.paths);
    assert.ok(
      paths.includes('/v1/datasets/social_protection/entities/households/records/{id}/relationships/members'),
    );
    assert.ok(!paths.some((path) => path.includes('health_facilities')));
    const list = caseworker.paths['/v1/datasets/social_protection/entities/households/records'].get;
    const names = list.parameters.map((parameter: { name: string }) => parameter.name);
    assert.ok(
      names.includes('district') && names.includes('district.in') && names.includes('household_size.between'),
    );
    const persons = caseworker.paths['/v1/datasets/civil_registry/entities/persons/records'].get;
    const purpose = persons.parameters.find(
      (parameter: { name: string }) => parameter.name === 'Data-Purpose',
    );
    assert.equal(purpose.required, true);

    const operator = (await relay.get('/openapi.json', { as: 'operator' })).json();
    assert.ok(!Object.keys(operator.paths).some((path) => path.includes('/entities/')));
  });

  it('offers both credential headers an API-key relay accepts', async () => {
    const document = (await relay.get('/openapi.json', { as: 'caseworker' })).json();
    assert.deepEqual(document.security, [{ bearer: [] }, { apiKey: [] }]);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['apiKey', 'bearer']);
    assert.equal(document.components.securitySchemes.apiKey.name, 'x-api-key');
    const viaHeader = await relay.inject({
      method: 'GET',
      url: '/v1/datasets',
      headers: { 'x-api-key': TEST_KEYS.caseworker },
    });
    assert.equal(viaHeader.statusCode, 200, viaHeader.body);
  });

  it('types filter values as the field, never null, nullable fields and both equality spellings included', async () => {
    const document = (await relay.get('/openapi.json', { as: 'caseworker' })).json();
    type Parameter = { name: string; in: string; schema: { type: string | string[]; format?: string } };
    const filters = (entity: string) =>
      new Map(
        (
          document.paths[`/v1/datasets/social_protection/entities/${entity}/records`].get
            .parameters as Parameter[]
        )
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => [parameter.name, parameter.schema]),
      );
    const payments = filters('payments');
    // `paid_on` is nullable, but a bound is a date: the relay refuses any other value.
    for (const name of ['paid_on.gte', 'paid_on.lte']) {
      const { type, format } = payments.get(name) ?? {};
      assert.deepEqual({ type, format }, { type: 'string', format: 'date' }, name);
    }
    for (const [path, item] of Object.entries(document.paths) as [
      string,
      { get?: { parameters?: Parameter[] } },
    ][]) {
      for (const parameter of item.get?.parameters ?? []) {
        const types = [parameter.schema.type].flat();
        assert.ok(!types.includes('null'), `${path} ${parameter.name} takes null`);
      }
    }
    const households = filters('households');
    assert.deepEqual(households.get('household_size.eq'), households.get('household_size'));
    assert.equal(households.get('household_size')?.type, 'integer');
    const refused = await relay.get(
      '/v1/datasets/social_protection/entities/payments/records?paid_on.gte=null',
      {
        as: 'caseworker',
        headers: { 'data-purpose': PURPOSE },
      },
    );
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().code, 'filter.invalid_value');
  });

  it('never names storage-only columns', async () => {
    const text = (await relay.get('/openapi.json', { as: 'caseworker' })).body;
    for (const column of STORAGE_ONLY) assert.ok(!text.includes(column), column);
  });

  it('declares every member a dataset summary and an entity schema carry', async () => {
    // A client generated from the document reads only the members it declares.
    const document = (await relay.get('/openapi.json', { as: 'caseworker' })).json();
    const declared = (schema: { properties?: object }, where: string) => {
      assert.ok(schema.properties, `${where} declares no properties`);
      return Object.keys(schema.properties);
    };
    const summary = document.components.schemas.DatasetSummary;
    const datasets = (await relay.get('/v1/datasets', { as: 'caseworker' })).json();
    for (const name of Object.keys(datasets.data[0])) {
      assert.ok(declared(summary, 'DatasetSummary').includes(name), `DatasetSummary lacks ${name}`);
    }
    const path = '/v1/datasets/social_protection/entities/households/schema';
    const schema = document.paths[path].get.responses['200'].content['application/json'].schema;
    const body = (await relay.get(path, { as: 'caseworker' })).json();
    for (const name of Object.keys(body)) {
      assert.ok(declared(schema, 'entity schema').includes(name), `entity schema lacks ${name}`);
    }
    for (const [member, item] of [
      ['fields', body.fields[0]],
      ['filters', body.filters[0]],
      ['relationships', body.relationships[0]],
    ]) {
      const items = schema.properties[member].items;
      for (const name of Object.keys(item)) {
        assert.ok(declared(items, member).includes(name), `entity schema ${member} lack ${name}`);
      }
    }
  });
});

describe('openapi_requires_auth: false', () => {
  it('serves the whole document without a credential', async () => {
    const relay = await startDemoRelay({
      edit: (text) =>
        text.replace('  cursor_secret_env:', '  openapi_requires_auth: false\n  cursor_secret_env:'),
    });
    try {
      const response = await relay.get('/openapi.json');
      assert.equal(response.statusCode, 200);
      const paths = Object.keys(response.json().paths);
      assert.ok(paths.some((path) => path.includes('health_facilities')));
      assert.ok(paths.some((path) => path.includes('civil_registry')));
    } finally {
      await relay.close();
    }
  });
});

describe('GET /ready while loading', () => {
  it('answers 503 with counts until every table is loaded, then 200', async () => {
    const relay = loadingDemoRelay();
    try {
      const early = await relay.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(early.statusCode, 503);
      assert.equal(early.json().code, 'schema.resource_unavailable');
      assert.equal(early.json().total_count, 5);
      assert.ok(early.headers['retry-after']);
      const data = await relay.app.inject({
        method: 'GET',
        url: '/v1/datasets/social_protection/entities/households/records',
        headers: { authorization: `Bearer ${TEST_KEYS.caseworker}` },
      });
      assert.equal(data.statusCode, 503);
      assert.equal(data.json().code, 'schema.resource_unavailable');
      await relay.loaded;
      const ready = await relay.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ok', checks: { total: 5, ok: 5, failed: 0 } });
      const health = await relay.app.inject({ method: 'GET', url: '/healthz' });
      assert.deepEqual(health.json(), { status: 'ok', checks: { total: 1, ok: 1, failed: 0 } });
    } finally {
      await relay.close();
    }
  });
});

describe('OpenAPI Data-Purpose on relationship reads', () => {
  let relay: TestRelay;
  before(async () => {
    // Payments alone require a purpose: reads from households into payments need one too.
    relay = await startDemoRelay({
      edit: (text) => {
        const limits = '          default_limit: 50\n          max_limit: 500\n';
        assert.ok(text.includes(limits));
        return text.replace(limits, `${limits}          require_purpose_header: true\n`);
      },
    });
  });
  after(() => relay.close());

  const purposeRequired = (
    document: { paths: Record<string, { get: { parameters: unknown[] } }> },
    path: string,
  ) => {
    const item = document.paths[path];
    assert.ok(item, path);
    const header = item.get.parameters.find(
      (parameter) => (parameter as { name: string }).name === 'Data-Purpose',
    ) as { required: boolean } | undefined;
    assert.ok(header, `${path} documents Data-Purpose`);
    return header.required;
  };

  it('marks the header required when either end of the relationship requires it, as the route does', async () => {
    const document = (await relay.get('/openapi.json', { as: 'caseworker' })).json();
    const households = '/v1/datasets/social_protection/entities/households/records';
    assert.equal(purposeRequired(document, `${households}/{id}`), false);
    assert.equal(purposeRequired(document, `${households}/{id}/relationships/members`), false);
    assert.equal(purposeRequired(document, `${households}/{id}/relationships/payments`), true);
    assert.equal(
      purposeRequired(
        document,
        '/v1/datasets/social_protection/entities/payments/records/{id}/relationships/household',
      ),
      true,
    );
    const unpurposed = await relay.get(`${households}/hh-1033/relationships/payments`, { as: 'caseworker' });
    assert.equal(unpurposed.statusCode, 400, unpurposed.body);
    assert.equal(unpurposed.json().code, 'auth.purpose_required');
    const members = await relay.get(`${households}/hh-1033/relationships/members`, { as: 'caseworker' });
    assert.equal(members.statusCode, 200, members.body);
  });

  it('offers record and relationship reads only where the routes answer them, with their 304s and limits', async () => {
    const keyless = await startDemoRelay({
      edit: (text) =>
        text.replace('required_filters: [person_id, national_id]', 'required_filters: [national_id]'),
    });
    try {
      const document = (await keyless.get('/openapi.json', { as: 'caseworker' })).json();
      const persons = '/v1/datasets/civil_registry/entities/persons';
      const households = '/v1/datasets/social_protection/entities/households';
      const paths = Object.keys(document.paths);
      assert.ok(paths.includes(`${persons}/records`));
      assert.deepEqual(
        paths.filter((path) => path.startsWith(`${persons}/records/`)),
        [],
        'persons are not read by id',
      );
      const refused = await keyless.get(`${persons}/records/per-0001`, {
        as: 'caseworker',
        headers: { 'data-purpose': 'https://example.org/purpose/test' },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(refused.json().code, 'entity.filter_required');
      assert.equal(
        refused.json().detail,
        'a record of persons is not read by its id: read the collection with an equality filter (field=value) on one of: national_id',
      );
      for (const path of [
        `${households}/schema`,
        `${households}/records`,
        `${households}/records/{id}`,
        `${households}/records/{id}/relationships/members`,
      ]) {
        assert.ok(document.paths[path]?.get.responses['304'], `${path} documents 304`);
      }
      const limit = document.paths[`${households}/records/{id}/relationships/members`].get.parameters.find(
        (parameter: { name: string }) => parameter.name === 'limit',
      );
      // The members entity's own paging bounds, which the relationship route applies.
      assert.deepEqual(limit.schema, { type: 'integer', minimum: 1, maximum: 200, default: 25 });
    } finally {
      await keyless.close();
    }
  });
});
