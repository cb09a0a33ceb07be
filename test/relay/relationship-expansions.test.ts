// `?expand=` embedding of relationships: placement, _expansion marks, projections, empty lists and truncation at
// the target default_limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from './read-demo-data.ts';
import { HOUSEHOLDS, MEMBERS, PAYMENTS, useRelationships } from './relationships-fixture.ts';
import { walkPages } from './walk-pages.ts';

describe('relationships and expansions', () => {
  const setup = useRelationships();

  describe('expansions', () => {
    it('embed every household’s members and payments, after the fields, with _expansion marks', async () => {
      const { membersOf, paymentsOf, household, getJson } = setup;
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
      const { relay, demo, household, getJson } = setup;
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
      const { demo, membersOf, paymentsOf, getJson } = setup;
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
      const { getJson } = setup;
      const { body } = await getJson(`${HOUSEHOLDS}/hh-1030?expand=members`);
      assert.deepEqual(body.members, []);
      assert.deepEqual(body._expansion, { members: { truncated: false } });
    });

    it('cap has_many lists at the target default_limit and mark them truncated', async () => {
      const { restricted, membersOf, getJson } = setup;
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
      const { restricted, membersOf, getJson } = setup;
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
