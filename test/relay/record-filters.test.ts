// Entity record filters on every type the demo uses (string, integer, number, date, boolean; eq, in and ranges),
// checked against values read straight from the demo files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Persona } from '../helpers/relay-harness.ts';
import type { Row } from './read-demo-data.ts';
import { CR, HF, ids, SP, useRecordReads, WITH_PURPOSE, where } from './record-reads-fixture.ts';

describe('entity record reads', () => {
  const setup = useRecordReads();

  describe('filters on every type the demo uses', () => {
    it('string equality per district matches the workbook (bare and .eq)', async () => {
      const { demo, allRows } = setup;
      const districts = [...new Set(demo.households.map((row) => row.district))];
      assert.equal(districts.length, 6);
      for (const district of districts) {
        const expected = ids(
          where(demo.households, (row) => row.district === district),
          'household_id',
        );
        assert.ok(expected.length > 0);
        for (const param of ['district', 'district.eq']) {
          const rows = await allRows(`${SP}/households/records?${param}=${district}&limit=200`);
          assert.deepEqual(ids(rows, 'household_id'), expected, `${param}=${district}`);
        }
      }
      assert.equal((await allRows(`${SP}/households/records?district=willowbank`)).length, 10);
      assert.equal((await allRows(`${SP}/households/records?district=dunmere`)).length, 8);
    });

    it('string in: trimmed, de-duplicated, any of the values', async () => {
      const { demo, allRows } = setup;
      const rows = await allRows(`${SP}/households/records?district.in=dunmere,%20willowbank,dunmere`);
      assert.deepEqual(
        ids(rows, 'household_id'),
        ids(
          where(demo.households, (row) => row.district === 'dunmere' || row.district === 'willowbank'),
          'household_id',
        ),
      );
      assert.equal(rows.length, 18);
      const members = await allRows(`${SP}/members/records?role.in=child,dependent&limit=200`);
      assert.deepEqual(
        members,
        where(demo.members, (row) => row.role === 'child' || row.role === 'dependent'),
      );
    });

    it('integer equality and ranges compare numerically', async () => {
      const { demo, allRows } = setup;
      const h = demo.households;
      const cases: [string, (row: Row) => boolean][] = [
        ['household_size=3', (row) => row.household_size === 3],
        ['household_size.eq=3', (row) => row.household_size === 3],
        ['household_size.gte=6', (row) => (row.household_size as number) >= 6],
        ['household_size.lte=2', (row) => (row.household_size as number) <= 2],
        [
          'household_size.between=5,8',
          (row) => (row.household_size as number) >= 5 && (row.household_size as number) <= 8,
        ],
        // As text "2" > "10"; as integers the range is valid and holds sizes 2 to 8.
        ['household_size.between=2,10', (row) => (row.household_size as number) >= 2],
        ['household_size.between=4,4', (row) => row.household_size === 4],
      ];
      for (const [query, test] of cases) {
        const rows = await allRows(`${SP}/households/records?${query}&limit=200`);
        assert.deepEqual(ids(rows, 'household_id'), ids(where(h, test), 'household_id'), query);
      }
      assert.equal((await allRows(`${SP}/households/records?household_size.between=5,8`)).length, 25);
    });

    it('integer ranges on a Parquet column', async () => {
      const { demo, allRows } = setup;
      const rows = await allRows(`${HF}/facilities/records?beds.between=10,50&limit=500`, 'health_planner');
      const expected = where(
        demo.facilities,
        (row) => (row.beds as number) >= 10 && (row.beds as number) <= 50,
      );
      assert.ok(expected.length > 0 && expected.length < demo.facilities.length);
      assert.deepEqual(rows, expected);
    });

    it('number ranges with decimal bounds', async () => {
      const { demo, allRows } = setup;
      const amount = (row: Row) => row.amount as number;
      const cases: [string, (row: Row) => boolean][] = [
        ['amount.gte=171.5', (row) => amount(row) >= 171.5],
        ['amount.lte=110.25', (row) => amount(row) <= 110.25],
        ['amount.between=100,130.5', (row) => amount(row) >= 100 && amount(row) <= 130.5],
        [
          `amount.between=${demo.payments[0]?.amount},${demo.payments[0]?.amount}`,
          (row) => row.amount === demo.payments[0]?.amount,
        ],
      ];
      for (const [query, test] of cases) {
        const rows = await allRows(`${SP}/payments/records?${query}&limit=500`);
        const expected = where(demo.payments, test);
        assert.ok(expected.length > 0, `${query} selects something`);
        assert.deepEqual(rows, expected, query);
      }
    });

    it('date ranges exclude empty dates', async () => {
      const { demo, allRows } = setup;
      // An empty (null) date never satisfies a bound.
      const within = (value: unknown, from = '0000-01-01', to = '9999-12-31') =>
        typeof value === 'string' && value >= from && value <= to;
      const cases: [string, string, readonly Row[], (row: Row) => boolean, Persona][] = [
        [
          `${SP}/households/records`,
          'enrolled_on.between=2025-01-01,2025-12-31',
          demo.households,
          (row) => within(row.enrolled_on, '2025-01-01', '2025-12-31'),
          'caseworker',
        ],
        [
          `${SP}/households/records`,
          'enrolled_on.gte=2026-01-01',
          demo.households,
          (row) => within(row.enrolled_on, '2026-01-01'),
          'caseworker',
        ],
        [
          `${SP}/households/records`,
          'enrolled_on.lte=2023-12-31',
          demo.households,
          (row) => within(row.enrolled_on, undefined, '2023-12-31'),
          'caseworker',
        ],
        [
          `${SP}/payments/records`,
          'paid_on.gte=2026-06-01',
          demo.payments,
          (row) => within(row.paid_on, '2026-06-01'),
          'caseworker',
        ],
        [
          `${HF}/facilities/records`,
          'opened_on.lte=1990-01-01',
          demo.facilities,
          (row) => within(row.opened_on, undefined, '1990-01-01'),
          'health_planner',
        ],
      ];
      for (const [path, query, rows, test, as] of cases) {
        const got = await allRows(`${path}?${query}&limit=200`, as);
        const expected = where(rows, test);
        assert.ok(expected.length > 0, `${query} selects something`);
        assert.deepEqual(got, expected, query);
      }
      assert.equal(
        (await allRows(`${SP}/households/records?enrolled_on.between=2025-01-01,2025-12-31&limit=200`))
          .length,
        37,
      );
    });

    it('string ranges and equality combine (cycle, payment_status)', async () => {
      const { demo, allRows } = setup;
      const cases: [string, (row: Row) => boolean][] = [
        ['cycle.between=2026-02,2026-03', (row) => row.cycle === '2026-02' || row.cycle === '2026-03'],
        ['cycle.gte=2026-05', (row) => (row.cycle as string) >= '2026-05'],
        ['cycle.lte=2026-01', (row) => row.cycle === '2026-01'],
        [
          'cycle=2026-06&payment_status=pending',
          (row) => row.cycle === '2026-06' && row.payment_status === 'pending',
        ],
        [
          'household_id.in=hh-1001,hh-1033&payment_status.eq=paid',
          (row) =>
            (row.household_id === 'hh-1001' || row.household_id === 'hh-1033') &&
            row.payment_status === 'paid',
        ],
      ];
      for (const [query, test] of cases) {
        const rows = await allRows(`${SP}/payments/records?${query}&limit=500`);
        assert.deepEqual(rows, where(demo.payments, test), query);
      }
      assert.equal((await allRows(`${SP}/payments/records?cycle=2026-06&payment_status=pending`)).length, 17);
    });

    it('boolean equality, with the required person filter', async () => {
      const { demo, allRows } = setup;
      const deceased = where(demo.persons, (row) => row.deceased === true);
      assert.equal(deceased.length, 17);
      for (const person of deceased) {
        const yes = await allRows(
          `${CR}/persons/records?national_id=${person.national_id}&deceased=true`,
          'caseworker',
          WITH_PURPOSE,
        );
        assert.deepEqual(yes, [person]);
        const no = await allRows(
          `${CR}/persons/records?person_id=${person.person_id}&deceased=false`,
          'caseworker',
          WITH_PURPOSE,
        );
        assert.deepEqual(no, []);
      }
      const alive = await allRows(
        `${CR}/persons/records?person_id.eq=per-10001&deceased=false`,
        'caseworker',
        WITH_PURPOSE,
      );
      assert.deepEqual(alive, [demo.persons[0]]);
    });

    it('date ranges and in-lists narrow a required person filter', async () => {
      const { demo, allRows } = setup;
      const headers = WITH_PURPOSE;
      const person = demo.persons[0] as Row;
      assert.equal(person.birth_date, '1955-02-02');
      const hit = await allRows(
        `${CR}/persons/records?person_id=per-10001&birth_date.between=1955-01-01,1955-12-31`,
        'caseworker',
        headers,
      );
      assert.deepEqual(hit, [person]);
      const miss = await allRows(
        `${CR}/persons/records?person_id=per-10001&birth_date.gte=1960-01-01`,
        'caseworker',
        headers,
      );
      assert.deepEqual(miss, []);
      const inList = await allRows(
        `${CR}/persons/records?national_id.eq=FAKE-412781&district.in=lakeside,dunmere`,
        'caseworker',
        headers,
      );
      assert.deepEqual(inList, [person]);
    });

    it('facility in-lists combined with equality', async () => {
      const { demo, allRows } = setup;
      const rows = await allRows(
        `${HF}/facilities/records?facility_type.in=hospital,clinic&ownership=public&limit=500`,
        'health_planner',
      );
      const expected = where(
        demo.facilities,
        (row) =>
          (row.facility_type === 'hospital' || row.facility_type === 'clinic') && row.ownership === 'public',
      );
      assert.ok(expected.length > 0);
      assert.deepEqual(rows, expected);
    });
  });
});
