// Entity collection and record reads against the demo files: the collection envelope, a record by id,
// projection with fields, and pagination by cursor and by Link.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Persona } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import type { Row } from './read-demo-data.ts';
import { CR, HF, ids, SP, useRecordReads, WITH_PURPOSE, where } from './record-reads-fixture.ts';
import { walkPages } from './walk-pages.ts';

describe('entity record reads', () => {
  const setup = useRecordReads();

  describe('collection envelope', () => {
    it('serves default_limit rows in primary-key order with has_more, next_cursor and a Link', async () => {
      const { demo, getJson } = setup;
      const { response, body } = await getJson(`${SP}/households/records`);
      assert.deepEqual(Object.keys(body), ['data', 'pagination']);
      assert.deepEqual(body.data, demo.households.slice(0, 25));
      assert.equal(body.pagination.has_more, true);
      assert.equal(typeof body.pagination.next_cursor, 'string');
      assert.equal(
        response.headers.link,
        `<${SP}/households/records?cursor=${body.pagination.next_cursor}>; rel="next"`,
      );
    });

    it('ends with has_more false and neither next_cursor nor Link', async () => {
      const { demo, getJson } = setup;
      const { response, body } = await getJson(`${SP}/households/records?limit=200`);
      assert.deepEqual(body.data, demo.households);
      assert.deepEqual(body.pagination, { has_more: false });
      assert.equal(response.headers.link, undefined);
    });

    it('answers a filter that matches nothing with an empty page', async () => {
      const { getJson } = setup;
      const { response, body } = await getJson(`${SP}/households/records?district=nowhere`);
      assert.deepEqual(body, { data: [], pagination: { has_more: false } });
      assert.equal(response.headers.link, undefined);
    });

    it('renders each entity with its public names (renamed columns included) in field order', async () => {
      const { demo, allRows } = setup;
      const households = await allRows(`${SP}/households/records?limit=200`);
      assert.deepEqual(Object.keys(households[0] ?? {}), Object.keys(demo.households[0] ?? {}));
      const facilities = await allRows(`${HF}/facilities/records?limit=500`, 'health_planner');
      assert.deepEqual(facilities, demo.facilities);
      assert.deepEqual(Object.keys(facilities[0] ?? {}), [
        'facility_id',
        'facility_name',
        'district',
        'facility_type',
        'ownership',
        'beds',
        'opened_on',
        'latitude',
        'longitude',
      ]);
    });
  });

  describe('record by id', () => {
    it('returns the bare object for each entity', async () => {
      const { demo, getJson } = setup;
      const cases: [string, Persona, Row | undefined, Record<string, string>][] = [
        [`${SP}/households/records/hh-1033`, 'caseworker', demo.households[32], {}],
        [`${SP}/members/records/mem-5001`, 'caseworker', demo.members[0], {}],
        [`${SP}/payments/records/pay-7460`, 'caseworker', demo.payments[459], {}],
        [`${HF}/facilities/records/fac-4150`, 'health_planner', demo.facilities[149], {}],
        [`${CR}/persons/records/per-10001`, 'caseworker', demo.persons[0], WITH_PURPOSE],
      ];
      for (const [path, as, expected, headers] of cases) {
        const { body } = await getJson(path, as, headers);
        assert.ok(expected);
        assert.deepEqual(body, expected, path);
      }
      const { body } = await getJson(`${SP}/households/records/hh-1033`);
      assert.equal(body.head_of_household_person_id, 'per-10053');
      assert.equal(body.household_size, 8);
    });

    it('projects a record with fields', async () => {
      const { getJson } = setup;
      const { body } = await getJson(
        `${SP}/households/records/hh-1033?fields=head_of_household_person_id,household_id`,
      );
      assert.deepEqual(body, { head_of_household_person_id: 'per-10053', household_id: 'hh-1033' });
      assert.deepEqual(Object.keys(body), ['head_of_household_person_id', 'household_id']);
    });

    it('answers 404 for an unknown id or the id of another entity', async () => {
      const { relay } = setup;
      for (const id of ['hh-9999', 'mem-5001', 'HH-1033', '%20hh-1033']) {
        assertProblem(
          await relay.get(`${SP}/households/records/${id}`, { as: 'caseworker' }),
          404,
          'schema.unknown_resource',
        );
      }
    });

    it('accepts only fields and expand as parameters', async () => {
      const { relay } = setup;
      for (const query of ['district=redfield', 'limit=1', 'cursor=abc']) {
        assertProblem(
          await relay.get(`${SP}/households/records/hh-1033?${query}`, { as: 'caseworker' }),
          400,
          'filter.not_allowed',
        );
      }
    });
  });

  describe('projection', () => {
    it('returns only the requested fields, in the requested order', async () => {
      const { demo, allRows } = setup;
      const rows = await allRows(`${SP}/households/records?fields=district,household_id&limit=200`);
      assert.deepEqual(
        rows,
        demo.households.map((row) => ({ district: row.district, household_id: row.household_id })),
      );
      for (const row of rows) assert.deepEqual(Object.keys(row), ['district', 'household_id']);
    });

    it('projects renamed fields and ignores a repeated name', async () => {
      const { demo, allRows } = setup;
      const rows = await allRows(
        `${HF}/facilities/records?fields=facility_id,latitude,latitude&limit=500`,
        'health_planner',
      );
      assert.deepEqual(
        rows,
        demo.facilities.map((row) => ({ facility_id: row.facility_id, latitude: row.latitude })),
      );
    });

    it('filters on a field that is not projected', async () => {
      const { demo, allRows } = setup;
      const rows = await allRows(`${SP}/households/records?fields=household_id&district=dunmere`);
      assert.deepEqual(
        rows,
        where(demo.households, (row) => row.district === 'dunmere').map((row) => ({
          household_id: row.household_id,
        })),
      );
    });

    it('rejects table column names that are not public fields', async () => {
      const { relay } = setup;
      for (const name of ['head_person_id', 'case_notes', 'nope']) {
        assertProblem(
          await relay.get(`${SP}/households/records?fields=household_id,${name}`, { as: 'caseworker' }),
          400,
          'filter.unknown_field',
        );
      }
    });
  });

  describe('pagination', () => {
    it('walks all 460 payments by next_cursor with no duplicates, no gaps, in primary-key order', async () => {
      const { relay, demo } = setup;
      const pages = await walkPages(relay, `${SP}/payments/records?limit=37`, {
        as: 'caseworker',
        follow: 'cursor',
      });
      assert.equal(pages.length, Math.ceil(460 / 37));
      for (const [index, page] of pages.entries()) {
        assert.equal(page.data.length, index < pages.length - 1 ? 37 : 460 % 37);
      }
      const seen = pages.flatMap((page) => page.data.map((row) => row.payment_id as string));
      assert.equal(new Set(seen).size, 460);
      assert.deepEqual(seen, ids(demo.payments, 'payment_id'));
      assert.deepEqual([...seen].sort(), seen);
    });

    it('walks all payments by following the Link header (default limit) and returns every row intact', async () => {
      const { relay, demo } = setup;
      const pages = await walkPages(relay, `${SP}/payments/records`, { as: 'caseworker', follow: 'link' });
      assert.equal(pages.length, Math.ceil(460 / 50));
      assert.deepEqual(
        pages.flatMap((page) => page.data),
        demo.payments,
      );
    });

    it('walks all 358 members by Link and by cursor with small limits', async () => {
      const { relay, demo } = setup;
      for (const follow of ['link', 'cursor'] as const) {
        const pages = await walkPages(relay, `${SP}/members/records?limit=16`, { as: 'caseworker', follow });
        assert.equal(pages.length, Math.ceil(358 / 16));
        assert.deepEqual(
          pages.flatMap((page) => page.data),
          demo.members,
        );
      }
    });

    it('keeps filters in the Link, with parameters sorted and the cursor last', async () => {
      const { relay, demo, getJson } = setup;
      const path = `${SP}/payments/records?payment_status=paid&limit=13`;
      const { response, body } = await getJson(path);
      assert.equal(
        response.headers.link,
        `<${SP}/payments/records?limit=13&payment_status=paid&cursor=${body.pagination.next_cursor}>; rel="next"`,
      );
      const pages = await walkPages(relay, path, { as: 'caseworker', follow: 'link' });
      for (const page of pages.slice(0, -1))
        assert.match(page.link ?? '', /\?limit=13&payment_status=paid&cursor=/);
      assert.deepEqual(
        pages.flatMap((page) => page.data),
        where(demo.payments, (row) => row.payment_status === 'paid'),
      );
    });

    it('paginates filtered in-list and range reads without gaps', async () => {
      const { relay, demo } = setup;
      const members = await walkPages(relay, `${SP}/members/records?role.in=child,dependent&limit=7`, {
        as: 'caseworker',
        follow: 'cursor',
      });
      assert.deepEqual(
        members.flatMap((page) => page.data),
        where(demo.members, (row) => row.role === 'child' || row.role === 'dependent'),
      );
      const payments = await walkPages(
        relay,
        `${SP}/payments/records?amount.gte=120&cycle.between=2026-02,2026-04&limit=9`,
        {
          as: 'caseworker',
          follow: 'link',
        },
      );
      assert.deepEqual(
        payments.flatMap((page) => page.data),
        where(
          demo.payments,
          (row) =>
            (row.amount as number) >= 120 &&
            (row.cycle as string) >= '2026-02' &&
            (row.cycle as string) <= '2026-04',
        ),
      );
    });
  });
});
