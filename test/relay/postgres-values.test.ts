// Values read from PostgreSQL, snapshot and live: the same text whatever output settings the database or role
// sets (bytea's included, read as a string), numerics beyond the double range refused rather than served as null,
// and dates of years 0001 to 0099.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { silentLogger } from '../../src/platform/log.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { createPostgresSources } from '../../src/relay/sources/postgres/postgres-sources.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import {
  postgresRelayConfig,
  startPostgresRelay,
  startupFailure,
  URL_ENV,
} from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

const SNAPSHOT = '/v1/datasets/registry/entities/vals/records';
const LIVE = '/v1/datasets/registry/entities/vals_live/records';

const CREATE_VALS = `CREATE TABLE vals (
  id integer PRIMARY KEY, f float8, d date, ts timestamp, tz timestamptz, iv interval, n numeric, b bytea)`;
const INSERT_VALS = `INSERT INTO vals VALUES
  (1, 0.30000000000000004, '2024-02-01', '2024-02-01 10:00:00.123', '2024-02-01 12:00:00+02', '1 day 02:00', 12.5, '\\x00ff41'),
  (2, 123456789.12345679, '0050-03-01', '0050-03-01 10:00:00', '0001-01-01 00:00:00+00', '-3 months', -0.25, ''),
  (3, 1e-7, '0001-01-01', '9999-12-31 23:59:59.999', NULL, NULL, NULL, NULL)`;

/** What the relay must answer for `vals`, written out here rather than derived from the relay. */
const VALS = [
  {
    id: 1,
    f: 0.30000000000000004,
    d: '2024-02-01',
    ts: '2024-02-01T10:00:00.123Z',
    tz: '2024-02-01T10:00:00.000Z',
    iv: '1 day 02:00:00',
    n: 12.5,
    b: '\\x00ff41',
  },
  {
    id: 2,
    f: 123456789.12345679,
    d: '0050-03-01',
    ts: '0050-03-01T10:00:00.000Z',
    tz: '0001-01-01T00:00:00.000Z',
    iv: '-3 mons',
    n: -0.25,
    b: '\\x',
  },
  { id: 3, f: 1e-7, d: '0001-01-01', ts: '9999-12-31T23:59:59.999Z', tz: null, iv: null, n: null, b: null },
];

// Each one changes the text PostgreSQL writes for a mapped type when a session does not set its own.
const HOSTILE_SETTINGS = [
  "DateStyle = 'SQL, DMY'",
  'extra_float_digits = -10',
  "IntervalStyle = 'sql_standard'",
  "bytea_output = 'escape'",
  "TimeZone = 'America/New_York'",
];

const OPS = '[eq, in, gte, lte, between]';
const FIELDS = ['f: number', 'd: date', 'ts: timestamp', 'tz: timestamp', 'n: number'];
const fields = (extra: string[] = []) =>
  [
    '            - { name: id, type: integer, nullable: false }',
    ...[...FIELDS, ...extra].map((field) => {
      const [name, type] = field.split(': ');
      return `            - { name: ${name}, type: ${type} }`;
    }),
  ].join('\n');

const VALS_DATASET = `  - id: registry
    title: Registry
    tables:
      - id: vals
        ${postgresSource({ table: 'vals' }, "change_token_sql: 'SELECT max(f), max(d), max(ts), max(tz), max(iv) FROM vals'")}
        primary_key: id
        schema:
          fields:
${fields(['iv: string', 'b: string'])}
      - id: vals_live
        ${postgresSource({ table: 'vals' })}
        materialization: live
        primary_key: id
        schema:
          strict: false
          fields:
${fields()}
    entities:
      - name: vals
        table: vals
        ${ACCESS}
        api: { allowed_filters: [{ field: d, ops: ${OPS} }, { field: ts, ops: ${OPS} }, { field: f, ops: ${OPS} }] }
      - name: vals_live
        table: vals_live
        ${ACCESS}
        api: { allowed_filters: [{ field: d, ops: ${OPS} }, { field: ts, ops: ${OPS} }, { field: f, ops: ${OPS} }] }`;

/** The change token `change_token_sql` gives for the `vals` table of the database at `url`. */
async function changeToken(url: string): Promise<string> {
  const text = postgresRelayConfig(VALS_DATASET, '/dev/null');
  const loaded = loadRelayConfigText(
    text,
    {
      READER_HASH: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
      AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
      [URL_ENV]: url,
    },
    '/',
  );
  const sources = createPostgresSources(loaded.config, loaded.secrets.sourceUrls, {
    logger: silentLogger(),
    now: () => 0,
  });
  const table = loaded.config.datasets[0]?.tables[0];
  assert.ok(table);
  try {
    return await sources.changeToken(table);
  } finally {
    await sources.close();
  }
}

