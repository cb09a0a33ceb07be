// The PostgreSQL state store on a schema changed by hand, so that its migrations or its statements no longer match
// the tables: only the operator can mend that, and the 503 says so rather than inviting a retry each second.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { isProblem } from '../../src/platform/problem/problem.ts';
import { FailureReason } from '../../src/verifier/connectors/failure-reason.ts';
import { createPostgresEvaluationStore } from '../../src/verifier/state/create-postgres-evaluation-store.ts';
import { evaluation } from '../../src/verifier/state/evaluation-store.contract.ts';
import { MIGRATIONS } from '../../src/verifier/state/postgres-migrations.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';

const freshDatabase = freshDatabases();
const START = '2026-01-01T00:00:00Z';

function storeOn(url: string, clock = fixedClock(START)) {
  return createPostgresEvaluationStore({
    url,
    maxConnections: 4,
    connectTimeoutMs: 2_000,
    operationTimeoutMs: 5_000,
    clock,
    logger: silentLogger(),
  });
}

/** A 503 that names `reason` in audit and tells the client a retry would fail again. */
function lasting(reason: string) {
  return (error: unknown) => {
    assert.ok(isProblem(error));
    assert.equal(error.code, 'state.unavailable');
    assert.ok(error.cause instanceof FailureReason);
    assert.equal(error.cause.code, reason);
    assert.equal(error.extras.retryable, false);
    assert.equal(error.headers['retry-after'], undefined);
    assert.match(String(error.detail), /a retry would fail again/);
    return true;
  };
}

/** A database migrated by this version. */
async function migrated() {
  const database = await freshDatabase();
  const installer = storeOn(database.url);
  assert.equal(await installer.prepare(), true);
  await installer.close();
  return database;
}

describe('postgresql state store on a schema changed by hand', () => {
  it('refuses as lasting a schema whose migration records were deleted, and resumes once they are back', async () => {
    const database = await migrated();
    await database.query('DELETE FROM ambit_verifier.schema_migrations');
    const clock = fixedClock(START);
    const store = storeOn(database.url, clock);
    try {
      // Migration 1 finds its tables there already.
      assert.equal(await store.prepare(), false);
      await assert.rejects(
        store.put(evaluation('01J0000000000000000000000A', clock.now(), 60_000)),
        lasting('state.42p07'),
      );
      for (const migration of MIGRATIONS) {
        await database.query('INSERT INTO ambit_verifier.schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
      }
      clock.advance(1_000);
      await store.put(evaluation('01J0000000000000000000000A', clock.now(), 60_000));
      assert.ok(await store.get('01J0000000000000000000000A', 'p1'));
    } finally {
      await store.close();
    }
  });

  it('refuses as lasting a state table dropped by hand, its migration still recorded', async () => {
    const database = await migrated();
    await database.query('DROP TABLE ambit_verifier.idempotency_records');
    const clock = fixedClock(START);
    const store = storeOn(database.url, clock);
    try {
      assert.equal(await store.prepare(), true);
      const claim = {
        scope: 'p1:/v1/batch-evaluations:k',
        requestHash: 'h',
        owner: 'o',
        leaseUntil: clock.now() + 30_000,
        expiresAt: clock.now() + 60_000,
      };
      await assert.rejects(store.beginIdempotent(claim), lasting('state.42p01'));
      // The other table is still there and serves.
      await store.put(evaluation('01J0000000000000000000000B', clock.now(), 60_000));
      assert.ok(await store.get('01J0000000000000000000000B', 'p1'));
    } finally {
      await store.close();
    }
  });
});
