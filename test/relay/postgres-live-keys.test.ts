// Primary keys of every type over one PostgreSQL table, served as a snapshot and live: the same pages when walked
// one row at a time, and each record read by the key it shows (a numeric's double, a timestamp's milliseconds).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { ITEMS, liveDataset } from './postgres-live-fixture.ts';

const encode = (value: string) => encodeURIComponent(value);

describe('a timestamp primary key with microseconds, served as a snapshot and live', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  const table = (id: string, live: boolean) => `
      - id: ${id}
        ${postgresSource({ table: 'moments' })}${live ? '\n        materialization: live' : ''}
        primary_key: at
        schema: { fields: [{ name: at, type: timestamp }, { name: label, type: string }] }`;
  const entity = (name: string) => `
      - name: ${name}
        table: ${name}
        ${ACCESS}
        api: { allowed_filters: [{ field: at, ops: [eq, in, gte, lte, between] }] }`;
  const path = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE moments (at timestamptz PRIMARY KEY, label text)');
    await db.query(`INSERT INTO moments VALUES ('2024-01-01 00:00:00.123456+00', 'a'),
      ('2024-01-01 00:00:00.124999+00', 'b'), ('1969-12-31 23:59:59.999999+00', 'c'), ('2024-01-01 00:00:01+00', 'd')`);
    relay = await startPostgresRelay(
      `  - id: registry
    title: Registry
    tables:${table('moments', true)}${table('moment_copies', false)}
    entities:${entity('moments')}${entity('moment_copies')}`,
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  it('a record is read, and filtered, by the instant it shows', async () => {
    const shown = (await relay.get(`${path('moment_copies')}?limit=10`)).json().data;
    assert.deepEqual(
      shown.map((row: { at: string }) => row.at),
      [
        '1969-12-31T23:59:59.999Z',
        '2024-01-01T00:00:00.123Z',
        '2024-01-01T00:00:00.124Z',
        '2024-01-01T00:00:01.000Z',
      ],
    );
    for (const { at } of shown as { at: string }[]) {
      const live = await relay.get(`${path('moments')}/${at}`);
      assert.equal(live.statusCode, 200, `${at}: ${live.body}`);
      assert.equal(live.body, (await relay.get(`${path('moment_copies')}/${at}`)).body, at);
      for (const query of [`at=${at}`, `at.in=${at}`, `at.lte=${at}`, `at.between=${at},${at}`]) {
        const answer = await relay.get(`${path('moments')}?${query}`);
        assert.equal(answer.body, (await relay.get(`${path('moment_copies')}?${query}`)).body, query);
      }
    }
  });
});

