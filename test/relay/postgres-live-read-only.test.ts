// Live PostgreSQL tables that must never write, whatever the view, function or column change under them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ID_AND_LABEL, ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

describe('live PostgreSQL tables: read-only, views and changed columns', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
  });
  after(() => db.close());

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

  // A session-level advisory lock is not released by the end of the read's transaction, and a pooled connection
  // may live as long as the relay: other clients of the database would wait on it for as long.
  it('a session advisory lock a view takes is not held by the pooled connection once it reads again', async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    await db.query('CREATE TABLE locking (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO locking VALUES (1, 'one'), (2, 'two')");
    await db.query(`CREATE FUNCTION lock_on_one(id integer) RETURNS boolean LANGUAGE sql AS $body$
      SELECT id <> 1 OR pg_catalog.pg_advisory_lock(4242) IS NOT NULL $body$`);
    await db.query(
      'CREATE VIEW locking_advisory_view AS SELECT id, label FROM locking WHERE lock_on_one(id)',
    );
    const relay = await startPostgresRelay(
      liveDataset('locking_advisory_view', ID_AND_LABEL, 'live_max_connections: 1'),
      db.url,
    );
    const heldByOthers = async () => {
      const { rows } = await db.query<{ held: boolean }>(
        "SELECT count(*) > 0 AS held FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      return rows[0]?.held;
    };
    try {
      assert.deepEqual((await relay.get(`${ITEMS}/1`)).json(), { id: 1, label: 'one' });
      // The same connection reads again, a row for which the view takes no lock.
      assert.deepEqual((await relay.get(`${ITEMS}/2`)).json(), { id: 2, label: 'two' });
      assert.equal(await heldByOthers(), false);
    } finally {
      await relay.close();
    }
  });

  it('row locks and sequence advances in a view are refused by the read-only transaction', async () => {
    await db.query('CREATE TABLE locked (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO locked VALUES (1, 'one')");
    await db.query('CREATE SEQUENCE counter');
    await db.query('CREATE VIEW locking_view AS SELECT id, label FROM locked FOR SHARE');
    // Refused by the start's check of the table, which reads no row but plans the lock.
    const error = await startupFailure(db.url, liveDataset('locking_view', ID_AND_LABEL));
    assert.equal(error.code, 'ingest.query_failed');
    assert.match(error.message, /25006: cannot execute SELECT FOR SHARE in a read-only transaction/);
    await db.query("CREATE VIEW counting_view AS SELECT id, label FROM locked WHERE nextval('counter') > 0");
    const relay = await startPostgresRelay(liveDataset('counting_view', ID_AND_LABEL), db.url);
    try {
      assertProblem(await relay.get(`${ITEMS}/1`), 502, 'datasource.query_failed');
    } finally {
      await relay.close();
    }
    const { rows } = await db.query('SELECT last_value, is_called FROM counter');
    assert.deepEqual(rows[0], { last_value: '1', is_called: false });
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

  it('a value that does not fit the declared type answers datasource.row_invalid, counted as row_invalid', async () => {
    await db.query('CREATE TABLE measures (id integer PRIMARY KEY, value numeric)');
    await db.query("INSERT INTO measures VALUES (1, 2.5), (2, 'NaN')");
    const relay = await startPostgresRelay(
      liveDataset('measures', '{ name: id, type: integer }, { name: value, type: number }'),
      db.url,
      { admin: true },
    );
    try {
      assert.deepEqual((await relay.get(`${ITEMS}/1`)).json(), { id: 1, value: 2.5 });
      assertProblem(await relay.get(`${ITEMS}/2`), 502, 'datasource.row_invalid', /`value`/);
      assertProblem(await relay.get(ITEMS), 502, 'datasource.row_invalid');
      const metrics = (await relay.admin('GET', '/metrics')).body;
      const scans = (outcome: string) =>
        new RegExp(
          `^ambit_relay_datasource_live_scans_total\\{[^}]*outcome="${outcome}"\\} (\\d+)$`,
          'm',
        ).exec(metrics)?.[1];
      assert.equal(scans('ok'), '1');
      assert.equal(scans('row_invalid'), '2');
    } finally {
      await relay.close();
    }
  });

  // The guard is a prepared statement of the connection, which a function can DEALLOCATE and PREPARE again under
  // its name (pg_prepared_statements lists it): later reads on the connection would then run read-write. The guard
  // must be parsed on every read (live-connection.ts); the relay cannot start otherwise.
  it('a view that replaces the prepared guard cannot switch later reads to writing', async () => {
    await db.query('CREATE TABLE hijacked (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO hijacked VALUES (1, 'one')");
    await db.query('CREATE TABLE hijack_writes (at timestamptz DEFAULT now())');
    await db.query(`CREATE FUNCTION replace_guard() RETURNS boolean LANGUAGE plpgsql AS $body$
        DECLARE prepared record;
        BEGIN
          FOR prepared IN SELECT name FROM pg_prepared_statements
            WHERE statement LIKE '%transaction_read_only%' LOOP
            EXECUTE format('DEALLOCATE %I', prepared.name);
            EXECUTE format('PREPARE %I AS SELECT 1, 2, 3, 4, 5, 6', prepared.name);
          END LOOP;
          BEGIN INSERT INTO public.hijack_writes DEFAULT VALUES;
          EXCEPTION WHEN read_only_sql_transaction THEN NULL; END;
          RETURN true;
        END $body$`);
    await db.query(
      'CREATE VIEW hijacked_view AS SELECT id, label FROM hijacked WHERE public.replace_guard()',
    );
    const relay = await startPostgresRelay(
      liveDataset('hijacked_view', ID_AND_LABEL, 'live_max_connections: 1'),
      db.url,
    );
    try {
      for (let read = 0; read < 3; read++) await relay.get(`${ITEMS}/1`);
    } finally {
      await relay.close();
      // Embedded PGlite serves every client in one session: the replaced statement would reach later tests.
      await db.query('DEALLOCATE ALL');
    }
    const { rows } = await db.query('SELECT count(*)::int AS n FROM hijack_writes');
    assert.equal(rows[0]?.n, 0);
  });

  // A function can set the session's client_encoding (it outlives the read): text would then arrive in LATIN1 and
  // be served as U+FFFD, by that read and by every later one on the connection.
  it("a view that moves the session's client_encoding off UTF8 fails that read; later reads get a fresh session", async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    await db.query('CREATE TABLE encoded (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO encoded VALUES (1, 'café'), (2, 'naïve')");
    await db.query(`CREATE FUNCTION shift_encoding(id integer) RETURNS boolean LANGUAGE sql AS $body$
      SELECT id <> 1 OR pg_catalog.set_config('client_encoding', 'LATIN1', false) IS NOT NULL $body$`);
    await db.query('CREATE VIEW encoded_view AS SELECT id, label FROM encoded WHERE shift_encoding(id)');
    const relay = await startPostgresRelay(
      liveDataset('encoded_view', ID_AND_LABEL, 'live_max_connections: 1'),
      db.url,
    );
    try {
      assert.deepEqual((await relay.get(`${ITEMS}/2`)).json(), { id: 2, label: 'naïve' });
      assertProblem(await relay.get(`${ITEMS}/1`), 502, 'datasource.query_failed');
      assert.deepEqual((await relay.get(`${ITEMS}/2`)).json(), { id: 2, label: 'naïve' });
    } finally {
      await relay.close();
    }
  });
});
