// Live PostgreSQL tables against a real database: every filter operator on every type answers what the snapshot
// of the same table answers, with the same envelope, cursors and error codes; reads are read-only; probe failures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import {
  ACCESS,
  PEOPLE,
  type Person,
  peopleApi,
  peopleSchema,
  postgresSource,
  usePeopleRelay,
} from './postgres-fixture.ts';

const SNAPSHOT = '/v1/datasets/registry/entities/people/records';
const LIVE = '/v1/datasets/registry/entities/people_live/records';

const DATASETS = `  - id: registry
    title: Registry
    tables:
      - id: people_snapshot
        ${postgresSource({ table: 'people' })}${peopleSchema()}
      - id: people_live
        ${postgresSource({ table: 'people' }, 'live_max_connections: 3, live_max_rows: 1000')}
        materialization: live${peopleSchema()}
    entities:
      - name: people
        table: people_snapshot
        ${ACCESS}
        ${peopleApi()}
      - name: people_live
        table: people_live
        ${ACCESS}
        ${peopleApi()}`;

const ids = (people: readonly Person[]) => people.map((person) => person.person_id);
const where = (test: (person: Person) => boolean) => ids(PEOPLE.filter(test));
const ts = (iso: string) => Date.parse(iso);

/** Every operator on every mapped type, with the rows each must select (computed here, not by the relay). */
const CASES: [string, string[]][] = [
  ['person_id=p005', ['p005']],
  ['person_id.in=p001,p010,p024,p999', ['p001', 'p010', 'p024']],
  ['person_id.gte=p020', where((p) => p.person_id >= 'p020')],
  ['person_id.lte=p003', ['p001', 'p002', 'p003']],
  ['person_id.between=p010,p012', ['p010', 'p011', 'p012']],
  ['household=5000000002', where((p) => p.household === 5_000_000_002)],
  ['household.in=5000000000,5000000005', where((p) => [5_000_000_000, 5_000_000_005].includes(p.household))],
  ['household.gte=5000000004', where((p) => p.household >= 5_000_000_004)],
  ['household.lte=5000000001', where((p) => p.household <= 5_000_000_001)],
  [
    'household.between=5000000002,5000000003',
    where((p) => p.household >= 5_000_000_002 && p.household <= 5_000_000_003),
  ],
  ['age=9', ['p003']],
  ['age.in=3,6,21', ['p001', 'p002']],
  ['age.gte=60', where((p) => p.age !== null && p.age >= 60)],
  ['age.lte=10', where((p) => p.age !== null && p.age <= 10)],
  ['age.between=12,30', where((p) => p.age !== null && p.age >= 12 && p.age <= 30)],
  ['income=3703.53', ['p003']],
  ['income.in=1234.51,2469.02,0.5', ['p001', 'p002']],
  ['income.gte=25000', where((p) => p.income !== null && p.income >= 25_000)],
  ['income.lte=5000.5', where((p) => p.income !== null && p.income <= 5000.5)],
  ['income.between=10000,20000', where((p) => p.income !== null && p.income >= 10_000 && p.income <= 20_000)],
  ['born=1980-10-27', ['p003']],
  ['born.in=1980-10-27,1980-04-10,2000-01-01', where((p) => ['1980-10-27', '1980-04-10'].includes(p.born))],
  ['born.gte=1985-01-01', where((p) => p.born >= '1985-01-01')],
  ['born.lte=1981-01-01', where((p) => p.born <= '1981-01-01')],
  ['born.between=1982-01-01,1984-12-31', where((p) => p.born >= '1982-01-01' && p.born <= '1984-12-31')],
  ['registered_at.gte=2024-01-01T20:00:00Z', where((p) => ts(p.registered_at) >= ts('2024-01-01T20:00:00Z'))],
  [
    'registered_at.lte=2024-01-01T04:00:00%2B02:00',
    where((p) => ts(p.registered_at) <= ts('2024-01-01T02:00:00Z')),
  ],
  [
    'registered_at.between=2024-01-01T05:00:00Z,2024-01-01T09:00:00Z',
    where(
      (p) =>
        ts(p.registered_at) >= ts('2024-01-01T05:00:00Z') &&
        ts(p.registered_at) <= ts('2024-01-01T09:00:00Z'),
    ),
  ],
  ['updated_local=2023-06-05T08:00:00Z', ['p005']],
  ['updated_local.in=2023-06-05 08:00,2023-06-06T08:00:00Z', ['p005', 'p006']],
  ['updated_local.gte=2023-06-20', where((p) => p.updated_local !== null && p.updated_local >= '2023-06-20')],
  ['updated_local.lte=2023-06-02T08:00:00Z', ['p001', 'p002']],
  [
    'updated_local.between=2023-06-10,2023-06-14T23:59:59Z',
    where(
      (p) =>
        p.updated_local !== null &&
        p.updated_local >= '2023-06-10' &&
        p.updated_local <= '2023-06-14T23:59:59Z',
    ),
  ],
  ['active=true', where((p) => p.active === true)],
  ['active.in=true,false', where((p) => p.active !== null)],
  ['active.gte=true', where((p) => p.active === true)],
  ['active.lte=false', where((p) => p.active === false)],
  ['active.between=false,true', where((p) => p.active !== null)],
  ['note=note%205', ['p005']],
  ['note.in=note%201,note%202', ['p001', 'p002']],
  // Values the column cannot hold select what the snapshot selects (nothing, or every non-null value), not 400.
  ['age=99999999999', []],
  ['age.in=99999999999,9', ['p003']],
  ['age.gte=-99999999999', where((p) => p.age !== null)],
  ['age.lte=99999999999', where((p) => p.age !== null)],
  ['age.gte=99999999999', []],
  ['age.between=-99999999999,10', where((p) => p.age !== null && p.age <= 10)],
  ['registered_at.gte=0000-01-01T00:00:00Z', ids(PEOPLE)],
  ['updated_local.lte=0000-01-01T00:00:00%2B01:00', []],
  ['note=note%205%00', []],
  ['note.in=note%201,note%202%00', ['p001']],
  ['person_id.gte=p020%00', where((p) => p.person_id > 'p020')],
  ['person_id.lte=p003%00x', ['p001', 'p002', 'p003']],
  ['person_id.between=p010%00,p012', ['p011', 'p012']],
  [
    'age.gte=30&active=true&household.lte=5000000003',
    where((p) => p.age !== null && p.age >= 30 && p.active === true && p.household <= 5_000_000_003),
  ],
];

