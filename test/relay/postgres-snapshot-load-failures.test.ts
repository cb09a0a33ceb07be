// PostgreSQL snapshot loads that fail with a stable code, and nothing the relay runs able to write.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SourceError } from '../../src/relay/sources/source-error.ts';
import { startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { ACCESS, PEOPLE, postgresSource } from './postgres-fixture.ts';
import {
  changeTokenSources,
  dataset,
  PEOPLE_PATH,
  peopleDataset,
  usePeopleDatabase,
} from './postgres-snapshot-fixture.ts';

describe('PostgreSQL snapshot sources', () => {
  const setup = usePeopleDatabase();

  describe('load failures name the table and a stable code', () => {
    it('a bigint beyond the safe integer range declared integer: ingest.type_mismatch', async () => {
      const { db } = setup;
      await db.query('CREATE TABLE big (id integer PRIMARY KEY, amount bigint)');
      await db.query('INSERT INTO big VALUES (1, 9007199254740993)');
      const error = await startupFailure(
        db.url,
        dataset(
          `      - id: big
        ${postgresSource({ table: 'big' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: amount, type: integer }] }`,
          `      - { name: big, table: big, ${ACCESS} }`,
        ),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.tableId, 'big');
      assert.equal(error.row, 1);
      assert.equal(error.column, 'amount');
    });

    it('a RAISE in a function a view calls, with any SQLSTATE: its message (which may quote data) is left out', async () => {
      const { db } = setup;
      await db.query('CREATE TABLE raised (id integer PRIMARY KEY)');
      await db.query('INSERT INTO raised VALUES (1)');
      await db.query(`CREATE FUNCTION raise_secret(n integer) RETURNS integer LANGUAGE plpgsql AS $body$
        BEGIN RAISE EXCEPTION 'secret % here', n + 15000 USING ERRCODE = 'XX000'; END $body$`);
      await db.query('CREATE VIEW raised_view AS SELECT raise_secret(id) AS id FROM raised');
      const error = await startupFailure(
        db.url,
        dataset(
          `      - id: raised
        ${postgresSource({ table: 'raised_view' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }] }`,
          `      - { name: raised, table: raised, ${ACCESS} }`,
        ),
      );
      assert.equal(error.code, 'ingest.query_failed');
      assert.match(error.detail, /SQLSTATE XX000/);
      assert.doesNotMatch(`${error.detail} ${error.message}`, /secret|15001/);
    });

    it('a numeric NaN declared number: ingest.type_mismatch', async () => {
      const { db } = setup;
      await db.query('CREATE TABLE odd (id integer PRIMARY KEY, value numeric)');
      await db.query("INSERT INTO odd VALUES (1, 1.5), (2, 'NaN')");
      const error = await startupFailure(
        db.url,
        dataset(
          `      - id: odd
        ${postgresSource({ table: 'odd' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: value, type: number }] }`,
          `      - { name: odd, table: odd, ${ACCESS} }`,
        ),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.row, 2);
    });

    it('a declared column the table lacks: ingest.missing_column', async () => {
      const { db } = setup;
      const error = await startupFailure(
        db.url,
        peopleDataset(postgresSource({ table: 'people' }), {
          schema: `
        primary_key: person_id
        schema: { strict: false, fields: [{ name: person_id, type: string }, { name: shoe_size, type: integer }] }`,
        }),
      );
      assert.equal(error.code, 'ingest.missing_column');
      assert.match(error.message, /shoe_size/);
    });

    it('an undeclared column under strict: ingest.strict_extra_column (dropped when not strict)', async () => {
      const { db } = setup;
      const narrow = `
        primary_key: person_id
        schema: { strict: STRICT, fields: [{ name: person_id, type: string }, { name: age, type: integer }] }`;
      const error = await startupFailure(
        db.url,
        peopleDataset(postgresSource({ table: 'people' }), { schema: narrow.replace('STRICT', 'true') }),
      );
      assert.equal(error.code, 'ingest.strict_extra_column');
      const relay = await startPostgresRelay(
        peopleDataset(postgresSource({ table: 'people' }), { schema: narrow.replace('STRICT', 'false') }),
        db.url,
      );
      try {
        assert.deepEqual((await relay.get(`${PEOPLE_PATH}/p002`)).json(), { person_id: 'p002', age: 6 });
      } finally {
        await relay.close();
      }
    });

    it('a table that does not exist, or a name crafted as SQL: ingest.query_failed, nothing else runs', async () => {
      const { db } = setup;
      for (const name of ['no_such_table', '"people; DROP TABLE people; --"']) {
        const error = await startupFailure(db.url, peopleDataset(postgresSource({ table: name })));
        assert.equal(error.code, 'ingest.query_failed', error.message);
      }
      const { rows } = await db.query('SELECT count(*)::int AS n FROM people');
      assert.equal(rows[0]?.n, PEOPLE.length);
    });
  });

  describe('read only', () => {
    before(async () => {
      const { db } = setup;
      await db.query('CREATE TABLE writes (at timestamptz DEFAULT now())');
      // A function that writes when called: the relay must never run it to completion.
      await db.query(`CREATE FUNCTION sneaky_write() RETURNS integer LANGUAGE plpgsql AS $body$
        BEGIN INSERT INTO writes DEFAULT VALUES; RETURN 1; END $body$`);
      await db.query('CREATE VIEW people_with_writes AS SELECT people.*, sneaky_write() AS w FROM people');
    });

    const writeCount = async () => (await setup.db.query('SELECT count(*)::int AS n FROM writes')).rows[0]?.n;

    it('a crafted query that writes through a function fails the load and writes nothing', async () => {
      const { db } = setup;
      const query = 'SELECT p.*, sneaky_write() AS w FROM people AS p';
      const error = await startupFailure(db.url, peopleDataset(postgresSource({ query }), { strict: false }));
      assert.equal(error.code, 'ingest.query_failed');
      assert.match(error.message, /read-only transaction/);
      assert.equal(await writeCount(), 0);
    });

    it('a view that writes when read fails the load and writes nothing', async () => {
      const { db } = setup;
      const error = await startupFailure(
        db.url,
        peopleDataset(postgresSource({ table: 'people_with_writes' }), { strict: false }),
      );
      assert.equal(error.code, 'ingest.query_failed');
      assert.match(error.message, /read-only transaction/);
      assert.equal(await writeCount(), 0);
    });

    it("a view that moves the session's client_encoding off UTF8 fails the load: no text is misread", async (t) => {
      const { db } = setup;
      if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
      await db.query('CREATE TABLE accented (id integer PRIMARY KEY, label text)');
      await db.query("INSERT INTO accented VALUES (1, 'café')");
      await db.query(`CREATE FUNCTION latin1_output() RETURNS boolean LANGUAGE sql AS $body$
        SELECT pg_catalog.set_config('client_encoding', 'LATIN1', false) IS NOT NULL $body$`);
      await db.query('CREATE VIEW accented_view AS SELECT id, label FROM accented WHERE latin1_output()');
      const error = await startupFailure(
        db.url,
        dataset(
          `      - id: accented
        ${postgresSource({ table: 'accented_view' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: label, type: string }] }`,
          `      - { name: accented, table: accented, ${ACCESS} }`,
        ),
      );
      assert.equal(error.code, 'ingest.query_failed');
      assert.match(error.message, /client_encoding/);
    });

    it('a change token query that writes through a function fails and writes nothing', async () => {
      const { db } = setup;
      const { sources, table } = changeTokenSources(db.url, 'SELECT sneaky_write()');
      try {
        await assert.rejects(sources.changeToken(table), (error: unknown) => {
          assert.ok(error instanceof SourceError);
          assert.equal(error.code, 'ingest.query_failed');
          return true;
        });
        assert.equal(await writeCount(), 0);
      } finally {
        await sources.close();
      }
    });
  });
});
