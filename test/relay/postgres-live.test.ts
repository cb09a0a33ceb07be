// Live PostgreSQL tables against a real database: every filter operator on every type answers what the snapshot
// of the same table answers, with the same envelope, cursors and error codes; reads are read-only; probe failures.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import {
  ACCESS,
  createPeople,
  PEOPLE,
  type Person,
  peopleApi,
  peopleSchema,
  postgresSource,
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
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
    relay = await startPostgresRelay(DATASETS, db.url);
  });
  after(async () => {
    await relay?.close();
    await db.close();
  });

  async function page(path: string) {
    const response = await relay.get(path);
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
    const responses = await Promise.all(requests.map(({ query }) => relay.get(`${LIVE}?${query}&limit=100`)));
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
    const again = await relay.get(`${LIVE}?limit=2`, { 'if-none-match': '*' });
    assert.equal(again.statusCode, 200);
  });

  it('see changes at once, without a reload', async () => {
    await db.query("UPDATE people SET note = 'just changed' WHERE person_id = 'p005'");
    try {
      assert.equal((await page(`${LIVE}/p005`)).json().note, 'just changed');
      assert.equal((await page(`${SNAPSHOT}/p005`)).json().note, 'note 5');
    } finally {
      await db.query("UPDATE people SET note = 'note 5' WHERE person_id = 'p005'");
    }
  });

  it('project fields, and read a record by id (404 for unknown or ill-typed ids)', async () => {
    assert.deepEqual((await page(`${LIVE}?fields=age,person_id&limit=2`)).json().data, [
      { age: 3, person_id: 'p001' },
      { age: 6, person_id: 'p002' },
    ]);
    assert.deepEqual((await page(`${LIVE}/p002?fields=note`)).json(), { note: 'note 2' });
    assertProblem(await relay.get(`${LIVE}/p999`), 404, 'schema.unknown_resource');
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
      assertProblem(await relay.get(`${LIVE}?${query}`), status, code);
      assertProblem(await relay.get(`${SNAPSHOT}?${query}`), status, code);
    }
  });

  it('bind cursors to the query: another filter set or the snapshot entity answers cursor_invalidated', async () => {
    const first = (await page(`${LIVE}?active=true&limit=2`)).json();
    const cursor = encodeURIComponent(first.pagination.next_cursor);
    assertProblem(
      await relay.get(`${LIVE}?active=false&limit=2&cursor=${cursor}`),
      400,
      'pagination.cursor_invalidated',
    );
    assertProblem(
      await relay.get(`${SNAPSHOT}?active=true&limit=2&cursor=${cursor}`),
      400,
      'pagination.cursor_invalidated',
    );
    const snapshotCursor = encodeURIComponent(
      (await page(`${SNAPSHOT}?active=true&limit=2`)).json().pagination.next_cursor,
    );
    assertProblem(
      await relay.get(`${LIVE}?active=true&limit=2&cursor=${snapshotCursor}`),
      400,
      'pagination.cursor_invalidated',
    );
    const tampered = first.pagination.next_cursor.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A'));
    assertProblem(
      await relay.get(`${LIVE}?active=true&limit=2&cursor=${encodeURIComponent(tampered)}`),
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
    const { rows } = await db.query('SELECT count(*)::int AS n FROM people');
    assert.equal(rows[0]?.n, PEOPLE.length);
  });
});