describe('primary keys of every type page alike, as a snapshot and live', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  const KEYS: [string, string, string, string[]][] = [
    ['int8', 'bigint', 'integer', ['-9007199254740991', '-1', '0', '7', '2147483648', '9007199254740991']],
    [
      'f8',
      'double precision',
      'number',
      ['-1e308', '-0.5', '0', '1e-320', '0.1', '0.30000000000000004', '1e21'],
    ],
    ['num', 'numeric', 'number', ['-2.5', '0.1', '0.2', '1e20', '123456789.123456789']],
    ['bn', 'bigint', 'number', ['-9007199254740993', '1', '9007199254740993', '4611686018427387905']],
    ['day', 'date', 'date', ['0001-01-01', '1969-12-31', '1970-01-01', '2024-02-29', '9999-12-31']],
    [
      'uid',
      'uuid',
      'string',
      ['00000000-0000-0000-0000-000000000000', '7fffffff-0000-0000-0000-000000000000'],
    ],
  ];
  const path = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
  before(async () => {
    db = await openTestDatabase();
    const tables: string[] = [];
    const entities: string[] = [];
    for (const [name, pgType, type, keys] of KEYS) {
      await db.query(`CREATE TABLE k_${name} (id ${pgType} PRIMARY KEY, label text)`);
      for (const key of keys) await db.query(`INSERT INTO k_${name} VALUES ($1, $2)`, [key, key]);
      for (const live of [true, false]) {
        const id = `${name}_${live ? 'live' : 'snap'}`;
        tables.push(`
      - id: ${id}
        ${postgresSource({ table: `k_${name}` })}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [{ name: id, type: ${type} }, { name: label, type: string }] }`);
        entities.push(`
      - { name: ${id}, table: ${id}, ${ACCESS}, api: { allowed_filters: [{ field: id, ops: [eq, gte] }] } }`);
      }
    }
    relay = await startPostgresRelay(
      `  - id: registry\n    title: Registry\n    tables:${tables.join('')}\n    entities:${entities.join('')}`,
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  for (const [name] of KEYS) {
    it(`a ${name} key: the same pages of one row, and the same record by the id each shows`, async () => {
      const walk = async (entity: string) => {
        const pages: unknown[] = [];
        let next = `${path(entity)}?limit=1`;
        for (let page = 0; page < 20 && next !== ''; page++) {
          const response = await relay.get(next);
          assert.equal(response.statusCode, 200, response.body);
          const body = response.json();
          pages.push(body.data);
          next = body.pagination.has_more
            ? `${path(entity)}?limit=1&cursor=${encode(body.pagination.next_cursor)}`
            : '';
        }
        return pages;
      };
      const pages = await walk(`${name}_snap`);
      assert.deepEqual(await walk(`${name}_live`), pages);
      for (const [row] of pages as { id: unknown }[][]) {
        const id = encode(String(row?.id));
        const live = await relay.get(`${path(`${name}_live`)}/${id}`);
        assert.equal(live.body, (await relay.get(`${path(`${name}_snap`)}/${id}`)).body, id);
        const filtered = await relay.get(`${path(`${name}_live`)}?id.gte=${id}&limit=2`);
        // Both sides refusing the key as a filter value would also be alike: the row must select itself.
        assert.equal(filtered.statusCode, 200, `${id}: ${filtered.body}`);
        assert.deepEqual(filtered.json().data[0], row, id);
        assert.deepEqual(
          filtered.json().data,
          (await relay.get(`${path(`${name}_snap`)}?id.gte=${id}&limit=2`)).json().data,
        );
      }
    });
  }
});

describe('a live key a snapshot would refuse (NULL or empty, through a view)', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openTestDatabase();
    // A table's key must be NOT NULL under a unique index, but a view cannot be checked: it may give NULL keys,
    // which sort last, and empty ones, which sort first. A snapshot load refuses both.
    await db.query('CREATE TABLE items_base (n integer PRIMARY KEY, id text, label text)');
    await db.query(`INSERT INTO items_base VALUES (1, 'a', 'x'), (2, NULL, 'y'), (3, NULL, 'z')`);
    await db.query('CREATE VIEW items AS SELECT id, label FROM items_base');
    relay = await startPostgresRelay(
      liveDataset('items', '{ name: id, type: string }, { name: label, type: string }'),
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  it('answers datasource.row_invalid when read, whether or not `fields` shows the key', async () => {
    const refused = async (queries: readonly string[]) => {
      for (const query of queries) {
        const answer = await relay.get(`${ITEMS}?${query}`);
        assert.equal(answer.statusCode, 502, `${query}: ${answer.body}`);
        assert.equal(answer.json().code, 'datasource.row_invalid', query);
      }
    };
    // A page ending on a NULL key has no position to continue from: it must not be served as one with more.
    await refused(['limit=2', 'limit=2&fields=label', 'limit=5&fields=label']);
    assert.equal((await relay.get(`${ITEMS}?limit=1&fields=label`)).statusCode, 200);
    await db.query(`UPDATE items_base SET id = '' WHERE label = 'y'`);
    await refused(['limit=1', 'limit=1&fields=label']);
  });
});
