// Upgrading a shared state schema: a migration that rewrites a table full of evaluations takes as long as it takes,
// while the store's callers are answered 503 in the meantime instead of waiting on it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { fixedClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { isProblem } from '../../src/platform/problem/problem.ts';
import { FailureReason } from '../../src/verifier/connectors/failure-reason.ts';
import { createPostgresEvaluationStore } from '../../src/verifier/state/create-postgres-evaluation-store.ts';
import { evaluation } from '../../src/verifier/state/evaluation-store.contract.ts';
import { MIGRATION_LOCK_KEY, MIGRATIONS } from '../../src/verifier/state/postgres-migrations.ts';
import { freshDatabases, type TestDatabase } from '../helpers/postgres-harness.ts';

const freshDatabase = freshDatabases();
const NOW = Date.parse('2026-01-01T00:00:00Z');

function storeOn(url: string, operationTimeoutMs: number, maxConnections = 4) {
  return createPostgresEvaluationStore({
    url,
    maxConnections,
    connectTimeoutMs: 2_000,
    operationTimeoutMs,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    logger: silentLogger(),
  });
}

/** The schema as the first release left it, holding `ids` evaluations. */
async function firstReleaseSchema(database: TestDatabase, ids: readonly string[]): Promise<void> {
  const [first] = MIGRATIONS;
  assert.ok(first);
  await database.query('CREATE SCHEMA ambit_verifier');
  await database.query(
    'CREATE TABLE ambit_verifier.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  await database.query(first.sql);
  await database.query('INSERT INTO ambit_verifier.schema_migrations (version, name) VALUES ($1, $2)', [
    first.version,
    first.name,
  ]);
  for (const id of ids) {
    const old = evaluation(id, NOW, 60_000);
    await database.query(
      `INSERT INTO ambit_verifier.evaluations VALUES ($1, 'p1', $2::jsonb, to_timestamp($3 / 1000.0), to_timestamp($4 / 1000.0))`,
      [old.evaluation_id, JSON.stringify(old), old.created_at, old.expires_at],
    );
  }
}

/**
 * Runs `run` while another session holds the migration lock (another instance migrating), then checks no session
 * is left waiting for it: a store closed meanwhile stopped its migration.
 */
async function whileAnotherMigrates(database: TestDatabase, run: () => Promise<void>): Promise<void> {
  const other = new pg.Client({ connectionString: database.url });
  await other.connect();
  try {
    await other.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await run();
    // Only this database's sessions: tests running beside this one wait for advisory locks of their own. A
    // session whose wait was cancelled leaves pg_locks as the server gets to it, so its absence is waited for.
    const waiting = async () =>
      (
        await database.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_locks
            WHERE locktype = 'advisory' AND NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      ).rows[0]?.waiting;
    let left = await waiting();
    for (let attempt = 0; left !== 0 && attempt < 50; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = await waiting();
    }
    assert.equal(left, 0, 'a session of this database still waits for the migration lock');
  } finally {
    await other.end();
  }
}

describe('postgresql state store migrations', () => {
  it('migrates a schema of the first release in place: its evaluations stay readable', async () => {
    const database = await freshDatabase();
    const old = evaluation('01J00000000000000000000OLD', NOW, 60_000);
    await firstReleaseSchema(database, [old.evaluation_id]);
    const store = storeOn(database.url, 5_000);
    try {
      assert.equal(await store.prepare(), true);
      const { rows } = await database.query<{ version: number }>(
        'SELECT version FROM ambit_verifier.schema_migrations ORDER BY version',
      );
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
      );
      assert.deepEqual(await store.get(old.evaluation_id, 'p1'), old);
      const fresh = evaluation('01J0000000000000000000NEW1', NOW, 60_000);
      await store.put(fresh);
      assert.equal(JSON.stringify(await store.get(fresh.evaluation_id, 'p1')), JSON.stringify(fresh));
    } finally {
      await store.close();
    }
  });

  it('completes a migration whose table rewrite outlasts operation_timeout', async () => {
    const database = await freshDatabase();
    const ids = ['01J0000000000000000000OLD1', '01J0000000000000000000OLD2', '01J0000000000000000000OLD3'];
    await firstReleaseSchema(database, ids);
    // Stands for a table of many evaluations: rebuilding this index, as migration 2's rewrite does, takes a while
    // per row (far past the 100 ms each ordinary operation is allowed).
    await database.query(
      `CREATE FUNCTION ambit_verifier.slow_key(id text) RETURNS text LANGUAGE plpgsql IMMUTABLE
       AS $$ BEGIN PERFORM pg_sleep(0.2); RETURN id; END $$`,
    );
    await database.query(
      'CREATE INDEX slow_index ON ambit_verifier.evaluations (ambit_verifier.slow_key(evaluation_id))',
    );
    const store = storeOn(database.url, 100);
    try {
      // prepare() may give up waiting; the migration goes on, and the store is usable once it is done.
      await store.prepare();
      for (let attempt = 0; !(await store.isReady()); attempt++) {
        assert.ok(attempt < 200, 'the migration never completed');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const { rows } = await database.query<{ version: number }>(
        'SELECT version FROM ambit_verifier.schema_migrations ORDER BY version',
      );
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
      );
      assert.ok(await store.get(ids[0] as string, 'p1'));
    } finally {
      await store.close();
    }
  });

  it('answers 503 while the migrations run, and a store closed meanwhile stops them', {
    timeout: 30_000,
  }, async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') {
      t.skip('PGlite has one backend: a lock held elsewhere would hold every session up');
      return;
    }
    // Another instance migrating: it holds the migration lock for as long as its migrations run.
    await whileAnotherMigrates(database, async () => {
      const store = storeOn(database.url, 100);
      try {
        assert.equal(await store.prepare(), false);
        assert.equal(await store.isReady(), false);
        const migrating = (error: unknown) => {
          assert.ok(isProblem(error));
          assert.equal(error.code, 'state.unavailable');
          assert.ok(error.cause instanceof FailureReason);
          assert.equal(error.cause.code, 'state.migrating');
          return true;
        };
        await assert.rejects(store.get('01J0000000000000000000000A', 'p1'), migrating);
        // An evaluation is refused before it reads a source: its result could not be kept yet.
        assert.throws(() => store.checkAvailable(), migrating);
      } finally {
        // Resolves while the other instance still holds the lock: the waiting migration was cancelled.
        await store.close();
      }
    });
  });

  it('stops a waiting migration on close with max_connections: 1, the pool holding no spare connection', {
    timeout: 30_000,
  }, async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') {
      t.skip('PGlite has one backend: a lock held elsewhere would hold every session up');
      return;
    }
    await whileAnotherMigrates(database, async () => {
      const store = storeOn(database.url, 100, 1);
      assert.equal(await store.prepare(), false);
      // The migration's own connection is the pool's only one: the close must not wait for the lock.
      await store.close();
    });
  });

  it('gives up waiting for a table lock after operation_timeout, so instances still running are not stalled', async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') {
      t.skip('PGlite has one backend: a lock held elsewhere would hold every session up');
      return;
    }
    await firstReleaseSchema(database, ['01J0000000000000000000OLD1']);
    // An instance of the first release, in the middle of a statement on the table migration 2 rewrites.
    const running = new pg.Client({ connectionString: database.url });
    await running.connect();
    try {
      await running.query('BEGIN');
      await running.query('SELECT count(*) FROM ambit_verifier.evaluations');
      const store = storeOn(database.url, 100);
      try {
        assert.equal(await store.prepare(), false);
        await assert.rejects(store.get('01J0000000000000000000OLD1', 'p1'), (error: unknown) => {
          assert.ok(isProblem(error) && error.cause instanceof FailureReason);
          assert.equal(error.cause.code, 'state.timeout');
          return true;
        });
        await running.query('COMMIT');
        // Tried again (a second after the failure, by the store's clock, which the test does not move): not yet.
        const { rows } = await database.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM ambit_verifier.schema_migrations',
        );
        assert.equal(rows[0]?.n, 1);
      } finally {
        await store.close();
      }
    } finally {
      await running.end();
    }
    const store = storeOn(database.url, 100);
    try {
      assert.equal(await store.prepare(), true);
      assert.ok(await store.get('01J0000000000000000000OLD1', 'p1'));
    } finally {
      await store.close();
    }
  });
});
