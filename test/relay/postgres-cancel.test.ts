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
