// Relationship routes (has_many, belongs_to) against the workbook: pages, parameters, unknown names and the read
// scopes of both ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Persona } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import type { Row } from './read-demo-data.ts';
import {
  ETAG,
  HOUSEHOLDS,
  MEMBER_SCOPE,
  MEMBERS,
  PAYMENTS,
  SP,
  useRelationships,
} from './relationships-fixture.ts';
import { walkPages } from './walk-pages.ts';

describe('relationships and expansions', () => {
  const setup = useRelationships();

  describe('has_many route', () => {
    it('lists every household’s members and payments as a page, matching the workbook', async () => {
      const { demo, membersOf, paymentsOf, getJson } = setup;
      await Promise.all(
        demo.households.map(async (row) => {
          const id = row.household_id;
          for (const [name, expected] of [
            ['members', membersOf(id)],
            ['payments', paymentsOf(id)],
          ] as const) {
            const { response, body } = await getJson(`${HOUSEHOLDS}/${id}/relationships/${name}`);
            assert.deepEqual(body, { data: expected, pagination: { has_more: false } }, `${id} ${name}`);
            assert.match(String(response.headers.etag), ETAG);
            assert.equal(response.headers.link, undefined);
          }
        }),
      );
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1033/relationships/members`);
      assert.deepEqual(
        body.data.map((row: Row) => row.member_id),
        ['mem-5094', 'mem-5095', 'mem-5096', 'mem-5097', 'mem-5098', 'mem-5099', 'mem-5100', 'mem-5101'],
      );
    });

    it('answers an empty page for a household without members', async () => {
      const { demo, membersOf, getJson } = setup;
      const empty = demo.households.filter((row) => membersOf(row.household_id).length === 0);
      assert.deepEqual(
        empty.map((row) => row.household_id),
        ['hh-1030', 'hh-1031', 'hh-1051', 'hh-1060', 'hh-1066', 'hh-1067', 'hh-1107', 'hh-1119'],
      );
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1030/relationships/members`);
      assert.deepEqual(body, { data: [], pagination: { has_more: false } });
    });

    it('paginates with limit and cursor, by next_cursor and by Link', async () => {
      const { relay, membersOf, getJson } = setup;
      const expected = membersOf('hh-1033');
      for (const follow of ['cursor', 'link'] as const) {
        const pages = await walkPages(relay, `${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`, {
          as: 'caseworker',
          follow,
        });
        assert.deepEqual(
          pages.map((page) => page.data.length),
          [3, 3, 2],
        );
        assert.deepEqual(
          pages.flatMap((page) => page.data),
          expected,
        );
      }
      const { response, body } = await getJson(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=7`);
      assert.equal(body.pagination.has_more, true);
      assert.equal(
        response.headers.link,
        `<${HOUSEHOLDS}/hh-1033/relationships/members?limit=7&cursor=${body.pagination.next_cursor}>; rel="next"`,
      );
      const exact = await getJson(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=8`);
      assert.deepEqual(exact.body.pagination, { has_more: false });
    });

    it('accepts only limit and cursor', async () => {
      const { relay } = setup;
      for (const query of [
        'role=head',
        'role.in=head',
        'fields=member_id',
        'expand=household',
        'sort=member_id',
      ]) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/members?${query}`, { as: 'caseworker' }),
          400,
          'filter.not_allowed',
        );
      }
      for (const limit of ['0', '201', 'x']) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=${limit}`, { as: 'caseworker' }),
          400,
          'filter.limit_out_of_range',
          'limit must be an integer from 1 to 200',
        );
      }
      assertProblem(
        await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/payments?limit=501`, { as: 'caseworker' }),
        400,
        'filter.limit_out_of_range',
      );
      assertProblem(
        await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=1&limit=2`, { as: 'caseworker' }),
        400,
        'filter.invalid_value',
      );
    });
  });

  describe('belongs_to route', () => {
    it('returns the bare parent record for members and payments', async () => {
      const { demo, household, getJson } = setup;
      const children = [
        ...demo.members
          .filter((_, i) => i % 7 === 0)
          .map((row) => [MEMBERS, row.member_id, row.household_id] as const),
        ...demo.payments
          .filter((_, i) => i % 9 === 0)
          .map((row) => [PAYMENTS, row.payment_id, row.household_id] as const),
      ];
      await Promise.all(
        children.map(async ([path, id, parent]) => {
          const { response, body } = await getJson(`${path}/${id}/relationships/household`);
          assert.deepEqual(body, household(parent), `${id}`);
          assert.match(String(response.headers.etag), ETAG);
        }),
      );
      const { body } = await getJson(`${MEMBERS}/mem-5001/relationships/household`);
      assert.equal(body.household_id, 'hh-1001');
      assert.equal(body.data, undefined);
    });

    it('accepts no parameters at all', async () => {
      const { relay } = setup;
      for (const query of ['limit=1', 'cursor=x', 'fields=household_id', 'district=redfield']) {
        assertProblem(
          await relay.get(`${MEMBERS}/mem-5001/relationships/household?${query}`, { as: 'caseworker' }),
          400,
          'filter.not_allowed',
        );
      }
    });
  });

  describe('unknown names and scopes', () => {
    it('answers 404 for an unknown relationship or source record', async () => {
      const { relay } = setup;
      const cases: [string, Persona][] = [
        [`${HOUSEHOLDS}/hh-1033/relationships/nope`, 'caseworker'],
        [`${HOUSEHOLDS}/hh-1033/relationships/household`, 'caseworker'],
        [`${HOUSEHOLDS}/hh-1033/relationships/households`, 'caseworker'],
        [`${MEMBERS}/mem-5001/relationships/members`, 'caseworker'],
        [`${HOUSEHOLDS}/hh-9999/relationships/members`, 'caseworker'],
        [`${MEMBERS}/mem-9999/relationships/household`, 'caseworker'],
        [`${PAYMENTS}/hh-1033/relationships/household`, 'caseworker'],
        [
          '/v1/datasets/health_facilities/entities/facilities/records/fac-4001/relationships/district',
          'health_planner',
        ],
        [`${SP}/nope/records/x/relationships/members`, 'caseworker'],
      ];
      for (const [path, as] of cases) {
        assertProblem(await relay.get(path, { as }), 404, 'schema.unknown_resource');
      }
    });

    it('reports an unknown relationship before a missing read scope, but never to a caller with no scope on the dataset', async () => {
      const { relay } = setup;
      for (const as of ['analyst', 'catalog_viewer'] as const) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/nope`, { as }),
          404,
          'schema.unknown_resource',
        );
        assertProblem(
          await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/members`, { as }),
          403,
          'auth.scope_denied',
          'required scope: social_protection:rows',
        );
        assertProblem(
          await relay.get(`${MEMBERS}/mem-5001/relationships/household`, { as }),
          403,
          'auth.scope_denied',
        );
      }
      for (const as of ['health_planner', 'operator'] as const) {
        for (const name of ['members', 'nope']) {
          assertProblem(
            await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/${name}`, { as }),
            403,
            'auth.scope_denied',
          );
        }
      }
      assertProblem(
        await relay.get('/v1/datasets/nope/entities/households/records/hh-1033/relationships/members', {
          as: 'caseworker',
        }),
        403,
        'auth.scope_denied',
      );
    });

    it('needs the read scope of both the source and the target', async () => {
      const { restricted, membersOf, paymentsOf, getJson } = setup;
      assertProblem(
        await restricted.get(`${HOUSEHOLDS}/hh-1033/relationships/members`, { as: 'verifier_service' }),
        403,
        'auth.scope_denied',
        `required scope: ${MEMBER_SCOPE}`,
      );
      assertProblem(
        await restricted.get(`${MEMBERS}/mem-5001/relationships/household`, { as: 'verifier_service' }),
        403,
        'auth.scope_denied',
        `required scope: ${MEMBER_SCOPE}`,
      );
      const payments = await getJson(
        `${HOUSEHOLDS}/hh-1033/relationships/payments`,
        'verifier_service',
        restricted,
      );
      assert.deepEqual(payments.body.data, paymentsOf('hh-1033'));
      const members = await getJson(
        `${HOUSEHOLDS}/hh-1033/relationships/members?limit=8`,
        'caseworker',
        restricted,
      );
      assert.deepEqual(members.body.data, membersOf('hh-1033'));
    });

    it('refuses an expansion whose target the caller cannot read', async () => {
      const { restricted, paymentsOf, getJson } = setup;
      for (const path of [
        `${HOUSEHOLDS}?expand=members`,
        `${HOUSEHOLDS}/hh-1033?expand=members`,
        `${HOUSEHOLDS}?expand=payments,members`,
      ]) {
        assertProblem(
          await restricted.get(path, { as: 'verifier_service' }),
          403,
          'auth.scope_denied',
          /requires scope social_protection:evidence_verification/,
        );
      }
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1033?expand=payments`, 'verifier_service', restricted);
      assert.deepEqual(body.payments, paymentsOf('hh-1033'));
    });
  });
});
