// Relationship routes (belongs_to, has_many) and `?expand=` embedding, including truncation and scope denial.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Persona, TestRelay } from '../helpers/relay-harness.ts';
import { startDemoRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { type DemoData, type Row, readDemoData } from './read-demo-data.ts';
import { walkPages } from './walk-pages.ts';

const SP = '/v1/datasets/social_protection/entities';
const HOUSEHOLDS = `${SP}/households/records`;
const MEMBERS = `${SP}/members/records`;
const PAYMENTS = `${SP}/payments/records`;
const ETAG = /^"sha256:[0-9a-f]{64}"$/;

/** A scope no demo persona holds except where granted below. */
const MEMBER_SCOPE = 'social_protection:evidence_verification';

/**
 * The demo config with members capped at 5 per expansion or page, and readable only with MEMBER_SCOPE
 * (granted to the caseworker, not to the verifier service).
 */
function restrictMembers(text: string): string {
  const start = text.indexOf('      - name: members\n');
  const end = text.indexOf('      - name: payments\n', start);
  assert.ok(start > 0 && end > start, 'members entity found in the demo config');
  const members = text
    .slice(start, end)
    .replace('read_scope: social_protection:rows', `read_scope: ${MEMBER_SCOPE}`)
    .replace('default_limit: 25', 'default_limit: 5');
  const grant = '        name: AMBIT_DEMO_CASEWORKER_HASH\n      scopes:\n';
  const edited = text.slice(0, start) + members + text.slice(end);
  assert.ok(edited.includes(grant), 'caseworker key found in the demo config');
  return edited.replace(grant, `${grant}        - ${MEMBER_SCOPE}\n`);
}

describe('relationships and expansions', () => {
  let relay: TestRelay;
  let restricted: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, restricted, demo] = await Promise.all([
      startDemoRelay(),
      startDemoRelay({ edit: restrictMembers }),
      readDemoData(),
    ]);
  });
  after(() => Promise.all([relay.close(), restricted.close()]));

  const membersOf = (householdId: unknown) => demo.members.filter((row) => row.household_id === householdId);
  const paymentsOf = (householdId: unknown) =>
    demo.payments.filter((row) => row.household_id === householdId);
  const household = (householdId: unknown) => demo.households.find((row) => row.household_id === householdId);

  async function getJson(path: string, as: Persona = 'caseworker', on = relay) {
    const response = await on.get(path, { as });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    return { response, body: response.json() };
  }

  describe('has_many route', () => {
    it('lists every household’s members and payments as a page, matching the workbook', async () => {
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
      const empty = demo.households.filter((row) => membersOf(row.household_id).length === 0);
      assert.deepEqual(
        empty.map((row) => row.household_id),
        ['hh-1030', 'hh-1031', 'hh-1051', 'hh-1060', 'hh-1066', 'hh-1067', 'hh-1107', 'hh-1119'],
      );
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1030/relationships/members`);
      assert.deepEqual(body, { data: [], pagination: { has_more: false } });
    });

    it('paginates with limit and cursor, by next_cursor and by Link', async () => {
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

  describe('expansions', () => {
    it('embed every household’s members and payments, after the fields, with _expansion marks', async () => {
      const { body } = await getJson(`${HOUSEHOLDS}?expand=members,payments&limit=200`);
      assert.equal(body.data.length, 120);
      for (const row of body.data) {
        const id = row.household_id;
        assert.deepEqual(row, {
          ...household(id),
          members: membersOf(id),
          payments: paymentsOf(id),
          _expansion: { members: { truncated: false }, payments: { truncated: false } },
        });
        assert.deepEqual(Object.keys(row).slice(-3), ['members', 'payments', '_expansion']);
      }
    });

    it('embed the parent of members and payments without an _expansion mark', async () => {
      const members = await getJson(`${MEMBERS}?expand=household&limit=200`);
      for (const row of members.body.data) {
        assert.deepEqual(row, {
          ...demo.members.find((m) => m.member_id === row.member_id),
          household: household(row.household_id),
        });
      }
      const pages = await walkPages(relay, `${PAYMENTS}?expand=household&limit=100`, {
        as: 'caseworker',
        follow: 'link',
      });
      assert.deepEqual(
        pages.flatMap((page) => page.data),
        demo.payments.map((row) => ({ ...row, household: household(row.household_id) })),
      );
    });

    it('combine with a projection on records and collections', async () => {
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1033?fields=household_id&expand=payments,members`);
      assert.deepEqual(body, {
        household_id: 'hh-1033',
        payments: paymentsOf('hh-1033'),
        members: membersOf('hh-1033'),
        _expansion: { payments: { truncated: false }, members: { truncated: false } },
      });
      const page = await getJson(`${HOUSEHOLDS}?district=dunmere&fields=household_id&expand=members,members`);
      assert.deepEqual(
        page.body.data,
        demo.households
          .filter((row) => row.district === 'dunmere')
          .map((row) => ({
            household_id: row.household_id,
            members: membersOf(row.household_id),
            _expansion: { members: { truncated: false } },
          })),
      );
    });

    it('embed an empty list for a household without members', async () => {
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1030?expand=members`);
      assert.deepEqual(body.members, []);
      assert.deepEqual(body._expansion, { members: { truncated: false } });
    });

    it('cap has_many lists at the target default_limit and mark them truncated', async () => {
      const { body } = await getJson(`${HOUSEHOLDS}?expand=members&limit=200`, 'caseworker', restricted);
      let truncated = 0;
      let exactlyFull = 0;
      for (const row of body.data) {
        const all = membersOf(row.household_id);
        assert.deepEqual(row.members, all.slice(0, 5), String(row.household_id));
        assert.deepEqual(row._expansion, { members: { truncated: all.length > 5 } });
        if (all.length > 5) truncated++;
        if (all.length === 5) exactlyFull++;
      }
      assert.ok(truncated > 0 && exactlyFull > 0, 'the data has households above and at the cap');
      const record = await getJson(`${HOUSEHOLDS}/hh-1033?expand=members`, 'caseworker', restricted);
      assert.deepEqual(
        record.body.members.map((row: Row) => row.member_id),
        ['mem-5094', 'mem-5095', 'mem-5096', 'mem-5097', 'mem-5098'],
      );
      assert.equal(record.body._expansion.members.truncated, true);
    });

    it('leave the relationship route paginated at the target default_limit', async () => {
      const first = await getJson(`${HOUSEHOLDS}/hh-1033/relationships/members`, 'caseworker', restricted);
      assert.deepEqual(first.body.data, membersOf('hh-1033').slice(0, 5));
      assert.equal(first.body.pagination.has_more, true);
      const second = await getJson(
        `${HOUSEHOLDS}/hh-1033/relationships/members?cursor=${first.body.pagination.next_cursor}`,
        'caseworker',
        restricted,
      );
      assert.deepEqual(second.body, { data: membersOf('hh-1033').slice(5), pagination: { has_more: false } });
    });
  });
});

describe('required filters are not bypassed by other reads of the entity', () => {
  const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';
  const PURPOSE_HEADER = { 'data-purpose': 'https://demo.example.gov/purpose/benefit-eligibility' };

  it('a read by id needs the primary key among the required filters', async () => {
    const byNationalIdOnly = await startDemoRelay({
      edit: (text) =>
        text.replace('required_filters: [person_id, national_id]', 'required_filters: [national_id]'),
    });
    const demo = await readDemoData();
    const person = demo.persons[0] as Row;
    try {
      assertProblem(
        await byNationalIdOnly.get(`${PERSONS}/${person.person_id}`, {
          as: 'caseworker',
          headers: PURPOSE_HEADER,
        }),
        400,
        'entity.filter_required',
      );
      const found = await byNationalIdOnly.get(`${PERSONS}?national_id=${person.national_id}`, {
        as: 'caseworker',
        headers: PURPOSE_HEADER,
      });
      assert.equal(found.statusCode, 200, found.body);
    } finally {
      await byNationalIdOnly.close();
    }
    // The demo lists person_id: its records are read by id.
    const demoRelay = await startDemoRelay();
    try {
      const record = await demoRelay.get(`${PERSONS}/${person.person_id}`, {
        as: 'caseworker',
        headers: PURPOSE_HEADER,
      });
      assert.equal(record.statusCode, 200, record.body);
    } finally {
      await demoRelay.close();
    }
  });

  it('a relationship (and so its expansion) into an entity must read it by one of its required filters', async () => {
    const gateMembers = (text: string) => {
      const start = text.indexOf('      - name: members\n');
      const at = text.indexOf('          allowed_filters:', start);
      return `${text.slice(0, at)}          required_filters: [member_id]\n${text.slice(at)}`;
    };
    await assert.rejects(startDemoRelay({ edit: gateMembers }), (error: unknown) => {
      assert.match(
        String((error as Error).message),
        /relationships\.0\.target.*`members` requires an equality filter on one of member_id.*household_id/,
      );
      return true;
    });
  });
});

describe('required filters on either end of a relationship', () => {
  const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
  const MEMBERS = '/v1/datasets/social_protection/entities/members/records';

  /** Members required to be filtered by household_id, and a has_one from households into them. */
  const gateMembersByHousehold = (text: string) => {
    const start = text.indexOf('      - name: members\n');
    const at = text.indexOf('          allowed_filters:', start);
    const gated = `${text.slice(0, at)}          required_filters: [household_id]\n${text.slice(at)}`;
    const payments =
      '          - { name: payments, kind: has_many, target: payments, foreign_key: household_id }\n';
    assert.ok(gated.includes(payments));
    return gated.replace(
      payments,
      `${payments}          - { name: first_member, kind: has_one, target: members, foreign_key: household_id }\n`,
    );
  };

  it('a has_one reads its target by its foreign key, so one required there is satisfied', async () => {
    const relay = await startDemoRelay({ edit: gateMembersByHousehold });
    const demo = await readDemoData();
    const member = demo.members[0] as Row;
    try {
      const one = await relay.get(`${HOUSEHOLDS}/${member.household_id}/relationships/first_member`, {
        as: 'caseworker',
      });
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().household_id, member.household_id);
      // The source of a relationship read is a record read by id: refused where the record route refuses it.
      assertProblem(
        await relay.get(`${MEMBERS}/${member.member_id}/relationships/household`, { as: 'caseworker' }),
        400,
        'entity.filter_required',
      );
      assertProblem(
        await relay.get(`${MEMBERS}/${member.member_id}`, { as: 'caseworker' }),
        400,
        'entity.filter_required',
      );
    } finally {
      await relay.close();
    }
  });
});

describe('relationships to entities the caller cannot see', () => {
  /** Members' metadata (and rows) under a scope only the caseworker is granted; the analyst sees the dataset. */
  const hideMembers = (text: string) => {
    const start = text.indexOf('      - name: members\n');
    const end = text.indexOf('      - name: payments\n', start);
    const members = text
      .slice(start, end)
      .replace('metadata_scope: social_protection:metadata', `metadata_scope: ${MEMBER_SCOPE}`);
    return restrictMembers(text.slice(0, start) + members + text.slice(end));
  };

  it('are left out of the schema, the metadata and the OpenAPI document; the caller with the scope sees them', async () => {
    const relay = await startDemoRelay({ edit: hideMembers });
    try {
      const names = (body: { relationships: { name: string }[] }) =>
        body.relationships.map((rel) => rel.name);
      const schema = (as: Persona) =>
        relay.get('/v1/datasets/social_protection/entities/households/schema', { as });
      assert.deepEqual(names((await schema('analyst')).json()), ['payments']);
      assert.deepEqual(names((await schema('caseworker')).json()), ['members', 'payments']);

      const metadata = (as: Persona) =>
        relay.get('/metadata/datasets/social_protection/entities/households', { as });
      const analystMeta = await metadata('analyst');
      assert.equal(analystMeta.statusCode, 200, analystMeta.body);
      assert.doesNotMatch(analystMeta.body, /"members"/);
      assert.match((await metadata('caseworker')).body, /"members"/);

      const openapi = (await relay.get('/openapi.json', { as: 'analyst' })).body;
      assert.doesNotMatch(openapi, /relationships\/members|members, payments/);
      assert.match(openapi, /households\/records\/\{id\}\/relationships\/payments/);
      assert.match(
        (await relay.get('/openapi.json', { as: 'caseworker' })).body,
        /households\/records\/\{id\}\/relationships\/members/,
      );
    } finally {
      await relay.close();
    }
  });
});
