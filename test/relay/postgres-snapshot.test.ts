// PostgreSQL snapshot sources on a real database: rows and types, query sources, data versions, big tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, PEOPLE, postgresSource } from './postgres-fixture.ts';
import { dataset, PEOPLE_PATH, peopleDataset, usePeopleDatabase } from './postgres-snapshot-fixture.ts';

describe('PostgreSQL snapshot sources', () => {
  const setup = usePeopleDatabase();

  it('load every row and map numeric, integer, bigint, text, date, timestamp(tz), boolean and null', async () => {
    const { db } = setup;
    const relay = await startPostgresRelay(peopleDataset(postgresSource({ table: 'people' })), db.url);
    try {
      const response = await relay.get(`${PEOPLE_PATH}?limit=100`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().data, PEOPLE);
      assert.ok(response.headers.etag, 'a snapshot has a data version, so an ETag');
      // Exact text: the timestamptz stored at +02:00 comes back as the same instant in UTC, numeric as a number.
      const record = await relay.get(`${PEOPLE_PATH}/p003`);
      assert.equal(
        record.body,
        '{"person_id":"p003","household":5000000003,"age":9,"income":3703.53,"born":"1980-10-27","registered_at":"2024-01-01T03:30:15.123Z","updated_local":"2023-06-03T08:00:00.000Z","active":false,"note":"O\'Brien, \\"Ωmega\\""}',
      );
    } finally {
      await relay.close();
    }
  });

  it('read a configured query (a WITH statement) in primary-key order, with filters over its columns', async () => {
    const { db } = setup;
    const query =
      'WITH grown AS (SELECT * FROM people WHERE age >= 18) -- adults only\nSELECT person_id, household, age, income, born, registered_at, updated_local, active, note FROM grown';
    const relay = await startPostgresRelay(peopleDataset(postgresSource({ query })), db.url);
    try {
      const response = await relay.get(`${PEOPLE_PATH}?limit=100`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.json().data,
        PEOPLE.filter((person) => person.age !== null && person.age >= 18),
      );
      const filtered = await relay.get(`${PEOPLE_PATH}?household=5000000001&limit=100`);
      assert.deepEqual(
        filtered.json().data.map((row: { person_id: string }) => row.person_id),
        PEOPLE.filter((p) => p.age !== null && p.age >= 18 && p.household === 5_000_000_001).map(
          (p) => p.person_id,
        ),
      );
    } finally {
      await relay.close();
    }
  });

  it('produce the same version (ETag) from the same data, and a new one when a row changes', async () => {
    const { db } = setup;
    const source = peopleDataset(postgresSource({ table: 'people' }));
    const first = await startPostgresRelay(source, db.url);
    const second = await startPostgresRelay(source, db.url);
    try {
      const a = await first.get(PEOPLE_PATH);
      const b = await second.get(PEOPLE_PATH);
      assert.equal(a.headers.etag, b.headers.etag);
      await db.query("UPDATE people SET note = 'changed' WHERE person_id = 'p001'");
      const third = await startPostgresRelay(source, db.url);
      try {
        assert.notEqual((await third.get(PEOPLE_PATH)).headers.etag, a.headers.etag);
      } finally {
        await third.close();
      }
    } finally {
      await db.query("UPDATE people SET note = 'note 1' WHERE person_id = 'p001'");
      await first.close();
      await second.close();
    }
  });

  it('stream more rows than one batch holds, with control characters, backslashes and Unicode intact', async () => {
    const { db } = setup;
    await db.query('CREATE TABLE notes (id integer PRIMARY KEY, body text, score double precision)');
    await db.query(`INSERT INTO notes
      SELECT i, 'line ' || i || E'\\ttab\\nnewline \\\\ back ' || chr(937) || chr(128512), i / 4.0
        FROM generate_series(1, 20000) AS i`);
    const relay = await startPostgresRelay(
      dataset(
        `      - id: notes
        ${postgresSource({ table: 'notes' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: body, type: string }, { name: score, type: number }] }`,
        `      - { name: notes, table: notes, ${ACCESS}, api: { max_limit: 10000 } }`,
      ),
      db.url,
    );
    try {
      assert.deepEqual((await relay.get('/v1/datasets/registry/entities/notes/records/19999')).json(), {
        id: 19999,
        body: 'line 19999\ttab\nnewline \\ back Ω😀',
        score: 4999.75,
      });
      let count = 0;
      let path = '/v1/datasets/registry/entities/notes/records?limit=10000';
      for (;;) {
        const body = (await relay.get(path)).json();
        count += body.data.length;
        if (!body.pagination.has_more) break;
        path = `/v1/datasets/registry/entities/notes/records?limit=10000&cursor=${encodeURIComponent(body.pagination.next_cursor)}`;
      }
      assert.equal(count, 20000);
    } finally {
      await relay.close();
    }
  });
});
