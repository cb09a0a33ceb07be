// The PostgreSQL state store under conditions it does not control: a database whose default transaction isolation
// is stricter than PostgreSQL's own, a wall clock stepped back while the store was unavailable, and a database that
// lost the state schema while the store was running, or one whose encoding cannot hold every character.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Logger } from '../../src/platform/log.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { isProblem } from '../../src/platform/problem/problem.ts';
import { FailureReason } from '../../src/verifier/connectors/failure-reason.ts';
import { createPostgresEvaluationStore } from '../../src/verifier/state/create-postgres-evaluation-store.ts';
import { evaluation } from '../../src/verifier/state/evaluation-store.contract.ts';
import type { EvaluationStore } from '../../src/verifier/state/evaluation-store.ts';
import { NEWEST_VERSION } from '../../src/verifier/state/postgres-migrations.ts';
import { capturedLog } from '../helpers/captured-log.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';

const freshDatabase = freshDatabases();

function storeOn(url: string, clock = fixedClock('2026-01-01T00:00:00Z'), logger: Logger = silentLogger()) {
  return createPostgresEvaluationStore({
    url,
    maxConnections: 4,
    connectTimeoutMs: 2_000,
    operationTimeoutMs: 5_000,
    clock,
    logger,
  });
}

describe('postgresql state store, in its environment', () => {
  it('migrates and hands out idempotency keys alike on a database whose default isolation is serializable', async () => {
    const database = await freshDatabase();
    const name = new URL(database.url).pathname.slice(1);
    // Some operators make every transaction serializable by default; the store's statements must not depend on
    // seeing what a concurrent session committed while they waited for it.
    await database.query(`ALTER DATABASE ${name} SET default_transaction_isolation = 'serializable'`);
    const stores = Array.from({ length: 4 }, () => storeOn(database.url));
    try {
      // Started together: the ones that waited for the migration lock find the schema in place.
      assert.deepEqual(await Promise.all(stores.map((store) => store.prepare())), [true, true, true, true]);
      const now = Date.parse('2026-01-01T00:00:00Z');
      for (const key of ['k1', 'k2', 'k3']) {
        // Several first requests with one key at once: one runs, the others learn that it is running.
        const outcomes = await Promise.all(
          stores.map((store, index) =>
            store.beginIdempotent({
              scope: `p1:/v1/batch-evaluations:${key}`,
              requestHash: 'sha256:aa',
              owner: `owner-${index}`,
              leaseUntil: now + 30_000,
              expiresAt: now + 60_000,
            }),
          ),
        );
        assert.deepEqual(outcomes.map((outcome) => outcome.kind).sort(), [
          'in_progress',
          'in_progress',
          'in_progress',
          'started',
        ]);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('tries the migrations again when the clock was stepped back after a failed attempt', async () => {
    const database = await freshDatabase();
    const installer = storeOn(database.url);
    assert.equal(await installer.prepare(), true);
    await installer.close();
    // A schema this version refuses, so that the first attempt fails...
    await database.query('INSERT INTO ambit_verifier.schema_migrations (version, name) VALUES ($1, $2)', [
      NEWEST_VERSION + 1,
      'from a later release',
    ]);
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = storeOn(database.url, clock);
    try {
      assert.equal(await store.prepare(), false);
      // ...then put right, while the wall clock is stepped back an hour (a time sync correcting it).
      await database.query('DELETE FROM ambit_verifier.schema_migrations WHERE version > $1', [
        NEWEST_VERSION,
      ]);
      clock.advance(-3_600_000);
      const stored = evaluation('01J0000000000000000000BACK', clock.now(), 60_000);
      await store.put(stored);
      assert.deepEqual(await store.get(stored.evaluation_id, 'p1'), stored);
      assert.equal(await store.isReady(), true);
    } finally {
      await store.close();
    }
  });

  it('migrates again, without a restart, when the database it was using has lost the state schema', async () => {
    const database = await freshDatabase();
    const stores = [storeOn(database.url), storeOn(database.url)];
    const [first, second] = stores as [EvaluationStore, EvaluationStore];
    try {
      assert.equal(await first.prepare(), true);
      assert.equal(await second.prepare(), true);
      const now = Date.parse('2026-01-01T00:00:00Z');
      await first.put(evaluation('01J000000000000000000BEFRE', now, 60_000));
      // The state database replaced by an empty one (state is short-lived, so a standby may hold none of it).
      await database.query('DROP SCHEMA ambit_verifier CASCADE');
      const stored = evaluation('01J000000000000000000AFTER', now, 60_000);
      await first.put(stored);
      assert.deepEqual(await second.get(stored.evaluation_id, 'p1'), stored);
      assert.equal(await second.get('01J000000000000000000BEFRE', 'p1'), undefined);
      assert.equal(await second.isReady(), true);
      await database.query('DROP SCHEMA ambit_verifier CASCADE');
      assert.equal(await first.isReady(), true);
      assert.equal((await second.beginIdempotent(claim(now))).kind, 'started');
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('takes a database that accepts no writes (a demoted primary) as down: not ready, and evaluations refused before their reads', async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') return t.skip('PGlite has one database and one session');
    const name = new URL(database.url).pathname.slice(1);
    const installer = storeOn(database.url);
    assert.equal(await installer.prepare(), true);
    await installer.close();
    // Every session now starts read-only, as on a standby; the schema is in place, so a start migrates nothing.
    await database.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    const store = storeOn(database.url);
    try {
      assert.equal(await store.prepare(), true);
      store.checkAvailable();
      const now = Date.parse('2026-01-01T00:00:00Z');
      await assert.rejects(
        store.put(evaluation('01J000000000000000000READO', now, 60_000)),
        (error: unknown) => {
          assert.ok(isProblem(error) && error.code === 'state.unavailable');
          return true;
        },
      );
      // The next evaluations are refused before they consult a registry whose answer could not be kept.
      assert.throws(
        () => store.checkAvailable(),
        (error: unknown) => isProblem(error) && error.code === 'state.unavailable',
      );
      assert.equal(await store.isReady(), false);
    } finally {
      await store.close();
      await database.query(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    }
  });

  it('takes a database that refuses new sessions as down: evaluations refused before their reads, then resumed', async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') return t.skip('PGlite has one database, no roles and no backends to end');
    // PostgreSQL does not let a session shut its own database: another database on the server does it.
    const elsewhere = await freshDatabase();
    const name = new URL(database.url).pathname.slice(1);
    const role = `${name}_role`;
    await database.query(`CREATE ROLE ${role} LOGIN`);
    await database.query(`GRANT CREATE ON DATABASE ${name} TO ${role}`);
    const url = new URL(database.url);
    url.username = role;
    // Each refusal the server gives a session that asks to start, with how to lift it.
    const refusals = [
      // ALLOW_CONNECTIONS false: 55000, "database is not currently accepting connections".
      {
        cut: `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`,
        lift: `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`,
      },
      // Its role may no longer log in: 28000.
      { cut: `ALTER ROLE ${role} NOLOGIN`, lift: `ALTER ROLE ${role} LOGIN` },
    ];
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const log = capturedLog();
    const store = storeOn(url.toString(), clock, log.logger);
    try {
      assert.equal(await store.prepare(), true);
      for (const [index, { cut, lift }] of refusals.entries()) {
        await elsewhere.query(cut);
        try {
          // Its open sessions end too (an administrator's pg_terminate_backend, a restart), so it must start others.
          await database.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [
            role,
          ]);
          await assert.rejects(
            store.put(evaluation(`01J00000000000000000000CU${index}`, clock.now(), 60_000)),
            (error: unknown) => isProblem(error) && error.code === 'state.unavailable',
          );
          // A registry is not consulted for a result that could not be kept.
          assert.throws(
            () => store.checkAvailable(),
            (error: unknown) => isProblem(error) && error.code === 'state.unavailable',
            cut,
          );
        } finally {
          await elsewhere.query(lift);
        }
        clock.advance(1_000);
        store.checkAvailable();
        await store.put(evaluation(`01J00000000000000000000UP${index}`, clock.now(), 60_000));
      }
      // Each outage was logged with its reason, a code (what the write met first: its session ended by
      // pg_terminate_backend, or the refusal of a new one), and each recovery once, with the operations it failed.
      const told = log
        .records()
        .filter((line) => /^state store (unavailable|available again)$/.test(String(line.msg)))
        .map(({ msg, err_code, failed_operations }) => [
          msg,
          /^state\.(57p01|55000|28000)$/.test(String(err_code)) ? 'refused' : err_code,
          failed_operations,
        ]);
      assert.deepEqual(told, [
        ['state store unavailable', 'refused', undefined],
        ['state store available again', undefined, 1],
        ['state store unavailable', 'refused', undefined],
        ['state store available again', undefined, 1],
      ]);
    } finally {
      await store.close();
      await database.query(`DROP OWNED BY ${role}`);
      await database.query(`DROP ROLE ${role}`);
    }
  });

  it('refuses a database whose encoding cannot hold every character, naming it, and creates nothing there', async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') return t.skip('PGlite has one database, in UTF8');
    // Made by an initdb under a Latin-1 locale, say: a name in Cyrillic would fail to store, after its reads.
    const name = `${new URL(database.url).pathname.slice(1)}_latin1`;
    await database.query(
      `CREATE DATABASE ${name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`,
    );
    const url = new URL(database.url);
    url.pathname = `/${name}`;
    const log = capturedLog();
    const store = storeOn(url.toString(), fixedClock('2026-01-01T00:00:00Z'), log.logger);
    try {
      assert.equal(await store.prepare(), false);
      assert.equal(await store.isReady(), false);
      await assert.rejects(store.get('01J0000000000000000000000A', 'p1'), (error: unknown) => {
        assert.ok(isProblem(error) && error.code === 'state.unavailable');
        assert.ok(error.cause instanceof FailureReason);
        assert.equal(error.cause.code, 'state.database_encoding');
        // Refused as a schema of a newer version is: only the operator can mend it, a retry would fail again.
        assert.equal(error.extras.retryable, false);
        assert.equal(error.headers['retry-after'], undefined);
        return true;
      });
      assert.ok(
        log.records().some((record) => /LATIN1.*UTF8/.test(String(record.detail))),
        log.lines.join(''),
      );
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT to_regnamespace('ambit_verifier') IS NULL AS absent");
        assert.equal(rows[0]?.absent, true);
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
      await database.query(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  });
});

function claim(now: number) {
  return {
    scope: 'p1:/v1/batch-evaluations:k',
    requestHash: 'h',
    owner: 'o',
    leaseUntil: now + 1,
    expiresAt: now + 2,
  };
}
