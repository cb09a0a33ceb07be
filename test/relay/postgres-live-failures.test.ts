// Live PostgreSQL failures: errors raised while a read runs, time-outs, slow reads, and what the startup probe
// refuses.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { eventually, startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ID_AND_LABEL, ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

describe('live PostgreSQL tables: failures and the startup probe', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
  });
  after(() => db.close());

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

  /** Holds an ACCESS EXCLUSIVE lock on `table` (another session's, as a migration would) until `release()`. */
  async function lockTable(url: string, table: string) {
    const locker = new pg.Client({ connectionString: url });
    // Ended by the database's drop when a test fails while it holds the lock.
    locker.on('error', () => {});
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    let released: Promise<unknown> | undefined;
    return { release: () => (released ??= locker.query('COMMIT').finally(() => locker.end())) };
  }

  it('reads of a table another session locks ACCESS EXCLUSIVE time out (504), and recover once the lock goes', async (t) => {
    // Embedded PGlite runs every client in one session: another session's lock cannot be tried there.
    if (db.kind === 'pglite') return t.skip('locks need a real server');
    await db.query('CREATE TABLE guarded (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO guarded VALUES (1, 'one'), (2, 'two')");
    const relay = await startPostgresRelay(
      liveDataset('guarded', ID_AND_LABEL, 'live_max_connections: 1, query_timeout: 300ms'),
      db.url,
    );
    let lock: Awaited<ReturnType<typeof lockTable>> | undefined;
    try {
      assert.equal((await relay.get(`${ITEMS}/1`)).statusCode, 200);
      lock = await lockTable(db.url, 'guarded');
      // Pipelined on the one connection: each waits for the lock until its own statement times out.
      const locked = await Promise.all([relay.get(`${ITEMS}/1`), relay.get(`${ITEMS}?limit=1`)]);
      for (const answer of locked) assertProblem(answer, 504, 'datasource.timeout');
      await lock.release();
      assert.deepEqual((await relay.get(`${ITEMS}/2`)).json(), { id: 2, label: 'two' });
      assert.equal((await relay.get(`${ITEMS}?limit=1`)).json().data.length, 1);
    } finally {
      await lock?.release();
      await relay.close();
    }
  });

  it("a lock wait the database's own lock_timeout ends is a time-out too (504), not a refusal of the read (502)", async (t) => {
    if (db.kind === 'pglite') return t.skip('locks need a real server');
    // A role or database setting that keeps readers from queueing behind a migration's lock.
    const strict = await openLiveTestDatabase();
    try {
      await strict.query(`ALTER DATABASE ${new URL(strict.url).pathname.slice(1)} SET lock_timeout = '50ms'`);
      await strict.query('CREATE TABLE guarded (id integer PRIMARY KEY, label text)');
      await strict.query("INSERT INTO guarded VALUES (1, 'one')");
      const relay = await startPostgresRelay(liveDataset('guarded', ID_AND_LABEL), strict.url);
      const lock = await lockTable(strict.url, 'guarded');
      try {
        const locked = await relay.get(`${ITEMS}/1`);
        assertProblem(locked, 504, 'datasource.timeout');
        assert.doesNotMatch(locked.body, /guarded|55P03|SQLSTATE/, 'no table or server detail');
        await lock.release();
        assert.deepEqual((await relay.get(`${ITEMS}/1`)).json(), { id: 1, label: 'one' });
      } finally {
        await lock.release();
        await relay.close();
      }
    } finally {
      await strict.close();
    }
  });

  it("the relay's backend terminated under 8 pipelined reads: each answers its own row or 503, and the next read recovers", async (t) => {
    if (db.kind === 'pglite') return t.skip('terminating a backend needs a real server');
    await db.query('CREATE TABLE halted (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO halted SELECT g, 'row ' || g FROM generate_series(1, 8) g");
    await db.query(`CREATE FUNCTION hold_at_five(id integer) RETURNS boolean LANGUAGE sql AS $body$
      SELECT CASE WHEN id = 5 THEN pg_sleep(30) IS NOT NULL ELSE true END $body$`);
    await db.query('CREATE VIEW halted_view AS SELECT id, label FROM halted WHERE hold_at_five(id)');
    const relay = await startPostgresRelay(
      liveDataset('halted_view', ID_AND_LABEL, 'live_max_connections: 1, live_pipeline_depth: 8'),
      db.url,
    );
    const relayBackends = `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'ambit-relay'`;
    try {
      const reads = [1, 2, 3, 4, 5, 6, 7, 8].map((id) => relay.get(`${ITEMS}/${id}`));
      await eventually(
        async () => (await db.query(`${relayBackends} AND wait_event = 'PgSleep'`)).rows.length === 1,
        'the fifth read to be running',
      );
      await db.query(`SELECT pg_terminate_backend(pid) FROM (${relayBackends}) relay`);
      const answers = await Promise.all(reads);
      // Reads sent before the fifth answered; the fifth and those behind it lost their connection. The order
      // they left in is the pool's, not the requests'.
      assertProblem(answers[4] as (typeof answers)[number], 503, 'datasource.unavailable');
      for (const [index, answer] of answers.entries()) {
        if (answer.statusCode === 200) {
          assert.deepEqual(answer.json(), { id: index + 1, label: `row ${index + 1}` });
        } else assertProblem(answer, 503, 'datasource.unavailable');
      }
      assert.deepEqual((await relay.get(`${ITEMS}/8`)).json(), { id: 8, label: 'row 8' });
      assert.equal((await db.query(relayBackends)).rows.length, 1, 'one connection, the fresh one');
    } finally {
      await relay.close();
    }
  });

  /**
   * A role of one connection reading a view whose row 1 takes `pauseS` seconds: a slow read of row 1 is held on that
   * connection while a fast read of row 2 is asked for, which the server refuses a connection of its own.
   */
  async function slowThenFast(name: string, pauseS: number, extra: string) {
    await db.query(`CREATE TABLE ${name} (id integer PRIMARY KEY, label text)`);
    await db.query(`INSERT INTO ${name} VALUES (1, 'slow'), (2, 'fast')`);
    await db.query(`CREATE FUNCTION pause_if_${name}(label text) RETURNS boolean LANGUAGE sql AS $body$
      SELECT CASE WHEN label = 'slow' THEN pg_sleep(${pauseS}) IS NOT NULL ELSE true END $body$`);
    await db.query(`CREATE VIEW ${name}_view AS SELECT id, label FROM ${name} WHERE pause_if_${name}(label)`);
    const role = `ambit_${name}_${randomBytes(6).toString('hex')}`;
    // One connection for the role: the server refuses a second with SQLSTATE 53300.
    await db.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
    await db.query(`GRANT SELECT ON ${name}, ${name}_view TO ${role}`);
    const url = new URL(db.url);
    url.username = role;
    const relay = await startPostgresRelay(liveDataset(`${name}_view`, ID_AND_LABEL, extra), url.toString());
    try {
      assert.equal((await relay.get(`${ITEMS}/2`)).statusCode, 200);
      const slow = relay.get(`${ITEMS}/1`);
      await eventually(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE usename = '${role}' AND wait_event = 'PgSleep'`,
            )
          ).rows.length === 1,
        'the slow read to be running',
      );
      const fast = await relay.get(`${ITEMS}/2`);
      assert.equal(fast.statusCode, 200, fast.body);
      assert.deepEqual(fast.json(), { id: 2, label: 'fast' });
      assert.deepEqual((await slow).json(), { id: 1, label: 'slow' });
    } finally {
      await relay.close();
      await db.query(`DROP OWNED BY ${role}`);
      await db.query(`DROP ROLE ${role}`);
    }
  }

  it('a server refusing another connection (too many clients, 53300) leaves reads on the one open: no 503', async (t) => {
    if (db.kind === 'pglite') return t.skip('connection limits need a real server');
    // Its connection is stalled behind the slow read: the pool tries another, which the server refuses.
    await slowThenFast('limited', 0.8, 'live_max_connections: 4');
  });

  it('a read refused a connection while the one open is full waits for its room: no 503', async (t) => {
    if (db.kind === 'pglite') return t.skip('connection limits need a real server');
    // One read on the connection at a time: the second read finds no room anywhere until the slow one ends.
    await slowThenFast('capped', 0.5, 'live_max_connections: 4, live_pipeline_depth: 1');
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

  it('the probe refuses a key a UNIQUE index covers but that may be NULL (rows without a key)', async () => {
    await db.query('CREATE TABLE nullable_key (id integer UNIQUE, label text)');
    const error = await startupFailure(db.url, liveDataset('nullable_key', ID_AND_LABEL));
    assert.equal(error.code, 'ingest.live_key_not_unique');
    assert.match(error.detail, /may be NULL; make it NOT NULL/);
    await db.query('ALTER TABLE nullable_key ALTER COLUMN id SET NOT NULL');
    const relay = await startPostgresRelay(liveDataset('nullable_key', ID_AND_LABEL), db.url);
    await relay.close();
  });

  it('the probe refuses a column type that cannot serve the declared type (ingest.type_mismatch)', async () => {
    await db.query('CREATE TABLE texty (id integer PRIMARY KEY, label text, amount text)');
    const error = await startupFailure(
      db.url,
      liveDataset('texty', `${ID_AND_LABEL}, { name: amount, type: integer }`),
    );
    assert.equal(error.code, 'ingest.type_mismatch');
    assert.equal(error.column, 'amount');
    assert.match(error.detail, /through a view that casts it \(e\.g\. "amount"::bigint\)/);
  });

  it('the probe refuses types the database compares otherwise than their text (char, name, real)', async () => {
    // A type of another schema named like a built-in one is not that type: `padded = 'a'::varchar` compares as
    // char(5), trailing spaces ignored, so a live `eq=a` would match the row a snapshot holds as `a    `.
    await db.query('CREATE SCHEMA lookalike');
    await db.query('CREATE DOMAIN lookalike."varchar" AS char(5)');
    for (const [column, sqlType, type] of [
      ['code', 'char(5)', 'string'],
      ['tag', 'name', 'string'],
      ['ratio', 'real', 'number'],
      ['padded', 'lookalike."varchar"', 'string'],
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

  it('the probe refuses a text column with a nondeterministic collation (it compares strings case-insensitively)', async (t) => {
    let created = true;
    try {
      await db.query(
        "CREATE COLLATION case_blind (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
      );
    } catch (error) {
      // A server built without ICU (the embedded one) cannot hold such a column at all.
      assert.match(String(error), /ICU|not supported|nondeterministic/i);
      created = false;
      t.diagnostic(
        `${db.kind} has no ICU: the refusal of a nondeterministic collation is not exercised here`,
      );
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
