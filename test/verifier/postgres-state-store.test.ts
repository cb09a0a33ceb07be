// The PostgreSQL state store against a real PostgreSQL: the same contract as the memory store, migrations that
// run once when several processes start together, and a clean 503 when the database cannot be reached.
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { isProblem } from '../../src/platform/problem/problem.ts';
import { FailureReason } from '../../src/verifier/connectors/failure-reason.ts';
import { createPostgresEvaluationStore } from '../../src/verifier/state/create-postgres-evaluation-store.ts';
import { evaluation, evaluationStoreContract } from '../../src/verifier/state/evaluation-store.contract.ts';
import { MIGRATIONS, NEWEST_VERSION } from '../../src/verifier/state/postgres-migrations.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';

const freshDatabase = freshDatabases();

function storeOn(
  url: string,
  clock = fixedClock('2026-01-01T00:00:00Z'),
  operationTimeoutMs = 5_000,
  purgeChunkRows?: number,
) {
  return createPostgresEvaluationStore({
    url,
    maxConnections: 4,
    connectTimeoutMs: 2_000,
    operationTimeoutMs,
    clock,
    logger: silentLogger(),
    ...(purgeChunkRows === undefined ? {} : { purgeChunkRows }),
  });
}

/**
 * A TCP proxy to the database that drops both sides of a connection when its client sends `marker` (never
 * forwarding it): the connection is lost in the middle of whatever that session was doing.
 */