describe('live PostgreSQL tables', () => {
  const people = usePeopleRelay(DATASETS);

  async function page(path: string) {
    const response = await people.relay.get(path);
    assert.equal(response.statusCode, 200, `${path}: ${response.body}`);
    return response;
  }

  it('answer every record exactly as the snapshot of the same table does', async () => {
    const live = await page(`${LIVE}?limit=100`);
    const snapshot = await page(`${SNAPSHOT}?limit=100`);
    assert.equal(live.body, snapshot.body);
    assert.deepEqual(live.json().data, PEOPLE);
    for (const id of ['p001', 'p003', 'p014', 'p024']) {
      assert.equal((await page(`${LIVE}/${id}`)).body, (await page(`${SNAPSHOT}/${id}`)).body);
    }
  });

  for (const [query, expected] of CASES) {
    it(`filter ${decodeURIComponent(query)} selects the same rows live and in the snapshot`, async () => {
      const live = (await page(`${LIVE}?${query}&limit=100`)).json();
      const snapshot = (await page(`${SNAPSHOT}?${query}&limit=100`)).json();
      assert.deepEqual(
        live.data.map((row: Person) => row.person_id),
        expected,
      );
      assert.deepEqual(live, snapshot);
    });
  }

  it('page by primary key with signed cursors and a Link header, to the last row and no further', async () => {
    const seen: string[] = [];
    let path = `${LIVE}?active=true&limit=4`;
    for (let pages = 0; pages < 20; pages++) {
      const response = await page(path);
      const body = response.json();
      seen.push(...body.data.map((row: Person) => row.person_id));
      if (!body.pagination.has_more) {
        assert.equal(body.pagination.next_cursor, undefined);
        assert.equal(response.headers.link, undefined);
        break;
      }
      assert.match(String(response.headers.link), /rel="next"$/);
      path = `${LIVE}?active=true&limit=4&cursor=${encodeURIComponent(body.pagination.next_cursor)}`;
    }
    assert.deepEqual(
      seen,
      where((p) => p.active === true),
    );
  });

  it('serve concurrent reads through a pool smaller than the load, each with its own answer', async () => {
    const requests = CASES.slice(0, 30).map(([query, expected]) => ({ query, expected }));
    const responses = await Promise.all(
      requests.map(({ query }) => people.relay.get(`${LIVE}?${query}&limit=100`)),
    );
    responses.forEach((response, index) => {
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.json().data.map((row: Person) => row.person_id),
        requests[index]?.expected,
      );
    });
  });

  it('carry no ETag and never answer 304: live data has no version', async () => {
    const response = await page(`${LIVE}?limit=2`);
    assert.equal(response.headers.etag, undefined);
    const again = await people.relay.get(`${LIVE}?limit=2`, { 'if-none-match': '*' });
    assert.equal(again.statusCode, 200);
  });

  it('see changes at once, without a reload', async () => {
    await people.db.query("UPDATE people SET note = 'just changed' WHERE person_id = 'p005'");
    try {
      assert.equal((await page(`${LIVE}/p005`)).json().note, 'just changed');
      assert.equal((await page(`${SNAPSHOT}/p005`)).json().note, 'note 5');
    } finally {
      await people.db.query("UPDATE people SET note = 'note 5' WHERE person_id = 'p005'");
    }
  });

  it('project fields, and read a record by id (404 for unknown or ill-typed ids)', async () => {
    assert.deepEqual((await page(`${LIVE}?fields=age,person_id&limit=2`)).json().data, [
      { age: 3, person_id: 'p001' },
      { age: 6, person_id: 'p002' },
    ]);
    assert.deepEqual((await page(`${LIVE}/p002?fields=note`)).json(), { note: 'note 2' });
    assertProblem(await people.relay.get(`${LIVE}/p999`), 404, 'schema.unknown_resource');
  });

  it('reject the same bad requests with the same codes as snapshots', async () => {
    const bad: [string, number, string][] = [
      ['colour=red', 400, 'filter.not_allowed'],
      ['age.like=3', 400, 'filter.unsupported_op'],
      ['age=old', 400, 'filter.invalid_value'],
      ['age.between=30,10', 400, 'filter.invalid_range'],
      ['limit=5000', 400, 'filter.limit_out_of_range'],
      ['fields=shoe_size', 400, 'filter.unknown_field'],
      ['expand=visits', 400, 'expand.not_allowed'],
      ['cursor=not-a-cursor', 400, 'pagination.cursor_malformed'],
      [
        `person_id.in=${Array.from({ length: 101 }, (_, i) => `x${i}`).join(',')}`,
        413,
        'filter.too_many_values',
      ],
    ];
    for (const [query, status, code] of bad) {
      assertProblem(await people.relay.get(`${LIVE}?${query}`), status, code);
      assertProblem(await people.relay.get(`${SNAPSHOT}?${query}`), status, code);
    }
  });

  it('bind cursors to the query: another filter set or the snapshot entity answers cursor_invalidated', async () => {
    const first = (await page(`${LIVE}?active=true&limit=2`)).json();
    const cursor = encodeURIComponent(first.pagination.next_cursor);
    assertProblem(
      await people.relay.get(`${LIVE}?active=false&limit=2&cursor=${cursor}`),
      400,
      'pagination.cursor_invalidated',
    );
    assertProblem(
      await people.relay.get(`${SNAPSHOT}?active=true&limit=2&cursor=${cursor}`),
      400,
      'pagination.cursor_invalidated',
    );
    const snapshotCursor = encodeURIComponent(
      (await page(`${SNAPSHOT}?active=true&limit=2`)).json().pagination.next_cursor,
    );
    assertProblem(
      await people.relay.get(`${LIVE}?active=true&limit=2&cursor=${snapshotCursor}`),
      400,
      'pagination.cursor_invalidated',
    );
    const tampered = first.pagination.next_cursor.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A'));
    assertProblem(
      await people.relay.get(`${LIVE}?active=true&limit=2&cursor=${encodeURIComponent(tampered)}`),
      400,
      'pagination.cursor_malformed',
    );
  });

  it('treat hostile filter values as values: nothing is interpolated into SQL', async () => {
    for (const value of ["x' OR '1'='1", 'p001; DROP TABLE people', '"); DELETE FROM people; --']) {
      const response = await page(`${LIVE}?person_id=${encodeURIComponent(value)}`);
      assert.deepEqual(response.json().data, []);
      assert.deepEqual((await page(`${LIVE}?note.in=${encodeURIComponent(value)}`)).json().data, []);
    }
    const { rows } = await people.db.query('SELECT count(*)::int AS n FROM people');
    assert.equal(rows[0]?.n, PEOPLE.length);
  });
});