describe('live PostgreSQL tables: failures and read-only', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE writes (at timestamptz DEFAULT now())');
    await db.query(`CREATE FUNCTION sneaky_write() RETURNS boolean LANGUAGE plpgsql AS $body$
      BEGIN INSERT INTO writes DEFAULT VALUES; RETURN true; END $body$`);
  });
  after(() => db.close());

  /** `table` served live as entity `items`; `filters` (`{ field: f, ops: [eq] }, ...`) allowed when given. */
  const liveDataset = (table: string, fields: string, extra = '', filters = '') => `  - id: registry
    title: Registry
    tables:
      - id: items
        ${postgresSource({ table }, extra)}
        materialization: live
        primary_key: id
        schema: { fields: [${fields}] }
    entities:
      - { name: items, table: items,${filters === '' ? '' : ` api: { allowed_filters: [${filters}] },`} ${ACCESS} }`;
  const ITEMS = '/v1/datasets/registry/entities/items/records';
  /**
   * A table served twice: live as entity `table`, as a snapshot as entity `copy`, each allowing every operator on
   * the `filtered` fields. By default an `(id text-like, label text)` table filtered on `id`.
   */
  const liveAndSnapshot = (
    table: string,
    copy: string,
    fields = '{ name: id, type: string }, { name: label, type: string }',
    filtered = ['id'],
  ) => {
    const tableYaml = (id: string, live: boolean) => `
      - id: ${id}
        ${postgresSource({ table })}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [${fields}] }`;
    const filters = filtered
      .map((field) => `{ field: ${field}, ops: [eq, in, gte, lte, between] }`)
      .join(', ');
    const entity = (name: string) => `
      - name: ${name}
        table: ${name}
        ${ACCESS}
        api: { allowed_filters: [${filters}] }`;
    return `  - id: registry
    title: Registry
    tables:${tableYaml(table, true)}${tableYaml(copy, false)}
    entities:${entity(table)}${entity(copy)}`;
  };
  const ID_AND_LABEL = '{ name: id, type: integer }, { name: label, type: string }';
  const recordsOf = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
  /** Each query selects the rows `ids` from entity `live`, byte for byte as entity `snapshot` answers it. */
  async function sameAnswers(
    relay: PostgresRelay,
    live: string,
    snapshot: string,
    cases: readonly (readonly [string, number[]])[],
  ) {
    for (const [query, ids] of cases) {
      const answer = await relay.get(`${recordsOf(live)}?${query}`);
      assert.equal(answer.statusCode, 200, `${query}: ${answer.body}`);
      assert.deepEqual(
        answer.json().data.map((row: { id: number }) => row.id),
        ids,
        query,
      );
      assert.equal(answer.body, (await relay.get(`${recordsOf(snapshot)}?${query}`)).body, query);
    }
  }

  it('a read that would make the database write fails with datasource.query_failed and writes nothing', async () => {
    // A view that calls a writing function for every row it returns: reading it live must not write.
    await db.query('CREATE TABLE guarded (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO guarded VALUES (1, 'one')");
    await db.query('CREATE VIEW guarded_view AS SELECT id, label FROM guarded WHERE sneaky_write()');
    const relay = await startPostgresRelay(liveDataset('guarded_view', ID_AND_LABEL), db.url);
    try {
      assertProblem(await relay.get(ITEMS), 502, 'datasource.query_failed');
      assertProblem(await relay.get(`${ITEMS}/1`), 502, 'datasource.query_failed');
      assertProblem(await relay.get(`${ITEMS}?limit=1`), 502, 'datasource.query_failed');
      const { rows } = await db.query('SELECT count(*)::int AS n FROM writes');
      assert.equal(rows[0]?.n, 0);
    } finally {
      await relay.close();
    }
  });

  it('a view that moves the session search_path onto its own set_config cannot switch later reads to writing', async () => {
    await db.query('CREATE TABLE pathed (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO pathed VALUES (1, 'one')");
    await db.query('CREATE SCHEMA shadow');
    // A set_config that sets nothing: a guard resolving to it would leave the transaction read-write.
    await db.query(`CREATE FUNCTION shadow.set_config(text, text, boolean) RETURNS text LANGUAGE sql
      AS $body$ SELECT $2 $body$`);
    // The search_path change outlives the read (it is not local); the refused write is swallowed so the read
    // commits and keeps it.
    await db.query(`CREATE FUNCTION shift_path() RETURNS boolean LANGUAGE plpgsql AS $body$
      BEGIN
        PERFORM pg_catalog.set_config('search_path', 'shadow, pg_catalog, public', false);
        BEGIN INSERT INTO public.writes DEFAULT VALUES; EXCEPTION WHEN read_only_sql_transaction THEN NULL; END;
        RETURN true;
      END $body$`);
    await db.query('CREATE VIEW pathed_view AS SELECT id, label FROM pathed WHERE public.shift_path()');
    for (const extra of [
      'live_max_connections: 1',
      'live_max_connections: 1, live_prepared_statements: false',
    ]) {
      const relay = await startPostgresRelay(liveDataset('pathed_view', ID_AND_LABEL, extra), db.url);
      try {
        // One connection: every read after the first runs in the session the first one shifted.
        for (let read = 0; read < 3; read++) {
          assert.deepEqual((await relay.get(`${ITEMS}/1`)).json(), { id: 1, label: 'one' }, extra);
        }
      } finally {
        await relay.close();
        // Embedded PGlite serves every client in one session: the shifted path would reach later tests.
        await db.query('RESET search_path');
      }
      const { rows } = await db.query('SELECT count(*)::int AS n FROM writes');
      assert.equal(rows[0]?.n, 0, extra);
    }
  });

  it('serve a view live (its key cannot be checked for uniqueness: the view must guarantee it)', async () => {
    await db.query('CREATE TABLE labels (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO labels VALUES (1, 'one'), (2, 'two'), (3, 'three')");
    await db.query('CREATE VIEW labels_view AS SELECT id, upper(label) AS label FROM labels');
    const relay = await startPostgresRelay(liveDataset('labels_view', ID_AND_LABEL), db.url);
    try {
      assert.deepEqual((await relay.get(`${ITEMS}?limit=2`)).json().data, [
        { id: 1, label: 'ONE' },
        { id: 2, label: 'TWO' },
      ]);
    } finally {
      await relay.close();
    }
  });

  it('a column type changed under prepared reads: the next reads still answer, with the new values', async () => {
    await db.query('CREATE TABLE shifting (id integer PRIMARY KEY, label varchar(8))');
    await db.query("INSERT INTO shifting VALUES (1, 'one'), (2, 'two')");
    const relay = await startPostgresRelay(liveDataset('shifting', ID_AND_LABEL), db.url);
    try {
      // Every connection of the pool prepares these statements under load.
      const before = await Promise.all(
        Array.from({ length: 6 }, (_, index) => relay.get(index % 2 ? `${ITEMS}/1` : `${ITEMS}?limit=5`)),
      );
      for (const response of before) assert.equal(response.statusCode, 200);
      // The SELECT's result type changes: prepared plans answer "cached plan must not change result type".
      await db.query('ALTER TABLE shifting ALTER COLUMN label TYPE text');
      await db.query("UPDATE shifting SET label = 'a longer label than before' WHERE id = 1");
      const after = await Promise.all(
        Array.from({ length: 6 }, (_, index) => relay.get(index % 2 ? `${ITEMS}/1` : `${ITEMS}?limit=5`)),
      );
      for (const [index, response] of after.entries()) {
        assert.equal(response.statusCode, 200, response.body);
        const first = index % 2 ? response.json() : response.json().data[0];
        assert.deepEqual(first, { id: 1, label: 'a longer label than before' });
      }
    } finally {
      await relay.close();
    }
  });

  it('a filtered column changed to another type it may hold (text to uuid and back): prepared reads still answer', async () => {
    await db.query('CREATE TABLE retyped (id integer PRIMARY KEY, code text NOT NULL)');
    await db.query(`INSERT INTO retyped VALUES
      (1, '6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01'), (2, 'c0ffee00-0000-4000-8000-000000000002')`);
    const relay = await startPostgresRelay(
      liveDataset(
        'retyped',
        '{ name: id, type: integer }, { name: code, type: string }',
        '',
        '{ field: code, ops: [eq] }',
      ),
      db.url,
    );
    const read = () => relay.get(`${ITEMS}?code=6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01&fields=id`);
    try {
      // Prepared with a text parameter on every pooled connection.
      for (const response of await Promise.all(Array.from({ length: 6 }, read))) {
        assert.equal(response.statusCode, 200, response.body);
      }
      // The parameter's type was fixed by the old column type: the prepared statement no longer compiles.
      for (const type of ['uuid USING code::uuid', 'text']) {
        await db.query(`ALTER TABLE retyped ALTER COLUMN code TYPE ${type}`);
        for (const response of await Promise.all(Array.from({ length: 6 }, read))) {
          assert.equal(response.statusCode, 200, `${type}: ${response.body}`);
          assert.deepEqual(response.json().data, [{ id: 1 }]);
        }
      }
    } finally {
      await relay.close();
    }
  });

  it('a value that does not fit the declared type answers datasource.row_invalid', async () => {
    await db.query('CREATE TABLE measures (id integer PRIMARY KEY, value numeric)');
    await db.query("INSERT INTO measures VALUES (1, 2.5), (2, 'NaN')");
    const relay = await startPostgresRelay(
      liveDataset('measures', '{ name: id, type: integer }, { name: value, type: number }'),
      db.url,
    );
    try {
      assert.deepEqual((await relay.get(`${ITEMS}/1`)).json(), { id: 1, value: 2.5 });
      assertProblem(await relay.get(`${ITEMS}/2`), 502, 'datasource.row_invalid', /`value`/);
      assertProblem(await relay.get(ITEMS), 502, 'datasource.row_invalid');
    } finally {
      await relay.close();
    }
  });

  it('a uuid key compares as the text a snapshot holds: other spellings and non-uuids match nothing', async () => {
    await db.query('CREATE TABLE tokens (id uuid PRIMARY KEY, label text)');
    await db.query(`INSERT INTO tokens VALUES ('6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01', 'first'),
      ('c0ffee00-0000-4000-8000-000000000002', 'second')`);
    const relay = await startPostgresRelay(liveAndSnapshot('tokens', 'token_copies'), db.url);
    const LIVE_TOKENS = '/v1/datasets/registry/entities/tokens/records';
    const SNAPSHOT_TOKENS = '/v1/datasets/registry/entities/token_copies/records';
    const FIRST = '6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01';
    try {
      const cases: [string, string[]][] = [
        [`id=${FIRST}`, ['first']],
        [`id=${FIRST.toUpperCase()}`, []],
        [`id=%7B${FIRST.replaceAll('-', '')}%7D`, []],
        ['id=not-a-uuid', []],
        [`id.in=not-a-uuid,${FIRST}`, ['first']],
        ['id.gte=a', ['second']],
        ['id.lte=7', ['first']],
        ['id.between=6,c0ffee00-0000-4000-8000-000000000002', ['first', 'second']],
      ];
      for (const [query, labels] of cases) {
        const live = await relay.get(`${LIVE_TOKENS}?${query}`);
        assert.equal(live.statusCode, 200, `${query}: ${live.body}`);
        assert.deepEqual(
          live.json().data.map((row: { label: string }) => row.label),
          labels,
          query,
        );
        assert.deepEqual(
          live.json().data,
          (await relay.get(`${SNAPSHOT_TOKENS}?${query}`)).json().data,
          query,
        );
      }
      assertProblem(await relay.get(`${LIVE_TOKENS}/not-a-uuid`), 404, 'schema.unknown_resource');
      assertProblem(await relay.get(`${LIVE_TOKENS}/${FIRST.toUpperCase()}`), 404, 'schema.unknown_resource');
      assert.equal((await relay.get(`${LIVE_TOKENS}/${FIRST}`)).json().label, 'first');
    } finally {
      await relay.close();
    }
  });

  it('a C-collated text key orders and compares alike live and in the snapshot, characters beyond U+FFFF included', async () => {
    await db.query('CREATE TABLE symbols (id text COLLATE "C" PRIMARY KEY, label text)');
    const keys = ['a', 'b\u{1f600}', 'b\ufffd', '\uff01', '\u{1f600}', '\ue000x'];
    for (const [index, key] of keys.entries()) {
      await db.query('INSERT INTO symbols VALUES ($1, $2)', [key, `label ${index}`]);
    }
    const relay = await startPostgresRelay(liveAndSnapshot('symbols', 'symbol_copies'), db.url);
    const path = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
    const idsOf = (response: { json(): { data: { id: string }[] } }) =>
      response.json().data.map((row) => row.id);
    // Code-point (UTF-8 byte) order, which JavaScript's own string order is not for these keys.
    const ordered = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    try {
      assert.deepEqual(idsOf(await relay.get(`${path('symbols')}?limit=100`)), ordered);
      assert.deepEqual(idsOf(await relay.get(`${path('symbol_copies')}?limit=100`)), ordered);
      for (const query of [
        `id.gte=${encodeURIComponent('\uff01')}`,
        `id.lte=${encodeURIComponent('\uff01')}`,
        `id.between=${encodeURIComponent('b\u{1f600}')},${encodeURIComponent('\u{1f600}')}`,
        `id.gte=${encodeURIComponent('b\ufffd')}&id.lte=${encodeURIComponent('\ue000x')}`,
      ]) {
        const live = idsOf(await relay.get(`${path('symbols')}?${query}`));
        assert.deepEqual(live, idsOf(await relay.get(`${path('symbol_copies')}?${query}`)), query);
        assert.ok(live.length > 0, query);
      }
      // Paging one row at a time visits the keys in the same order on both.
      for (const name of ['symbols', 'symbol_copies']) {
        const seen: string[] = [];
        let next = `${path(name)}?limit=1`;
        for (let pages = 0; pages < 10 && next; pages++) {
          const body = (await relay.get(next)).json();
          seen.push(...body.data.map((row: { id: string }) => row.id));
          next = body.pagination.has_more
            ? `${path(name)}?limit=1&cursor=${encodeURIComponent(body.pagination.next_cursor)}`
            : '';
        }
        assert.deepEqual(seen, ordered, name);
      }
    } finally {
      await relay.close();
    }
  });

  it('empty strings (null in a snapshot) and numerics (doubles in a snapshot) filter alike live and in the snapshot', async () => {
    await db.query(
      'CREATE TABLE amounts (id integer PRIMARY KEY, name text, code varchar(8), amount numeric)',
    );
    await db.query(`INSERT INTO amounts VALUES
      (1, '', '', 0.1), (2, 'bob', 'b', 0.10000000000000000001), (3, NULL, NULL, 123456789012345678901234567890.123),
      (4, 'amy', 'a', 2.5)`);
    const relay = await startPostgresRelay(
      liveAndSnapshot(
        'amounts',
        'amount_copies',
        '{ name: id, type: integer }, { name: name, type: string }, { name: code, type: string }, { name: amount, type: number }',
        ['name', 'code', 'amount'],
      ),
      db.url,
    );
    const path = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
    try {
      const cases: [string, number[]][] = [
        ['name.lte=zzz', [2, 4]],
        ['name.lte=%00', []],
        ['name.gte=%00', [2, 4]],
        ['name.between=a,c', [2, 4]],
        ['code.lte=b', [2, 4]],
        ['name.in=bob,amy', [2, 4]],
        // The value a record shows selects it, and both rows that show 0.1.
        ['amount=0.1', [1, 2]],
        ['amount.in=0.1,7', [1, 2]],
        ['amount.lte=0.1', [1, 2]],
        ['amount.gte=0.2', [3, 4]],
        ['amount=1.2345678901234568e%2B29', [3]],
        ['amount.between=1e29,1.2345678901234568e%2B29', [3]],
      ];
      for (const [query, ids] of cases) {
        const live = await relay.get(`${path('amounts')}?${query}`);
        assert.equal(live.statusCode, 200, `${query}: ${live.body}`);
        assert.deepEqual(
          live.json().data.map((row: { id: number }) => row.id),
          ids,
          query,
        );
        assert.equal(live.body, (await relay.get(`${path('amount_copies')}?${query}`)).body, query);
      }
    } finally {
      await relay.close();
    }
  });

  it('a view that computes local times from a timestamptz answers alike live and in the snapshot, whatever the database time zone', async () => {
    await db.query('CREATE TABLE moments (id integer PRIMARY KEY, at timestamptz NOT NULL)');
    await db.query("INSERT INTO moments VALUES (1, '2024-03-10 23:30:00+00'), (2, '2024-03-11 12:00:00+00')");
    // No timestamptz column is served: the zone only shapes what the view computes.
    await db.query(`CREATE VIEW moments_local AS
      SELECT id, at::timestamp AS at_local, at::date AS day, to_char(at, 'YYYY-MM-DD HH24:MI') AS label FROM moments`);
    // A database setting applies to the sessions opened after it (both relays open theirs below); embedded
    // PGlite serves every client in one session, where SET applies at once.
    const database = new URL(db.url).pathname.slice(1);
    await db.query(
      db.kind === 'pglite'
        ? "SET TIME ZONE 'Pacific/Kiritimati'"
        : `ALTER DATABASE "${database}" SET timezone = 'Pacific/Kiritimati'`,
    );
    let relay: PostgresRelay | undefined;
    try {
      relay = await startPostgresRelay(
        liveAndSnapshot(
          'moments_local',
          'moment_copies',
          '{ name: id, type: integer }, { name: at_local, type: timestamp }, { name: day, type: date }, { name: label, type: string }',
          ['at_local', 'day', 'label'],
        ),
        db.url,
      );
      assert.deepEqual((await relay.get(`${recordsOf('moments_local')}/1`)).json(), {
        id: 1,
        at_local: '2024-03-10T23:30:00.000Z',
        day: '2024-03-10',
        label: '2024-03-10 23:30',
      });
      await sameAnswers(relay, 'moments_local', 'moment_copies', [
        ['limit=10', [1, 2]],
        ['day=2024-03-10', [1]],
        ['day.gte=2024-03-11', [2]],
        ['at_local.lte=2024-03-11T00:00:00Z', [1]],
        ['label=2024-03-11%2012:00', [2]],
      ]);
    } finally {
      await relay?.close();
      await db.query(
        db.kind === 'pglite' ? 'RESET TIME ZONE' : `ALTER DATABASE "${database}" RESET timezone`,
      );
    }
  });

  it('a bigint served as number compares as the double a snapshot holds (rounded beyond 2^53)', async () => {
    await db.query('CREATE TABLE counts (id integer PRIMARY KEY, big bigint, small integer)');
    await db.query(`INSERT INTO counts VALUES (1, 9007199254740992, 1), (2, 9007199254740993, 2),
      (3, 123456789012345678, 3), (4, 9223372036854775807, NULL), (5, -9223372036854775808, -4), (6, 5, NULL),
      (7, NULL, 7)`);
    const relay = await startPostgresRelay(
      liveAndSnapshot(
        'counts',
        'count_copies',
        '{ name: id, type: integer }, { name: big, type: number }, { name: small, type: number }',
        ['big', 'small'],
      ),
      db.url,
    );
    try {
      await sameAnswers(relay, 'counts', 'count_copies', [
        ['limit=10', [1, 2, 3, 4, 5, 6, 7]],
        // 9007199254740993 reads as ...992, 123456789012345678 as ...680, the largest bigint as 2^63.
        ['big=9007199254740992', [1, 2]],
        ['big=9007199254740993', [1, 2]],
        ['big.in=9007199254740992,5', [1, 2, 6]],
        ['big.in=5,6', [6]],
        ['big.lte=9007199254740992', [1, 2, 5, 6]],
        ['big.gte=9007199254740993', [1, 2, 3, 4]],
        ['big.between=9007199254740991,9007199254740992', [1, 2]],
        ['big=123456789012345680', [3]],
        ['big.in=123456789012345680,1', [3]],
        ['big=9223372036854775807', [4]],
        ['big.gte=9223372036854775808', [4]],
        ['big.lte=-9223372036854775809', [5]],
        ['big=5.5', []],
        ['big.between=4.5,5.5', [6]],
        ['big.gte=1e300', []],
        ['big.lte=1e300', [1, 2, 3, 4, 5, 6]],
        ['big.gte=-1e300', [1, 2, 3, 4, 5, 6]],
        ['small=1.5', []],
        ['small.gte=1.5', [2, 3, 7]],
        ['small.in=-4,7.5', [5]],
      ]);
    } finally {
      await relay.close();
    }
  });

  it('a bigint served as integer: a row beyond 2^53 (which a snapshot refuses to load) answers row_invalid when read', async () => {
    await db.query('CREATE TABLE wide_counts (id integer PRIMARY KEY, big bigint)');
    await db.query('INSERT INTO wide_counts VALUES (1, 5), (2, 9007199254740993)');
    const fields = '{ name: id, type: integer }, { name: big, type: integer }';
    assert.equal(
      (await startupFailure(db.url, liveAndSnapshot('wide_counts', 'wide_count_copies', fields, ['big'])))
        .code,
      'ingest.type_mismatch',
    );
    const relay = await startPostgresRelay(
      liveDataset('wide_counts', fields, '', '{ field: big, ops: [eq, gte] }'),
      db.url,
    );
    try {
      assert.deepEqual((await relay.get(`${ITEMS}?big=5`)).json().data, [{ id: 1, big: 5 }]);
      assertProblem(await relay.get(`${ITEMS}?big.gte=6`), 502, 'datasource.row_invalid', /`big`/);
      assertProblem(await relay.get(ITEMS), 502, 'datasource.row_invalid', /`big`/);
    } finally {
      await relay.close();
    }
  });

  it('numerics beyond the double range filter as the snapshot reads them: 1e-400 as 0, 1e400 as a row_invalid', async () => {
    await db.query('CREATE TABLE extremes (id integer PRIMARY KEY, amount numeric)');
    await db.query(`INSERT INTO extremes VALUES (1, 1e-400), (2, 0), (3, 2.5), (4, -1e-400), (5, 4.9e-324),
      (6, NULL), (7, 1.7976931348623157e308), (8, -0.1)`);
    const relay = await startPostgresRelay(
      liveAndSnapshot(
        'extremes',
        'extreme_copies',
        '{ name: id, type: integer }, { name: amount, type: number }',
        ['amount'],
      ),
      db.url,
    );
    try {
      await sameAnswers(relay, 'extremes', 'extreme_copies', [
        ['limit=10', [1, 2, 3, 4, 5, 6, 7, 8]],
        ['amount=0', [1, 2, 4]],
        ['amount=-0', [1, 2, 4]],
        ['amount.in=0,2.5', [1, 2, 3, 4]],
        ['amount.lte=0', [1, 2, 4, 8]],
        ['amount.gte=0', [1, 2, 3, 4, 5, 7]],
        ['amount.gte=1e-323', [3, 7]],
        ['amount=4.9e-324', [5]],
        ['amount.between=-1,1', [1, 2, 4, 5, 8]],
        ['amount=-0.1', [8]],
        ['amount.in=-0.1,5e-324', [5, 8]],
        ['amount.gte=1.7976931348623157e308', [7]],
        ['amount.lte=-1e-320', [8]],
      ]);
    } finally {
      await relay.close();
    }
    // 1e400 is beyond the double range: a snapshot refuses the table, a live read answers row_invalid for the row.
    await db.query('CREATE TABLE overflows (id integer PRIMARY KEY, amount numeric)');
    await db.query('INSERT INTO overflows VALUES (1, 1e400), (2, 2.5), (3, -1e400)');
    const fields = '{ name: id, type: integer }, { name: amount, type: number }';
    assert.equal(
      (await startupFailure(db.url, liveAndSnapshot('overflows', 'overflow_copies', fields, ['amount'])))
        .code,
      'ingest.type_mismatch',
    );
    const live = await startPostgresRelay(
      liveDataset('overflows', fields, '', '{ field: amount, ops: [eq, in, gte, lte, between] }'),
      db.url,
    );
    try {
      for (const query of ['amount=2.5', 'amount.in=2.5,3', 'amount.between=-1e308,1e308']) {
        const answer = await live.get(`${ITEMS}?${query}`);
        assert.equal(answer.statusCode, 200, `${query}: ${answer.body}`);
        assert.deepEqual(answer.json().data, [{ id: 2, amount: 2.5 }], query);
      }
      for (const query of ['amount.gte=1', 'amount.lte=1', 'limit=5']) {
        assertProblem(await live.get(`${ITEMS}?${query}`), 502, 'datasource.row_invalid', /`amount`/);
      }
    } finally {
      await live.close();
    }
  });

  it('a data exception raised while the database runs the read is no filter error: 502 datasource.query_failed', async () => {
    await db.query('CREATE TABLE tallies (id integer PRIMARY KEY, n bigint)');
    await db.query('INSERT INTO tallies VALUES (1, 5), (2, 5000000000)');
    // The view's cast fails (integer out of range, SQLSTATE 22003) for the second row, whatever the request.
    await db.query('CREATE VIEW narrow_tallies AS SELECT id, n::integer AS n FROM tallies');
    const relay = await startPostgresRelay(
      liveDataset(
        'narrow_tallies',
        '{ name: id, type: integer }, { name: n, type: integer }',
        '',
        '{ field: n, ops: [eq] }',
      ),
      db.url,
    );
    try {
      assertProblem(await relay.get(ITEMS), 502, 'datasource.query_failed');
      assertProblem(await relay.get(`${ITEMS}?n=5`), 502, 'datasource.query_failed');
    } finally {
      await relay.close();
    }
  });

  it('a read running past query_timeout answers datasource.timeout', async () => {
    await db.query('CREATE TABLE slow (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO slow VALUES (1, 'one')");
    await db.query(`CREATE FUNCTION slow_check() RETURNS boolean LANGUAGE sql AS $body$
      SELECT pg_sleep(3) IS NOT NULL $body$`);
    await db.query('CREATE VIEW slow_view AS SELECT id, label FROM slow WHERE slow_check()');
    const relay = await startPostgresRelay(
      liveDataset('slow_view', ID_AND_LABEL, 'query_timeout: 200ms'),
      db.url,
    );
    try {
      assertProblem(await relay.get(`${ITEMS}/1`), 504, 'datasource.timeout');
    } finally {
      await relay.close();
    }
  });

  it('fast reads do not queue behind a slow one: its connection is passed over', async () => {
    await db.query('CREATE TABLE mixed (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO mixed VALUES (1, 'slow'), (2, 'fast')");
    await db.query(`CREATE FUNCTION pause_if_slow(label text) RETURNS boolean LANGUAGE sql AS $body$
      SELECT CASE WHEN label = 'slow' THEN pg_sleep(0.8) IS NOT NULL ELSE true END $body$`);
    await db.query('CREATE VIEW mixed_view AS SELECT id, label FROM mixed WHERE pause_if_slow(label)');
    const relay = await startPostgresRelay(liveDataset('mixed_view', ID_AND_LABEL), db.url);
    try {
      const order: string[] = [];
      const slow = relay.get(`${ITEMS}/1`).then((response) => {
        order.push('slow');
        return response;
      });
      // Let the slow read reach the database and its connection go quiet.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const fast = await Promise.all(
        Array.from({ length: 4 }, () =>
          relay.get(`${ITEMS}/2`).then((response) => {
            order.push('fast');
            return response;
          }),
        ),
      );
      for (const response of fast) assert.equal(response.json().label, 'fast');
      assert.equal((await slow).json().label, 'slow');
      // Embedded PGlite runs every connection in one session, one statement at a time: there the fast reads
      // cannot pass the slow one, and only the answers can be checked.
      const expected =
        db.kind === 'pglite'
          ? ['slow', 'fast', 'fast', 'fast', 'fast']
          : ['fast', 'fast', 'fast', 'fast', 'slow'];
      assert.deepEqual(order, expected);
    } finally {
      await relay.close();
    }
  });

  it('the probe refuses a table without a unique index on the key (ingest.live_key_not_unique)', async () => {
    await db.query('CREATE TABLE loose (id integer, label text)');
    await db.query('CREATE TABLE partial (id integer, label text)');
    await db.query('CREATE UNIQUE INDEX partial_id ON partial (id) WHERE id > 0');
    await db.query('CREATE TABLE paired (id integer, label text, UNIQUE (id, label))');
    // What a failed CREATE UNIQUE INDEX CONCURRENTLY leaves behind (duplicates found): an index marked invalid.
    await db.query('CREATE TABLE unfinished (id integer, label text)');
    await db.query('CREATE UNIQUE INDEX unfinished_id ON unfinished (id)');
    await db.query("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'unfinished_id'::regclass");
    for (const table of ['loose', 'partial', 'paired', 'unfinished']) {
      const error = await startupFailure(db.url, liveDataset(table, ID_AND_LABEL));
      assert.equal(error.code, 'ingest.live_key_not_unique', table);
    }
  });

  it('the probe refuses a column type that cannot serve the declared type (ingest.type_mismatch)', async () => {
    await db.query('CREATE TABLE texty (id integer PRIMARY KEY, label text, amount text)');
    const error = await startupFailure(
      db.url,
      liveDataset('texty', `${ID_AND_LABEL}, { name: amount, type: integer }`),
    );
    assert.equal(error.code, 'ingest.type_mismatch');
    assert.equal(error.column, 'amount');
  });

  it('the probe refuses types the database compares otherwise than their text (char, name, real)', async () => {
    for (const [column, sqlType, type] of [
      ['code', 'char(5)', 'string'],
      ['tag', 'name', 'string'],
      ['ratio', 'real', 'number'],
    ] as const) {
      await db.query(
        `CREATE TABLE with_${column} (id integer PRIMARY KEY, label text, ${column} ${sqlType})`,
      );
      const error = await startupFailure(
        db.url,
        liveDataset(`with_${column}`, `${ID_AND_LABEL}, { name: ${column}, type: ${type} }`),
      );
      assert.equal(error.code, 'ingest.type_mismatch', column);
      assert.equal(error.column, column);
    }
  });

  it('the probe refuses a text column with a nondeterministic collation (it compares strings case-insensitively)', async () => {
    let created = true;
    try {
      await db.query(
        "CREATE COLLATION case_blind (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
      );
    } catch (error) {
      // A server built without ICU (the embedded one) cannot hold such a column at all.
      assert.match(String(error), /ICU|not supported|nondeterministic/i);
      created = false;
    }
    if (created) {
      await db.query(
        'CREATE TABLE mails (id integer PRIMARY KEY, label text, email text COLLATE case_blind)',
      );
      const error = await startupFailure(
        db.url,
        liveDataset('mails', `${ID_AND_LABEL}, { name: email, type: string }`),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.column, 'email');
      assert.match(String(error.detail), /nondeterministic collation case_blind/);
    }
    // A deterministic collation other than C is served (its ranges and key order follow it, as documented).
    await db.query('CREATE TABLE coded (id integer PRIMARY KEY, label text COLLATE "POSIX")');
    await db.query("INSERT INTO coded VALUES (1, 'one')");
    const relay = await startPostgresRelay(liveDataset('coded', ID_AND_LABEL), db.url);
    try {
      assert.deepEqual((await relay.get(ITEMS)).json().data, [{ id: 1, label: 'one' }]);
    } finally {
      await relay.close();
    }
  });

  it('the probe refuses a table or column the database user cannot read (ingest.query_failed), as a snapshot load does', async (t) => {
    // Embedded PGlite serves every client as the one user it has: privileges cannot be tried there.
    if (db.kind === 'pglite') return t.skip('roles need a real server');
    await db.query('CREATE TABLE secrets (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO secrets VALUES (1, 'one')");
    const role = `ambit_reader_${randomBytes(6).toString('hex')}`;
    await db.query(`CREATE ROLE ${role} LOGIN`);
    const url = new URL(db.url);
    url.username = role;
    try {
      // The catalog shows the table and its columns to any user: only reading it tells.
      for (const grant of ['', `GRANT SELECT (id) ON secrets TO ${role}`]) {
        if (grant !== '') await db.query(grant);
        const error = await startupFailure(url.toString(), liveDataset('secrets', ID_AND_LABEL));
        assert.equal(error.code, 'ingest.query_failed', grant);
        assert.match(String(error.detail), /SQLSTATE 42501: permission denied for table secrets/, grant);
      }
      await db.query(`GRANT SELECT ON secrets TO ${role}`);
      const relay = await startPostgresRelay(liveDataset('secrets', ID_AND_LABEL), url.toString());
      try {
        assert.deepEqual((await relay.get(ITEMS)).json().data, [{ id: 1, label: 'one' }]);
      } finally {
        await relay.close();
      }
    } finally {
      await db.query(`DROP OWNED BY ${role}`);
      await db.query(`DROP ROLE ${role}`);
    }
  });

  it('the probe refuses a missing table, a missing column and an undeclared one under strict', async () => {
    await db.query('CREATE TABLE wide (id integer PRIMARY KEY, label text, extra text)');
    assert.equal(
      (await startupFailure(db.url, liveDataset('nowhere', ID_AND_LABEL))).code,
      'ingest.query_failed',
    );
    assert.equal(
      (await startupFailure(db.url, liveDataset('wide', ID_AND_LABEL))).code,
      'ingest.strict_extra_column',
    );
    assert.equal(
      (
        await startupFailure(
          db.url,
          liveDataset(
            'wide',
            `${ID_AND_LABEL}, { name: extra, type: string }, { name: colour, type: string }`,
          ),
        )
      ).code,
      'ingest.missing_column',
    );
  });
});
