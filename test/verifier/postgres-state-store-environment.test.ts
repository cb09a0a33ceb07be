// The PostgreSQL state store under conditions it does not control: a database whose default transaction isolation
// is stricter than PostgreSQL's own, and a wall clock stepped back while the store was unavailable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { createPostgresEvaluationStore } from '../../src/verifier/state/create-postgres-evaluation-store.ts';
import { evaluation } from '../../src/verifier/state/evaluation-store.contract.ts';
import { NEWEST_VERSION } from '../../src/verifier/state/postgres-migrations.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';

const freshDatabase = freshDatabases();

function storeOn(url: string, clock = fixedClock('2026-01-01T00:00:00Z')) {
  return createPostgresEvaluationStore({
    url,
    maxConnections: 4,
    connectTimeoutMs: 2_000,
    operationTimeoutMs: 5_000,
    clock,
    logger: silentLogger(),
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
});
