// HTTP behaviour of entity collection and record reads, checked against values read straight from the demo files.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Persona, PURPOSE, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { type DemoData, type Row, readDemoData, STORAGE_ONLY_COLUMNS } from './read-demo-data.ts';
import { walkPages } from './walk-pages.ts';

const SP = '/v1/datasets/social_protection/entities';
const CR = '/v1/datasets/civil_registry/entities';
const HF = '/v1/datasets/health_facilities/entities';
const WITH_PURPOSE = { 'data-purpose': PURPOSE };

describe('entity record reads', () => {
  let relay: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, demo] = await Promise.all([startDemoRelay(), readDemoData()]);
  });
  after(() => relay.close());

  async function getJson(path: string, as: Persona = 'caseworker', headers: Record<string, string> = {}) {
    const response = await relay.get(path, { as, headers });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    return { response, body: response.json() };
  }

  /** A single-page read: the rows, and a check that nothing was left on a further page. */
  async function allRows(path: string, as: Persona = 'caseworker', headers: Record<string, string> = {}) {
    const { body } = await getJson(path, as, headers);
    assert.deepEqual(body.pagination, { has_more: false }, `${path} needs a larger limit`);
    return body.data as Row[];
  }

  const ids = (rows: readonly Row[], key: string) => rows.map((row) => row[key]);
  const where = (rows: readonly Row[], test: (row: Row) => boolean) => rows.filter(test);

  describe('collection envelope', () => {
    it('serves default_limit rows in primary-key order with has_more, next_cursor and a Link', async () => {
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
      const { response, body } = await getJson(`${SP}/households/records?limit=200`);
      assert.deepEqual(body.data, demo.households);
      assert.deepEqual(body.pagination, { has_more: false });
      assert.equal(response.headers.link, undefined);
    });

    it('answers a filter that matches nothing with an empty page', async () => {
      const { response, body } = await getJson(`${SP}/households/records?district=nowhere`);
      assert.deepEqual(body, { data: [], pagination: { has_more: false } });
      assert.equal(response.headers.link, undefined);
    });

    it('renders each entity with its public names (renamed columns included) in field order', async () => {
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
      const { body } = await getJson(
        `${SP}/households/records/hh-1033?fields=head_of_household_person_id,household_id`,
      );
      assert.deepEqual(body, { head_of_household_person_id: 'per-10053', household_id: 'hh-1033' });
      assert.deepEqual(Object.keys(body), ['head_of_household_person_id', 'household_id']);
    });

    it('answers 404 for an unknown id or the id of another entity', async () => {
      for (const id of ['hh-9999', 'mem-5001', 'HH-1033', '%20hh-1033']) {
        assertProblem(
          await relay.get(`${SP}/households/records/${id}`, { as: 'caseworker' }),
          404,
          'schema.unknown_resource',
        );
      }
    });

    it('accepts only fields and expand as parameters', async () => {
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
      const rows = await allRows(`${SP}/households/records?fields=district,household_id&limit=200`);
      assert.deepEqual(
        rows,
        demo.households.map((row) => ({ district: row.district, household_id: row.household_id })),
      );
      for (const row of rows) assert.deepEqual(Object.keys(row), ['district', 'household_id']);
    });

    it('projects renamed fields and ignores a repeated name', async () => {
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
      const rows = await allRows(`${SP}/households/records?fields=household_id&district=dunmere`);
      assert.deepEqual(
        rows,
        where(demo.households, (row) => row.district === 'dunmere').map((row) => ({
          household_id: row.household_id,
        })),
      );
    });

    it('rejects table column names that are not public fields', async () => {
      for (const name of ['head_person_id', 'case_notes', 'nope']) {
        assertProblem(
          await relay.get(`${SP}/households/records?fields=household_id,${name}`, { as: 'caseworker' }),
          400,
          'filter.unknown_field',
        );
      }
    });
  });

  describe('filters on every type the demo uses', () => {
    it('string equality per district matches the workbook (bare and .eq)', async () => {
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
      const rows = await allRows(`${HF}/facilities/records?beds.between=10,50&limit=500`, 'health_planner');
      const expected = where(
        demo.facilities,
        (row) => (row.beds as number) >= 10 && (row.beds as number) <= 50,
      );
      assert.ok(expected.length > 0 && expected.length < demo.facilities.length);
      assert.deepEqual(rows, expected);
    });

    it('number ranges with decimal bounds', async () => {
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

  describe('pagination', () => {
    it('walks all 460 payments by next_cursor with no duplicates, no gaps, in primary-key order', async () => {
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
      const pages = await walkPages(relay, `${SP}/payments/records`, { as: 'caseworker', follow: 'link' });
      assert.equal(pages.length, Math.ceil(460 / 50));
      assert.deepEqual(
        pages.flatMap((page) => page.data),
        demo.payments,
      );
    });

    it('walks all 358 members by Link and by cursor with small limits', async () => {
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

  describe('storage-only and sensitive fields', () => {
    function assertNoStorage(body: string, where: string): void {
      for (const column of STORAGE_ONLY_COLUMNS) {
        assert.ok(!body.includes(column), `${where} mentions ${column}`);
      }
      for (const value of demo.storageValues) {
        assert.ok(!body.includes(value), `${where} contains the storage-only value ${value}`);
      }
    }

    it('never appear in full pages of any entity', async () => {
      const reads: [string, Persona][] = [
        [`${SP}/households/records?limit=200`, 'caseworker'],
        [`${SP}/members/records?limit=150`, 'caseworker'],
        [`${SP}/payments/records?limit=500`, 'caseworker'],
        [`${HF}/facilities/records?limit=500`, 'health_planner'],
      ];
      for (const [path, as] of reads) {
        const pages = await walkPages(relay, path, { as, follow: 'link' });
        for (const page of pages) assertNoStorage(JSON.stringify(page.data), path);
      }
    });

    it('never appear in expansions, schemas or the OpenAPI document', async () => {
      for (const path of [
        `${SP}/households/records?limit=200&expand=members,payments`,
        `${SP}/members/records?limit=200&expand=household`,
        `${SP}/households/records/hh-1033?expand=members,payments`,
      ]) {
        assertNoStorage((await getJson(path)).response.body, path);
      }
      for (const path of [
        `${CR}/persons/schema`,
        `${SP}/households/schema`,
        `${SP}/members/schema`,
        `${SP}/payments/schema`,
        `${HF}/facilities/schema`,
        '/openapi.json',
      ]) {
        assertNoStorage((await getJson(path, 'analyst')).response.body, path);
      }
      for (const as of ['caseworker', 'health_planner', 'catalog_viewer'] as const) {
        assertNoStorage((await getJson('/openapi.json', as)).response.body, `/openapi.json as ${as}`);
      }
    });

    it('every person is served by id and by required filter with its sensitive national_id, nothing more', async () => {
      assert.equal(demo.persons.length, 400);
      // Requests are issued together: the relay answers each independently.
      await Promise.all(
        demo.persons.map(async (person, index) => {
          const record = await getJson(
            `${CR}/persons/records/${person.person_id}`,
            'caseworker',
            WITH_PURPOSE,
          );
          assert.deepEqual(record.body, person);
          assertNoStorage(record.response.body, `person ${person.person_id}`);
          const filter =
            index % 2 === 0 ? `person_id=${person.person_id}` : `national_id.eq=${person.national_id}`;
          const page = await getJson(`${CR}/persons/records?${filter}`, 'verifier_service', WITH_PURPOSE);
          assert.deepEqual(page.body, { data: [person], pagination: { has_more: false } });
        }),
      );
      const byNationalId = await allRows(
        `${CR}/persons/records?national_id=FAKE-937193`,
        'caseworker',
        WITH_PURPOSE,
      );
      assert.deepEqual(ids(byNationalId, 'person_id'), ['per-10053']);
    });

    it('the schema marks national_id sensitive but still lists it', async () => {
      const { body } = await getJson(`${CR}/persons/schema`, 'caseworker');
      const national = body.fields.find((field: { name: string }) => field.name === 'national_id');
      assert.equal(national.sensitive, true);
      assert.equal(
        body.fields.find((field: { name: string }) => field.name === 'given_name').sensitive,
        false,
      );
      assert.deepEqual(
        body.fields.map((field: { name: string }) => field.name),
        Object.keys(demo.persons[0] ?? {}),
      );
    });

    it('a storage-only column cannot be filtered on', async () => {
      assertProblem(
        await relay.get(`${SP}/households/records?case_notes=x`, { as: 'caseworker' }),
        400,
        'filter.not_allowed',
      );
      assertProblem(
        await relay.get(`${HF}/facilities/records?exact_latitude.gte=1`, { as: 'health_planner' }),
        400,
        'filter.not_allowed',
      );
    });
  });
});
