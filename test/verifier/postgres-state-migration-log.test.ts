// What the operator reads while the state store cannot be migrated: each failure once, then a reminder a minute
// later with the number of attempts left out of the log, however often probes and requests try the store meanwhile;
// a different failure at once; and the recovery.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { createPostgresEvaluationStore } from '../../src/verifier/state/create-postgres-evaluation-store.ts';
import { NEWEST_VERSION } from '../../src/verifier/state/postgres-migrations.ts';
import { capturedLog } from '../helpers/captured-log.ts';
import { proxiedDatabase } from '../helpers/cuttable-proxy.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';

const freshDatabase = freshDatabases();

describe('postgresql state store, its log while the migrations fail', () => {
  it('logs a failure once, then once a minute with its count, a new failure at once, and the recovery', async () => {
    const database = await freshDatabase();
    const { proxy, url } = await proxiedDatabase(database.url);
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const log = capturedLog('info');
    const store = createPostgresEvaluationStore({
      url,
      maxConnections: 2,
      connectTimeoutMs: 2_000,
      operationTimeoutMs: 5_000,
      clock,
      logger: log.logger,
    });
    const migrationLines = () =>
      log
        .records()
        .filter((record) => /^state store (unavailable: migrations|available)/.test(String(record.msg)))
        .map((record) => ({
          level: record.level,
          err_code: record.err_code,
          suppressed: record.suppressed,
          attempts: record.failed_attempts,
        }));
    // A readiness probe every 1.5 s: each one past the retry spacing tries the migrations again.
    const probe = async (times: number) => {
      for (let n = 0; n < times; n++) {
        clock.advance(1_500);
        assert.equal(await store.isReady(), false);
      }
    };
    try {
      // The database cannot be reached: nothing listens on its port.
      await proxy.cut();
      assert.equal(await store.prepare(), false);
      await probe(10);
      assert.deepEqual(migrationLines(), [
        { level: 40, err_code: 'ECONNREFUSED', suppressed: undefined, attempts: undefined },
      ]);
      // It answers, but holds a schema of a later version: another failure, told at once.
      await proxy.open();
      await database.query('CREATE SCHEMA ambit_verifier');
      await database.query(
        'CREATE TABLE ambit_verifier.schema_migrations (version integer PRIMARY KEY, name text NOT NULL)',
      );
      await database.query('INSERT INTO ambit_verifier.schema_migrations VALUES ($1, $2)', [
        NEWEST_VERSION + 1,
        'from a later release',
      ]);
      await probe(30);
      assert.deepEqual(migrationLines().slice(1), [
        { level: 40, err_code: 'schema_too_new', suppressed: 10, attempts: undefined },
      ]);
      // A minute after it was told, the same failure is told again, with the attempts left out since.
      await probe(20);
      assert.deepEqual(migrationLines().slice(2), [
        { level: 40, err_code: 'schema_too_new', suppressed: 39, attempts: undefined },
      ]);
      // Put right: the store migrates, is ready, and says so, with every attempt that failed before.
      await database.query('DROP SCHEMA ambit_verifier CASCADE');
      clock.advance(1_500);
      assert.equal(await store.isReady(), true);
      const recovered = migrationLines().slice(3);
      assert.deepEqual(recovered, [
        { level: 30, err_code: undefined, suppressed: undefined, attempts: 1 + 10 + 30 + 20 },
      ]);
    } finally {
      await store.close();
      await proxy.cut();
    }
  });
});
