// Who may discover and run aggregates: scopes per persona, aggregate-only execution, purpose, discovery filtering.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Persona,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';

const PAYMENTS = '/v1/datasets/social_protection/aggregates/payments_by_district';
const PERSONS = '/v1/datasets/civil_registry/aggregates/persons_by_district';
const BEDS = '/v1/datasets/health_facilities/aggregates/beds_by_district';

describe('aggregate access (demo)', () => {
  let relay: TestRelay;
  const get = (path: string, as: Persona, headers: Record<string, string> = {}) =>
    relay.get(path, { as, headers: { 'data-purpose': PURPOSE, ...headers } });

  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('runs aggregate-only aggregates with the aggregate scope alone', async () => {
    for (const path of [PAYMENTS, PERSONS, BEDS])
      assert.equal((await get(path, 'analyst')).statusCode, 200, path);
  });

  it('gives the aggregate-only analyst no filter that singles out one person in persons_by_district', async () => {
    // A masked group keeps its keys: any filter narrowing the persons to one would name that person's district,
    // sex and deceased flag. Only the coarse deceased filter is offered.
    const body = (await get(`${PERSONS}`, 'analyst')).json();
    assert.ok(body.observations.length > 0, 'the aggregate answers');
    for (const query of [
      'birth_date.gte=1990-01-01&birth_date.lte=1990-01-01',
      'birth_date.between=1990-01-01,1990-01-01',
      'person_id=per-10001',
      'national_id=FAKE-412781',
    ])
      assertProblem(await get(`${PERSONS}?${query}`, 'analyst'), 400, 'filter.not_allowed');
    const temporal = await relay.inject({
      method: 'POST',
      url: `${PERSONS}/query`,
      headers: {
        authorization: `Bearer ${TEST_KEYS.analyst}`,
        'content-type': 'application/json',
        'data-purpose': PURPOSE,
      },
      payload: JSON.stringify({ temporal: { from: '1990-01-01', to: '1990-01-01' } }),
    });
    assert.equal(temporal.statusCode, 400, temporal.body);
    assert.equal((await get(`${PERSONS}?deceased=true`, 'analyst')).statusCode, 200);
  });

  it('denies execution without the aggregate scope, whatever else the caller holds', async () => {
    // Metadata does not imply aggregate, nor do rows.
    assertProblem(
      await get(PAYMENTS, 'catalog_viewer'),
      403,
      'auth.scope_denied',
      'required scope: social_protection:aggregate',
    );
    assertProblem(
      await get(PAYMENTS, 'caseworker'),
      403,
      'auth.scope_denied',
      'required scope: social_protection:aggregate',
    );
    // No scope at all on the dataset: 403 before the aggregate is looked up, known or not.
    assertProblem(await get(PAYMENTS, 'health_planner'), 403, 'auth.scope_denied');
    assertProblem(
      await get('/v1/datasets/social_protection/aggregates/nope', 'health_planner'),
      403,
      'auth.scope_denied',
    );
    assertProblem(await get('/v1/datasets/nope/aggregates/x', 'analyst'), 403, 'auth.scope_denied');
    assertProblem(await get(PAYMENTS, 'operator'), 403, 'auth.scope_denied');
    assertProblem(await relay.get(PAYMENTS), 401, 'auth.missing_credential');
  });

  it('answers 404 for an unknown aggregate only to a caller with some scope on the dataset', async () => {
    assertProblem(
      await get('/v1/datasets/social_protection/aggregates/nope', 'analyst'),
      404,
      'schema.unknown_aggregate',
    );
    assertProblem(
      await get('/v1/datasets/social_protection/aggregates/nope', 'caseworker'),
      404,
      'schema.unknown_aggregate',
    );
  });

  it('requires Data-Purpose when an entity the aggregate reads requires it, after the scope checks', async () => {
    const response = await relay.get(PERSONS, { as: 'analyst' });
    assertProblem(response, 400, 'auth.purpose_required', /entity persons requires the Data-Purpose header/);
    assertProblem(
      await relay.get(PERSONS, { as: 'analyst', headers: { 'data-purpose': '  ' } }),
      400,
      'auth.purpose_required',
    );
    assertProblem(await relay.get(PERSONS, { as: 'caseworker' }), 403, 'auth.scope_denied');
    // Purpose precedes format and query checks: a caller without one learns nothing about them.
    assertProblem(
      await relay.get(`${PERSONS}?f=xml&group_by=x`, { as: 'analyst' }),
      400,
      'auth.purpose_required',
    );
    assert.equal((await relay.get(PAYMENTS, { as: 'analyst' })).statusCode, 200);
  });

  it('requires Data-Purpose when a related entity the aggregate reads through a dimension requires it', async () => {
    // payments_by_district reads households through its household.district dimension and filter.
    const gated = await startDemoRelay({
      edit: (text) => {
        const api = '          default_limit: 25\n';
        const at = text.indexOf(api, text.indexOf('      - name: households\n')) + api.length;
        assert.ok(at > api.length, 'households api block found');
        return `${text.slice(0, at)}          require_purpose_header: true\n${text.slice(at)}`;
      },
    });
    try {
      for (const path of [PAYMENTS, `${PAYMENTS}?group_by=cycle`]) {
        assertProblem(
          await gated.get(path, { as: 'analyst' }),
          400,
          'auth.purpose_required',
          /entity households requires the Data-Purpose header/,
        );
        const answered = await gated.get(path, { as: 'analyst', headers: { 'data-purpose': PURPOSE } });
        assert.equal(answered.statusCode, 200, answered.body);
      }
    } finally {
      await gated.close();
    }
  });

  it('without aggregate-only execution, also needs the rows scope of the entities read', async () => {
    const edited = await startDemoRelay({
      edit: (text) =>
        text
          .replace(
            '          aggregate_scope: social_protection:aggregate\n          aggregate_only_execution: true',
            '          aggregate_scope: social_protection:aggregate\n          aggregate_only_execution: false',
          )
          .replace(
            '        - social_protection:metadata\n        - social_protection:rows\n        - civil_registry:metadata',
            '        - social_protection:metadata\n        - social_protection:rows\n        - social_protection:aggregate\n        - civil_registry:metadata',
          ),
    });
    try {
      const analyst = await edited.get(PAYMENTS, { as: 'analyst' });
      assertProblem(analyst, 403, 'auth.scope_denied', 'required scope: social_protection:rows');
      const caseworker = await edited.get(PAYMENTS, { as: 'caseworker' });
      assert.equal(caseworker.statusCode, 200, caseworker.body);
      const structure = (await edited.get(`${PAYMENTS}/structure`, { as: 'caseworker' })).json();
      assert.deepEqual(structure.execution, {
        scope: 'social_protection:aggregate',
        aggregate_only: false,
        also_requires: ['social_protection:rows'],
      });
      const record = edited
        .auditRecords()
        .find((r) => r.status_code === 200 && r.endpoint_kind === 'aggregate');
      assert.deepEqual(record?.scopes_used, ['social_protection:aggregate', 'social_protection:rows']);
    } finally {
      await edited.close();
    }
  });

  it('lists the aggregates each caller may discover', async () => {
    const ids = async (as: Persona, dataset = 'social_protection') => {
      const response = await get(`/v1/datasets/${dataset}/aggregates`, as);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data.map((a: { aggregate_id: string }) => a.aggregate_id);
    };
    assert.deepEqual(await ids('analyst'), ['payments_by_district', 'households_by_district']);
    // Metadata scope of the aggregate and of its source entity: discovery without execution.
    assert.deepEqual(await ids('catalog_viewer'), ['payments_by_district', 'households_by_district']);
    assert.deepEqual(await ids('verifier_service'), []);
    assert.deepEqual(await ids('analyst', 'health_facilities'), ['beds_by_district']);
    assertProblem(
      await get('/v1/datasets/social_protection/aggregates', 'health_planner'),
      403,
      'auth.scope_denied',
    );
  });

  it('filters discovery by each aggregate metadata scope', async () => {
    const edited = await startDemoRelay({
      edit: (text) =>
        text.replace(
          '        access:\n          aggregate_only_execution: true\n        disclosure_control:\n          min_cell_size: 5\n          suppression: omit',
          '        access:\n          metadata_scope: social_protection:admin\n          aggregate_only_execution: true\n        disclosure_control:\n          min_cell_size: 5\n          suppression: omit',
        ),
    });
    try {
      const list = async (as: Persona, path = '/v1/datasets/social_protection/aggregates') =>
        (await edited.get(path, { as }))
          .json()
          .data.map((a: { aggregate_id?: string; id?: string }) => a.aggregate_id ?? a.id);
      assert.deepEqual(await list('catalog_viewer'), ['payments_by_district']);
      assert.deepEqual(await list('analyst'), ['payments_by_district', 'households_by_district']);
      // A hidden aggregate answers as an unknown one: a 403 would confirm that it exists.
      const hidden = '/v1/datasets/social_protection/aggregates/households_by_district/structure';
      assertProblem(
        await edited.get(hidden, { as: 'catalog_viewer' }),
        404,
        'schema.unknown_aggregate',
        'dataset social_protection has no aggregate households_by_district',
      );
      assert.equal((await edited.get(hidden, { as: 'analyst' })).statusCode, 200);
      // Measures and dimensions of a hidden aggregate do not exist for the caller.
      assert.ok(
        !(await list('catalog_viewer', '/v1/datasets/social_protection/measures')).includes('households'),
      );
      assertProblem(
        await edited.get('/v1/datasets/social_protection/measures/households', { as: 'catalog_viewer' }),
        404,
        'schema.unknown_aggregate',
      );
      assert.equal(
        (await edited.get('/v1/datasets/social_protection/measures/households', { as: 'analyst' }))
          .statusCode,
        200,
      );
    } finally {
      await edited.close();
    }
  });

  it('serves an aggregate structure with an ETag, and 404 for an unknown one', async () => {
    const response = await get(`${PAYMENTS}/structure`, 'catalog_viewer');
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.aggregate_id, 'payments_by_district');
    assert.equal(body.source_entity, 'payments');
    assert.deepEqual(body.default_group_by, ['district']);
    assert.deepEqual(
      body.dimensions.map((d: { id: string; field: string }) => [d.id, d.field]),
      [
        ['district', 'household.district'],
        ['cycle', 'cycle'],
        ['payment_status', 'payment_status'],
        ['payment_channel', 'payment_channel'],
      ],
    );
    assert.equal(body.temporal_field, 'cycle');
    assert.deepEqual(body.disclosure_control, {
      method: ['k-anonymity'],
      min_cell_size: 5,
      suppression: 'mask',
      reports_suppressed_observations: false,
    });
    const etag = String(response.headers.etag);
    assert.equal(
      (await get(`${PAYMENTS}/structure`, 'catalog_viewer', { 'if-none-match': etag })).statusCode,
      304,
    );
    assertProblem(
      await get('/v1/datasets/social_protection/aggregates/nope/structure', 'catalog_viewer'),
      404,
      'schema.unknown_aggregate',
    );
    // Scope on the dataset but not on the aggregate: as unknown.
    assertProblem(await get(`${PAYMENTS}/structure`, 'verifier_service'), 404, 'schema.unknown_aggregate');
    // Its execution answers the same: a 403 for the missing aggregate scope would confirm it exists.
    assertProblem(await get(PAYMENTS, 'verifier_service'), 404, 'schema.unknown_aggregate');
    assertProblem(await get(`${PAYMENTS}/structure`, 'health_planner'), 403, 'auth.scope_denied');
  });

  it('describes in the metadata documents only the aggregates the caller may discover', async () => {
    // The payments entity now needs another metadata scope: payments_by_district, which reads it, is hidden from
    // a caller holding only the dataset's metadata scope, in the API and in every metadata document alike.
    const edited = await startDemoRelay({
      edit: (text) =>
        text.replace(
          '          - { name: household, kind: belongs_to, target: households, foreign_key: household_id }\n        access:\n          metadata_scope: social_protection:metadata\n          read_scope: social_protection:rows\n          aggregate_scope: social_protection:aggregate\n        api:\n          default_limit: 50',
          '          - { name: household, kind: belongs_to, target: households, foreign_key: household_id }\n        access:\n          metadata_scope: social_protection:evidence_verification\n          read_scope: social_protection:rows\n          aggregate_scope: social_protection:aggregate\n        api:\n          default_limit: 50',
        ),
    });
    try {
      const ids = (await edited.get('/v1/datasets/social_protection/aggregates', { as: 'catalog_viewer' }))
        .json()
        .data.map((aggregate: { aggregate_id: string }) => aggregate.aggregate_id);
      assert.deepEqual(ids, ['households_by_district']);
      for (const path of ['/metadata/dcat', '/metadata/dcat/bregdcat-ap']) {
        const viewer = await edited.get(path, { as: 'catalog_viewer' });
        assert.equal(viewer.statusCode, 200, viewer.body);
        assert.match(viewer.body, /households_by_district/, path);
        assert.doesNotMatch(viewer.body, /payments_by_district|Payments by district/, path);
        // The analyst holds the aggregate scope: it may discover (and run) the aggregate.
        const analyst = await edited.get(path, { as: 'analyst' });
        assert.match(analyst.body, /payments_by_district/, path);
      }
    } finally {
      await edited.close();
    }
  });

  it('merges measures and dimensions by id across aggregates, with queryable_via', async () => {
    const measures = (await get('/v1/datasets/social_protection/measures', 'analyst')).json();
    const total = measures.data.find((m: { id: string }) => m.id === 'total_amount');
    assert.equal(total.definition_uri, 'https://vocab.example.org/ambit-demo/measures/total-amount');
    assert.deepEqual(total.queryable_via, ['payments_by_district']);
    const dimensions = (await get('/v1/datasets/social_protection/dimensions', 'analyst')).json();
    const district = dimensions.data.find((d: { id: string }) => d.id === 'district');
    assert.deepEqual(district.queryable_via, [
      { aggregate_id: 'payments_by_district', field: 'household.district' },
      { aggregate_id: 'households_by_district', field: 'district' },
    ]);
    const one = (await get('/v1/datasets/social_protection/dimensions/poverty_band', 'analyst')).json();
    assert.deepEqual(one.queryable_via, [{ aggregate_id: 'households_by_district', field: 'poverty_band' }]);
    assertProblem(
      await get('/v1/datasets/social_protection/dimensions/nope', 'analyst'),
      404,
      'schema.unknown_aggregate',
    );
    assertProblem(
      await get('/v1/datasets/social_protection/measures/nope', 'analyst'),
      404,
      'schema.unknown_aggregate',
    );
    assert.deepEqual(
      (await get('/v1/datasets/social_protection/measures', 'verifier_service')).json().data,
      [],
    );
  });

  it('keeps definition_uri out of SDMX output', async () => {
    const json = await get(PAYMENTS, 'analyst');
    const sdmx = await get(`${PAYMENTS}?f=sdmx-json`, 'analyst');
    assert.ok(json.body.includes('definition_uri'));
    assert.ok(!sdmx.body.includes('definition_uri'));
    assert.ok(!sdmx.body.includes('measures/total-amount'));
  });
});