describe('PostgreSQL values under a database with its own output settings', () => {
  let hostile: TestDatabase;
  let plain: TestDatabase;
  before(async () => {
    [hostile, plain] = await Promise.all([openTestDatabase(), openTestDatabase()]);
    for (const db of [hostile, plain]) {
      await db.query(CREATE_VALS);
      await db.query(INSERT_VALS);
    }
    // New sessions on `hostile` start with these settings; the connections already open keep their own.
    const name = new URL(hostile.url).pathname.slice(1);
    for (const setting of HOSTILE_SETTINGS) await hostile.query(`ALTER DATABASE ${name} SET ${setting}`);
  });
  after(() => Promise.all([hostile.close(), plain.close()]));

  it('a new session on the test database really starts with them (embedded PostgreSQL has one session)', async (t) => {
    if (hostile.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    const client = new pg.Client({ connectionString: hostile.url });
    await client.connect();
    try {
      const shown = await client.query(
        "SELECT current_setting('DateStyle') AS style, 0.30000000000000004::float8::text AS f",
      );
      assert.deepEqual(shown.rows[0], { style: 'SQL, DMY', f: '0.3' });
    } finally {
      await client.end();
    }
  });

  it('snapshot and live records carry every value exactly, in the usual forms', async () => {
    const relay = await startPostgresRelay(VALS_DATASET, hostile.url);
    try {
      const snapshot = await relay.get(`${SNAPSHOT}?limit=10`);
      assert.equal(snapshot.statusCode, 200, snapshot.body);
      assert.deepEqual(snapshot.json().data, VALS);
      const live = await relay.get(`${LIVE}?limit=10`);
      assert.equal(live.statusCode, 200, live.body);
      assert.deepEqual(
        live.json().data,
        VALS.map(({ iv: _, b: __, ...rest }) => rest),
      );
    } finally {
      await relay.close();
    }
  });

  it('filters on dates, timestamps and doubles select the same rows, snapshot and live', async () => {
    const relay = await startPostgresRelay(VALS_DATASET, hostile.url);
    try {
      for (const [query, expected] of [
        ['d.lte=0099-12-31', [2, 3]],
        ['d.between=0050-01-01,0050-12-31', [2]],
        ['d=0001-01-01', [3]],
        ['ts.lte=0100-01-01T00:00:00Z', [2]],
        ['f=0.30000000000000004', [1]],
        ['f.gte=0.3', [1, 2]],
      ] as const) {
        for (const path of [SNAPSHOT, LIVE]) {
          const response = await relay.get(`${path}?${query}`);
          assert.equal(response.statusCode, 200, `${path}?${query} ${response.body}`);
          const got = response.json().data.map((row: { id: number }) => row.id);
          assert.deepEqual(got, expected, `${path}?${query}`);
        }
      }
    } finally {
      await relay.close();
    }
  });

  it('the change token of the same data is the same as on a database without such settings', async () => {
    assert.equal(await changeToken(hostile.url), await changeToken(plain.url));
  });
});

describe('PostgreSQL numerics beyond the double range', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE huge (id integer PRIMARY KEY, n numeric)');
    await db.query("INSERT INTO huge VALUES (1, 2.5), (2, '1e400'), (3, '-1e400')");
  });
  after(() => db.close());

  const dataset = (nullable: boolean, live: boolean) => `  - id: registry
    title: Registry
    tables:
      - id: huge
        ${postgresSource({ table: 'huge' })}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: n, type: number, nullable: ${nullable} }] }
    entities:
      - { name: huge, table: huge, ${ACCESS} }`;

  it('refuses them at snapshot load with ingest.type_mismatch, also in a nullable field', async () => {
    for (const nullable of [false, true]) {
      const error = await startupFailure(db.url, dataset(nullable, false));
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.row, 2);
      assert.equal(error.column, 'n');
      assert.doesNotMatch(`${error.message} ${error.detail}`, /1e400|Infinity/);
    }
  });

  it('answers a live read of one with 502 datasource.row_invalid, not null', async () => {
    const relay = await startPostgresRelay(dataset(true, true), db.url);
    try {
      assertProblem(
        await relay.get('/v1/datasets/registry/entities/huge/records'),
        502,
        'datasource.row_invalid',
      );
      const first = await relay.get('/v1/datasets/registry/entities/huge/records/1');
      assert.equal(first.body, '{"id":1,"n":2.5}');
    } finally {
      await relay.close();
    }
  });
});