async function droppingProxy(databaseUrl: string, marker: string) {
  const target = new URL(databaseUrl);
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    // The end of the previous chunk: a marker split between two chunks is found too (its message is incomplete
    // upstream, so the server has not run it).
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const seen = Buffer.concat([tail, chunk]);
      if (seen.includes(marker)) return drop();
      tail = seen.subarray(Math.max(0, seen.length - marker.length));
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const viaProxy = new URL(databaseUrl);
  viaProxy.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: viaProxy.toString(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('postgresql state store', () => {
  evaluationStoreContract(async () => {
    const database = await freshDatabase();
    const clock = fixedClock('2026-01-01T00:00:00Z');
    return { store: storeOn(database.url, clock), advance: clock.advance, now: clock.now };
  });

  it('migrates once when several stores start on one database at the same time, and again is a no-op', async () => {
    const database = await freshDatabase();
    const stores = [1, 2, 3, 4].map(() => storeOn(database.url));
    try {
      assert.deepEqual(await Promise.all(stores.map((store) => store.prepare())), [true, true, true, true]);
      const { rows } = await database.query<{ version: number }>(
        'SELECT version FROM ambit_verifier.schema_migrations ORDER BY version',
      );
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
      );
      // A restart finds the schema in place.
      const again = storeOn(database.url);
      assert.equal(await again.prepare(), true);
      await again.close();
      // What one store writes, another reads: they share the database.
      const now = Date.parse('2026-01-01T00:00:00Z');
      await stores[0]?.put(evaluation('01J000000000000000000SHARE', now, 60_000));
      assert.ok(await stores[3]?.get('01J000000000000000000SHARE', 'p1'));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('runs on a role with read and write on the installed schema only (no CREATE)', async (t) => {
    const database = await freshDatabase();
    if (database.kind === 'pglite') {
      t.skip('PGlite has one role');
      return;
    }
    const installer = storeOn(database.url);
    assert.equal(await installer.prepare(), true);
    await installer.close();
    const name = new URL(database.url).pathname.slice(1);
    // Roles belong to the server: named after the test's own database.
    const role = `${name}_runtime`;
    await database.query(`CREATE ROLE ${role} LOGIN PASSWORD 'runtime'`);
    try {
      await database.query(`REVOKE CREATE ON DATABASE ${name} FROM PUBLIC`);
      await database.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
      await database.query(`GRANT USAGE ON SCHEMA ambit_verifier TO ${role}`);
      await database.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ambit_verifier TO ${role}`,
      );
      const url = new URL(database.url);
      url.username = role;
      url.password = 'runtime';
      const store = storeOn(url.toString());
      try {
        assert.equal(await store.prepare(), true);
        const now = Date.parse('2026-01-01T00:00:00Z');
        await store.put(evaluation('01J00000000000000000RUNTME', now, 60_000));
        assert.ok(await store.get('01J00000000000000000RUNTME', 'p1'));
      } finally {
        await store.close();
      }
    } finally {
      await database.query(`DROP OWNED BY ${role}`);
      await database.query(`DROP ROLE ${role}`);
    }
  });

  it('refuses a schema migrated by a newer version, naming the reason, and leaves it as it is', async () => {
    const database = await freshDatabase();
    const installer = storeOn(database.url);
    assert.equal(await installer.prepare(), true);
    await installer.close();
    await database.query('INSERT INTO ambit_verifier.schema_migrations (version, name) VALUES ($1, $2)', [
      NEWEST_VERSION + 1,
      'from a later release',
    ]);
    const store = storeOn(database.url);
    try {
      assert.equal(await store.prepare(), false);
      assert.equal(await store.isReady(), false);
      await assert.rejects(store.get('01J0000000000000000000000A', 'p1'), (error: unknown) => {
        assert.ok(isProblem(error));
        assert.equal(error.code, 'state.unavailable');
        assert.ok(error.cause instanceof FailureReason);
        assert.equal(error.cause.code, 'state.schema_too_new');
        // Only its operator can mend it: the answer does not invite a retry a second later.
        assert.match(String(error.detail), /a retry would fail again/);
        assert.equal(error.headers['retry-after'], undefined);
        assert.equal(error.extras.retryable, false);
        return true;
      });
      const { rows } = await database.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM ambit_verifier.schema_migrations',
      );
      assert.equal(rows[0]?.n, MIGRATIONS.length + 1);
    } finally {
      await store.close();
    }
  });

  it('survives a connection dropped in the middle of the migration transaction, and migrates later', async () => {
    const database = await freshDatabase();
    // Dropped once the migration has begun its transaction, as it asks for the migration lock.
    const proxy = await droppingProxy(database.url, 'pg_advisory_xact_lock');
    const dropped = storeOn(proxy.url);
    try {
      assert.equal(await dropped.prepare(), false);
      assert.equal(await dropped.isReady(), false);
    } finally {
      await dropped.close();
      await proxy.close();
    }
    const store = storeOn(database.url);
    try {
      assert.equal(await store.prepare(), true);
    } finally {
      await store.close();
    }
  });

  it('purges a backlog in steps, leaving the rows another session holds to it', async () => {
    const database = await freshDatabase();
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = storeOn(database.url, clock, 2_000, 4);
    const blocker = await openBlocker(database.url);
    try {
      assert.equal(await store.prepare(), true);
      const ids = Array.from({ length: 11 }, (_, index) => `01J00000000000000000PURGE${index.toString(36)}`);
      await store.putMany(ids.map((id) => evaluation(id, clock.now(), 60_000)));
      await store.put(evaluation('01J000000000000000000ALIVE', clock.now() + 60_000, 60_000));
      clock.advance(60_000);
      if (database.kind === 'pglite') {
        // One backend: a session holding a row would hold every other up.
        assert.equal(await store.purgeExpired(), 11);
      } else {
        // Another session (a purge on another instance) holds one expired row: this purge does not wait for it.
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM ambit_verifier.evaluations WHERE evaluation_id = $1 FOR UPDATE', [
          ids[0],
        ]);
        assert.equal(await store.purgeExpired(), 10);
        await blocker.query('ROLLBACK');
        assert.equal(await store.purgeExpired(), 1);
      }
      const { rows } = await database.query<{ evaluation_id: string }>(
        'SELECT evaluation_id FROM ambit_verifier.evaluations',
      );
      assert.deepEqual(
        rows.map((row) => row.evaluation_id),
        ['01J000000000000000000ALIVE'],
      );
    } finally {
      await blocker.query('ROLLBACK').catch(() => {});
      await blocker.end();
      await store.close();
    }
  });

  it('is not ready once a state table is gone, and ready again when it is back', async () => {
    const database = await freshDatabase();
    const store = storeOn(database.url);
    try {
      assert.equal(await store.prepare(), true);
      assert.equal(await store.isReady(), true);
      await database.query('ALTER TABLE ambit_verifier.idempotency_records RENAME TO idempotency_aside');
      assert.equal(await store.isReady(), false);
      await database.query('ALTER TABLE ambit_verifier.idempotency_aside RENAME TO idempotency_records');
      assert.equal(await store.isReady(), true);
    } finally {
      await store.close();
    }
  });

  it('answers 503 state.unavailable, never crashes, when PostgreSQL cannot be reached', async () => {
    const store = storeOn(`postgres://postgres@127.0.0.1:${await closedPort()}/none`);
    try {
      assert.equal(await store.prepare(), false);
      assert.equal(await store.isReady(), false);
      const now = Date.parse('2026-01-01T00:00:00Z');
      for (const operation of [
        () => store.put(evaluation('01J0000000000000000000DOWN', now, 60_000)),
        () => store.get('01J0000000000000000000DOWN', 'p1'),
        () =>
          store.beginIdempotent({
            scope: 's',
            requestHash: 'h',
            owner: 'o',
            leaseUntil: now + 1,
            expiresAt: now + 2,
          }),
        () => store.purgeExpired(),
      ]) {
        await assert.rejects(operation(), (error: unknown) => {
          assert.ok(isProblem(error));
          assert.equal(error.code, 'state.unavailable');
          assert.equal(error.status, 503);
          assert.equal(error.headers['retry-after'], '1');
          assert.ok(error.cause instanceof FailureReason && error.cause.code.startsWith('state.'));
          return true;
        });
      }
    } finally {
      await store.close();
    }
  });

  it('answers 503 when a query outlives operation_timeout', async () => {
    const database = await freshDatabase();
    const store = storeOn(database.url, fixedClock('2026-01-01T00:00:00Z'), 300);
    const blocker = await openBlocker(database.url);
    try {
      assert.equal(await store.prepare(), true);
      // Another session holds a lock on the table; the store's insert waits for it past its timeout.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE ambit_verifier.evaluations IN ACCESS EXCLUSIVE MODE');
      await assert.rejects(
        store.put(evaluation('01J0000000000000000000SLOW', Date.parse('2026-01-01T00:00:00Z'), 60_000)),
        (error: unknown) => isProblem(error) && error.code === 'state.unavailable',
      );
    } finally {
      await blocker.query('ROLLBACK').catch(() => {});
      await blocker.end();
      await store.close();
    }
  });
});

async function openBlocker(url: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
