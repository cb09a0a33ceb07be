// The scope and error-precedence matrix of every demo persona over the read routes, and credential handling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import {
  type Persona,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';

type DatasetId = 'civil_registry' | 'social_protection' | 'health_facilities';

const DATASETS: readonly DatasetId[] = ['civil_registry', 'social_protection', 'health_facilities'];
const ENTITIES: Record<DatasetId, readonly string[]> = {
  civil_registry: ['persons'],
  social_protection: ['households', 'members', 'payments'],
  health_facilities: ['facilities'],
};

/** The demo personas' scopes, as documented in demo/README.md. */
const SCOPES: Record<Persona, readonly string[]> = {
  catalog_viewer: ['civil_registry:metadata', 'social_protection:metadata', 'health_facilities:metadata'],
  caseworker: [
    'social_protection:metadata',
    'social_protection:rows',
    'civil_registry:metadata',
    'civil_registry:rows',
  ],
  analyst: [
    'civil_registry:metadata',
    'civil_registry:aggregate',
    'social_protection:metadata',
    'social_protection:aggregate',
    'health_facilities:metadata',
    'health_facilities:aggregate',
  ],
  health_planner: ['health_facilities:metadata', 'health_facilities:rows'],
  verifier_service: ['civil_registry:rows', 'social_protection:rows'],
  operator: ['relay:admin', 'relay:ops_read', 'relay:metrics_read'],
};
const PERSONAS = Object.keys(SCOPES) as Persona[];

const has = (persona: Persona, scope: string) => SCOPES[persona].includes(scope);
const anyScope = (persona: Persona, dataset: string) =>
  SCOPES[persona].some((scope) => scope.startsWith(`${dataset}:`));

/** One record-level probe per dataset: a collection query, a record id and the purpose header where required. */
const PROBES: Record<
  DatasetId,
  { entity: string; query: string; id: string; headers: Record<string, string> }
> = {
  civil_registry: {
    entity: 'persons',
    query: 'person_id=per-10001',
    id: 'per-10001',
    headers: { 'data-purpose': PURPOSE },
  },
  social_protection: { entity: 'households', query: 'district=dunmere', id: 'hh-1033', headers: {} },
  health_facilities: { entity: 'facilities', query: 'district=dunmere', id: 'fac-4001', headers: {} },
};

