// A statement the relay gave up waiting for is cancelled on the server, not left running on a backend: closing
// the connection alone does not stop it (a backend notices a closed socket only when it next reads or writes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { eventually, startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { ID_AND_LABEL, ITEMS, liveDataset } from './postgres-live-fixture.ts';
import { dataset } from './postgres-snapshot-fixture.ts';

/**
 * Sleeps `seconds`, through the first cancellation it meets (the server's own statement_timeout, which fires
 * once): a statement the server-side timeout cannot stop, as one stuck where that timeout does not reach is.
 * A second cancellation (a CancelRequest) ends it.
 */
const STUBBORN_SLEEP = `CREATE FUNCTION stubborn_sleep(seconds float8) RETURNS boolean LANGUAGE plpgsql AS $body$
  DECLARE cancelled integer := 0;
  BEGIN
    LOOP
      BEGIN
        PERFORM pg_sleep(seconds);
        RETURN true;
      EXCEPTION WHEN query_canceled THEN
        cancelled := cancelled + 1;
        IF cancelled > 1 THEN RAISE; END IF;
      END;
    END LOOP;
  END $body$`;

describe('PostgreSQL statements past the client-side time limit', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query(STUBBORN_SLEEP);
    await db.query('CREATE TABLE slow (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO slow VALUES (1, 'one')");
    await db.query('CREATE VIEW stubborn_view AS SELECT id, label FROM slow WHERE stubborn_sleep(60)');
  });
  after(() => db.close());

  /** Statements of the relay the server is still running in the test's database. */
  async function relayStatementsRunning(): Promise<number> {
    const { rows } = await db.query<{ running: number }>(
      `SELECT count(*)::int AS running FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'ambit-relay' AND state = 'active'`,
    );
    return (rows[0] as { running: number }).running;
  }

  it('the server-side statement_timeout alone does not stop the test statement', async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite ignores statement_timeout');
    const [, , sleep] = (await db.query(
      'BEGIN; SET LOCAL statement_timeout = 50; SELECT stubborn_sleep(0.3) AS done; COMMIT',
    )) as unknown as { rows: { done: boolean }[] }[];
    assert.equal(sleep?.rows[0]?.done, true);
  });

  it('a live read past its time limit answers 504 and its statement stops running on the server', async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    const relay = await startPostgresRelay(
      liveDataset('stubborn_view', ID_AND_LABEL, 'query_timeout: 200ms'),
      db.url,
    );
    try {
      assertProblem(await relay.get(`${ITEMS}/1`), 504, 'datasource.timeout');
      await eventually(
        async () => (await relayStatementsRunning()) === 0,
        'the live read to be cancelled',
        10_000,
      );
    } finally {
      await relay.close();
    }
  });

  it('a snapshot load past its time limit fails with ingest.query_timeout and its COPY stops running', async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    const error = await startupFailure(
      db.url,
      dataset(
        `      - id: items
        ${postgresSource({ table: 'stubborn_view' }, 'query_timeout: 200ms')}
        primary_key: id
        schema: { fields: [${ID_AND_LABEL}] }`,
        `      - { name: items, table: items, ${ACCESS} }`,
      ),
    );
    assert.equal(error.code, 'ingest.query_timeout');
    await eventually(async () => (await relayStatementsRunning()) === 0, 'the COPY to be cancelled', 10_000);
  });
});

describe('PostgreSQL statements another session cancels (pg_cancel_backend: SQLSTATE 57014 before query_timeout)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    // The view sleeps while `paused` says so: the test cancels it, then lets the next read through.
    await db.query('CREATE TABLE paused (on_hold boolean)');
    await db.query('INSERT INTO paused VALUES (true)');
    await db.query(`CREATE FUNCTION hold_while_paused() RETURNS boolean LANGUAGE sql AS $body$
      SELECT CASE WHEN (SELECT on_hold FROM paused) THEN pg_sleep(30) IS NOT NULL ELSE true END $body$`);
    await db.query('CREATE TABLE held (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO held VALUES (1, 'one')");
    await db.query('CREATE VIEW held_view AS SELECT id, label FROM held WHERE hold_while_paused()');
  });
  after(() => db.close());

  /** Cancels the relay's statement once it sleeps, as an administrator would, then lets later reads through. */
  async function cancelSleepingRead(): Promise<void> {
    const sleeping = `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND application_name = 'ambit-relay' AND wait_event = 'PgSleep'`;
    await eventually(async () => (await db.query(sleeping)).rows.length === 1, 'the read to be running');
    await db.query('UPDATE paused SET on_hold = false');
    await db.query(`SELECT pg_cancel_backend(pid) FROM (${sleeping}) relay`);
  }

  it('a live read answers 503 datasource.unavailable with Retry-After (not a time-out), and the next one reads', async (t) => {
    if (db.kind === 'pglite') return t.skip('cancelling a backend needs a real server');
    await db.query('UPDATE paused SET on_hold = true');
    const relay = await startPostgresRelay(liveDataset('held_view', ID_AND_LABEL), db.url);
    try {
      const read = relay.get(`${ITEMS}/1`);
      await cancelSleepingRead();
      const cancelled = await read;
      assertProblem(cancelled, 503, 'datasource.unavailable', /cancelled/);
      assert.equal(cancelled.headers['retry-after'], '5');
      assert.deepEqual((await relay.get(`${ITEMS}/1`)).json(), { id: 1, label: 'one' });
    } finally {
      await relay.close();
    }
  });

  it('a first snapshot load whose COPY is cancelled is tried again, and loads', async (t) => {
    if (db.kind === 'pglite') return t.skip('cancelling a backend needs a real server');
    await db.query('UPDATE paused SET on_hold = true');
    const relay = await startPostgresRelay(
      dataset(
        `      - id: items
        ${postgresSource({ table: 'held_view' })}
        primary_key: id
        schema: { fields: [${ID_AND_LABEL}] }`,
        `      - { name: items, table: items, ${ACCESS} }`,
      ),
      db.url,
      { waitForLoad: false },
    );
    try {
      await cancelSleepingRead();
      await relay.relay.loaded;
      assert.deepEqual((await relay.get(ITEMS)).json().data, [{ id: 1, label: 'one' }]);
    } finally {
      await relay.close();
    }
  });
});