describe('scopes and precedence', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  function expectStatus(response: Response, allowed: boolean, scope: string, what: string): void {
    if (allowed) {
      assert.equal(response.statusCode, 200, `${what}: ${response.body.slice(0, 200)}`);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    } else {
      assertProblem(response, 403, 'auth.scope_denied', `required scope: ${scope}`);
      // RFC 6750 §3.1: an OAuth client tells a missing scope from a bad token by this challenge.
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="ambit", error="insufficient_scope"');
    }
  }

  describe('persona matrix', () => {
    for (const persona of PERSONAS) {
      describe(persona, () => {
        it('lists exactly the datasets it holds a metadata scope on', async () => {
          const response = await relay.get('/v1/datasets', { as: persona });
          assert.equal(response.statusCode, 200);
          const listed = response.json().data.map((dataset: { dataset_id: string }) => dataset.dataset_id);
          assert.deepEqual(
            listed,
            DATASETS.filter((dataset) => has(persona, `${dataset}:metadata`)),
          );
          for (const summary of response.json().data) {
            assert.deepEqual(summary.entities, ENTITIES[summary.dataset_id as DatasetId]);
          }
        });

        it('reads dataset summaries and entity schemas only with the metadata scope', async () => {
          for (const dataset of DATASETS) {
            const scope = `${dataset}:metadata`;
            const summary = await relay.get(`/v1/datasets/${dataset}`, { as: persona });
            expectStatus(summary, has(persona, scope), scope, `${persona} summary ${dataset}`);
            if (summary.statusCode === 200) {
              assert.equal(summary.json().dataset_id, dataset);
              assert.deepEqual(summary.json().entities, ENTITIES[dataset]);
            }
            for (const entity of ENTITIES[dataset]) {
              const schema = await relay.get(`/v1/datasets/${dataset}/entities/${entity}/schema`, {
                as: persona,
              });
              expectStatus(schema, has(persona, scope), scope, `${persona} schema ${entity}`);
              if (schema.statusCode === 200) assert.equal(schema.json().entity, entity);
            }
          }
        });

        it('reads collections, records and relationships only with the rows scope', async () => {
          for (const dataset of DATASETS) {
            const scope = `${dataset}:rows`;
            const allowed = has(persona, scope);
            const { entity, query, id, headers } = PROBES[dataset];
            const base = `/v1/datasets/${dataset}/entities/${entity}/records`;
            const collection = await relay.get(`${base}?${query}`, { as: persona, headers });
            expectStatus(collection, allowed, scope, `${persona} ${entity} collection`);
            if (allowed) assert.ok(collection.json().data.length > 0);
            const record = await relay.get(`${base}/${id}`, { as: persona, headers });
            expectStatus(record, allowed, scope, `${persona} ${entity} record`);
            if (allowed) assert.equal(Object.values(record.json())[0], id);
          }
          const relationship = await relay.get(
            '/v1/datasets/social_protection/entities/households/records/hh-1033/relationships/members',
            { as: persona },
          );
          expectStatus(
            relationship,
            has(persona, 'social_protection:rows'),
            'social_protection:rows',
            'relationship',
          );
        });

        it('gets 403 for an unknown dataset on every route, never 404', async () => {
          const routes: [string, string][] = [
            ['/v1/datasets/nope', 'nope:metadata'],
            ['/v1/datasets/nope/entities/persons/schema', 'nope:metadata'],
            ['/v1/datasets/nope/entities/persons/records?person_id=per-10001', 'nope:rows'],
            ['/v1/datasets/nope/entities/persons/records/per-10001', 'nope:rows'],
            ['/v1/datasets/nope/entities/households/records/hh-1033/relationships/members', 'nope:rows'],
            ['/v1/datasets/civil_registry_x/entities/persons/records/per-10001', 'civil_registry_x:rows'],
          ];
          for (const [path, scope] of routes) {
            assertProblem(
              await relay.get(path, { as: persona, headers: { 'data-purpose': PURPOSE } }),
              403,
              'auth.scope_denied',
              `required scope: ${scope}`,
            );
          }
        });

        it('gets 404 for an unknown entity only on a dataset it holds some scope on', async () => {
          for (const dataset of DATASETS) {
            for (const path of [
              `/v1/datasets/${dataset}/entities/nope/schema`,
              `/v1/datasets/${dataset}/entities/nope/records`,
              `/v1/datasets/${dataset}/entities/nope/records/x`,
              // Table ids are not entities.
              `/v1/datasets/${dataset}/entities/${dataset === 'health_facilities' ? 'hf_facilities' : 'civil_persons'}/records`,
            ]) {
              const response = await relay.get(path, { as: persona });
              if (anyScope(persona, dataset)) assertProblem(response, 404, 'schema.unknown_resource');
              else assertProblem(response, 403, 'auth.scope_denied');
            }
          }
        });

        it('gets 404 for an unknown record id only with the rows scope', async () => {
          for (const dataset of DATASETS) {
            const { entity, headers } = PROBES[dataset];
            const response = await relay.get(
              `/v1/datasets/${dataset}/entities/${entity}/records/unknown-id`,
              {
                as: persona,
                headers,
              },
            );
            if (has(persona, `${dataset}:rows`)) assertProblem(response, 404, 'schema.unknown_resource');
            else assertProblem(response, 403, 'auth.scope_denied', `required scope: ${dataset}:rows`);
          }
        });
      });
    }
  });

  describe('precedence', () => {
    const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';

    it('checks the read scope before the purpose and the parameters', async () => {
      for (const as of ['analyst', 'catalog_viewer', 'health_planner', 'operator'] as const) {
        for (const path of [
          `${PERSONS}`,
          `${PERSONS}?limit=0`,
          `${PERSONS}/per-10001`,
          `${PERSONS}?district.foo=1`,
        ]) {
          assertProblem(
            await relay.get(path, { as }),
            403,
            'auth.scope_denied',
            'required scope: civil_registry:rows',
          );
        }
      }
      assertProblem(
        await relay.get('/v1/datasets/social_protection/entities/households/records?limit=0&fields=nope', {
          as: 'analyst',
        }),
        403,
        'auth.scope_denied',
      );
    });

    it('then the purpose, then the parameters, then the required filters', async () => {
      for (const as of ['caseworker', 'verifier_service'] as const) {
        assertProblem(await relay.get(`${PERSONS}?limit=0`, { as }), 400, 'auth.purpose_required');
        // An expansion is a parameter too, on the collection and on a record: the purpose comes first.
        for (const path of [`${PERSONS}?expand=nope`, `${PERSONS}/per-10001?expand=nope`]) {
          assertProblem(await relay.get(path, { as }), 400, 'auth.purpose_required');
        }
        const headers = { 'data-purpose': PURPOSE };
        assertProblem(
          await relay.get(`${PERSONS}?limit=0`, { as, headers }),
          400,
          'filter.limit_out_of_range',
        );
        for (const path of [`${PERSONS}?expand=nope`, `${PERSONS}/per-10001?expand=nope`]) {
          assertProblem(await relay.get(path, { as, headers }), 400, 'expand.not_allowed');
        }
        assertProblem(await relay.get(PERSONS, { as, headers }), 400, 'entity.filter_required');
        const ok = await relay.get(`${PERSONS}?national_id=FAKE-412781`, { as, headers });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.json().data[0].person_id, 'per-10001');
      }
    });

    it('authenticates before anything else', async () => {
      for (const path of [
        '/v1/datasets',
        '/v1/datasets/nope',
        '/v1/datasets/civil_registry',
        '/v1/datasets/civil_registry/entities/persons/schema',
        `${PERSONS}?limit=0`,
        `${PERSONS}/per-10001`,
        '/v1/datasets/nope/entities/x/records/y/relationships/z',
      ]) {
        const response = await relay.get(path);
        assertProblem(response, 401, 'auth.missing_credential');
        assert.equal(response.headers['www-authenticate'], 'Bearer realm="ambit"');
      }
    });
  });

  describe('credentials', () => {
    const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records?limit=1';
    const FACILITIES = '/v1/datasets/health_facilities/entities/facilities/records?limit=1';

    async function expect401(headers: Record<string, string>, code: string) {
      const response = await relay.get(HOUSEHOLDS, { headers });
      assertProblem(response, 401, code);
      assert.match(String(response.headers['www-authenticate']), /^Bearer realm="ambit"/);
    }

    it('answers 401 auth.missing_credential without a credential header', async () => {
      await expect401({}, 'auth.missing_credential');
      await expect401({ 'x-other-key': TEST_KEYS.caseworker }, 'auth.missing_credential');
    });

    it('answers 401 auth.malformed_credential for a badly formed header', async () => {
      for (const authorization of [
        'Basic dXNlcjpwYXNz',
        'Bearer',
        'Bearer ',
        `Bearer ${TEST_KEYS.caseworker} extra`,
        TEST_KEYS.caseworker,
        'Token abc',
        '',
      ]) {
        await expect401({ authorization }, 'auth.malformed_credential');
      }
      for (const key of ['', '   ']) await expect401({ 'x-api-key': key }, 'auth.malformed_credential');
    });

    it('answers 401 auth.invalid_credential for an unknown key', async () => {
      await expect401({ authorization: 'Bearer not-a-demo-key' }, 'auth.invalid_credential');
      await expect401(
        { authorization: `Bearer ${TEST_KEYS.caseworker.toUpperCase()}` },
        'auth.invalid_credential',
      );
      await expect401({ authorization: `Bearer ${TEST_KEYS.caseworker}x` }, 'auth.invalid_credential');
      await expect401({ 'x-api-key': 'not-a-demo-key' }, 'auth.invalid_credential');
    });

    it('accepts the key in x-api-key and a case-insensitive Bearer scheme', async () => {
      const accepted: Record<string, string>[] = [
        { 'x-api-key': TEST_KEYS.caseworker },
        { 'x-api-key': ` ${TEST_KEYS.caseworker} ` },
        { authorization: `bearer ${TEST_KEYS.caseworker}` },
      ];
      for (const headers of accepted) {
        const response = await relay.get(HOUSEHOLDS, { headers });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().data[0].household_id, 'hh-1001');
      }
      assertProblem(
        await relay.get(FACILITIES, { headers: { 'x-api-key': TEST_KEYS.caseworker } }),
        403,
        'auth.scope_denied',
      );
    });

    it('uses Authorization when both headers are sent', async () => {
      const both = { authorization: `Bearer ${TEST_KEYS.health_planner}`, 'x-api-key': TEST_KEYS.caseworker };
      assertProblem(await relay.get(HOUSEHOLDS, { headers: both }), 403, 'auth.scope_denied');
      assert.equal((await relay.get(FACILITIES, { headers: both })).statusCode, 200);
      await expect401(
        { authorization: 'Bearer not-a-demo-key', 'x-api-key': TEST_KEYS.caseworker },
        'auth.invalid_credential',
      );
      await expect401(
        { authorization: 'Basic abc', 'x-api-key': TEST_KEYS.caseworker },
        'auth.malformed_credential',
      );
    });
  });
});
