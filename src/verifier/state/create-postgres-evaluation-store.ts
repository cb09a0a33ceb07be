// The PostgreSQL state store, shared by every verifier instance pointing at the same database. Expiry is judged by
// the verifier's clock (passed with each query), so one store behaves like the memory store. Any database failure
// is a 503 `state.unavailable` (the precise reason goes to audit), never a crash; the migrations are retried until
// they succeed.
import pg from 'pg';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import { createOutageLog } from '../../platform/outage-log.ts';
import { driverUrl } from '../../platform/postgres/connection-url.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import { auditCodeOf } from '../connectors/failure-reason.ts';
import type {
  EvaluationStore,
  IdempotencyOutcome,
  StoredEvaluation,
  StoredResponse,
} from './evaluation-store.ts';
import { errorCode, migrationFailureLog } from './migration-failure-log.ts';
import { migrateStateSchema, STATE_SCHEMA } from './postgres-migrations.ts';
import { isOutage, isSchemaMissing, MigrationRunningError, unavailable } from './postgres-store-failures.ts';

export interface PostgresStoreOptions {
  readonly url: string;
  readonly maxConnections: number;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Rows one purge statement deletes at most (default PURGE_CHUNK_ROWS). */
  readonly purgeChunkRows?: number;
}

/** The outage log's key: the store is one thing that fails or answers. */
const STORE = 'state';
/** A failed migration attempt is not repeated sooner than this, so an outage does not become a connect storm. */
const MIGRATION_RETRY_MS = 1_000;

/**
 * After a failure to reach the database, requests are refused before they read any source for this long; the
 * first one after it tries the database again.
 */
const OUTAGE_HOLD_MS = 1_000;

/**
 * A purge deletes in steps of this many rows, each its own statement: a backlog (after an outage, or at a high
 * rate) is then removed step by step within `operation_timeout`, where one statement deleting it all would time
 * out, and be rolled back, at every attempt.
 */
const PURGE_CHUNK_ROWS = 5_000;

const T = {
  evaluations: `${STATE_SCHEMA}.evaluations`,
  idempotency: `${STATE_SCHEMA}.idempotency_records`,
};

export function createPostgresEvaluationStore(options: PostgresStoreOptions): EvaluationStore {
  const { clock, logger } = options;
  const pool = new pg.Pool({
    connectionString: driverUrl(options.url),
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.operationTimeoutMs,
    statement_timeout: options.operationTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'ambit-verifier',
    // The statements rely on READ COMMITTED: the migration sees, once it holds the lock, what the instance that
    // held it before committed, and a key claimed by a concurrent request is reported as in progress. A database
    // whose default is stricter would fail those as serialization errors (503s, a failed start).
    onConnect: (client) => client.query("SET default_transaction_isolation = 'read committed'"),
  });
  // An idle connection that breaks (server restart, network) is reported here; without a listener it would crash
  // the process. The pool replaces it on the next query.
  pool.on('error', (error) => {
    logger.warn({ err_code: errorCode(error) }, 'state store connection lost');
  });

  let migrated = false;
  let migrating: Promise<void> | undefined;
  // Set once a caller stopped waiting for the migrations running now (a long one), until they end.
  let migratingLong = false;
  let lastFailureAt = Number.NEGATIVE_INFINITY;
  let lastFailure: unknown;
  let outageAt = Number.NEGATIVE_INFINITY;
  let outage: unknown;
  let closed = false;
  let ended: Promise<void> | undefined;
  // A negative interval is a wall clock stepped back since: waiting for it to catch up could take hours.
  const within = (since: number, ms: number) => {
    const elapsed = clock.now() - since;
    return elapsed >= 0 && elapsed < ms;
  };

  // Cancels a migration still running when the store closes: a long rewrite must not hold the shutdown up.
  const closing = new AbortController();
  const failureLog = migrationFailureLog(clock, logger);
  // Outages while serving (the migrations' own are told by failureLog).
  const outages = createOutageLog(logger, () => clock.now(), {
    failed: 'state store unavailable',
    recovered: 'state store available again',
    countField: 'failed_operations',
    fieldsOf: () => ({}),
  });
  const migrate = (): Promise<void> => {
    migrating ??= migrateStateSchema(pool, options.operationTimeoutMs, closing.signal)
      .then((applied) => {
        migrated = true;
        if (applied.length > 0) logger.info({ versions: applied }, 'state store migrated');
        failureLog.succeeded();
      })
      .catch((error: unknown) => {
        lastFailureAt = clock.now();
        lastFailure = error;
        failureLog.failed(error);
        throw error;
      })
      .finally(() => {
        migrating = undefined;
        migratingLong = false;
      });
    return migrating;
  };

  /**
   * Starts the migrations or joins those running, and waits for them `ms` at most: a long one (a table rewritten)
   * goes on meanwhile, and the caller is answered 503 rather than held up until it is done.
   */
  const awaitMigration = async (ms: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        migratingLong = migrating !== undefined;
        reject(unavailable(new MigrationRunningError()));
      }, ms);
    });
    try {
      await Promise.race([migrate(), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  };

  /** Migrated and ready, or a thrown 503. */
  const ensure = async (): Promise<void> => {
    if (migrated) return;
    if (!migrating && within(lastFailureAt, MIGRATION_RETRY_MS)) throw unavailable(lastFailure);
    await awaitMigration(options.operationTimeoutMs);
  };

  /**
   * Runs `operation` once migrated. A database found without the state tables (replaced by an empty one, or the
   * schema dropped) is migrated again and the operation tried once more: service resumes without a restart.
   */
  const migratedRun = async <R>(operation: () => Promise<R>): Promise<R> => {
    await ensure();
    try {
      return await operation();
    } catch (error) {
      if (!isSchemaMissing(error)) throw error;
      migrated = false;
      await ensure();
      return await operation();
    }
  };

  /**
   * Runs one store operation, turning any database failure into 503 `state.unavailable`. A failure to reach the
   * database is remembered (checkAvailable), an answer clears it.
   */
  const run = async <R>(operation: () => Promise<R>): Promise<R> => {
    try {
      const result = await migratedRun(operation);
      outageAt = Number.NEGATIVE_INFINITY;
      outages.answered(STORE);
      return result;
    } catch (error) {
      if (isProblem(error)) throw error;
      const problem = unavailable(error);
      if (isOutage(error)) {
        outageAt = clock.now();
        outage = error;
        const reason = auditCodeOf(problem) ?? 'state.unavailable';
        outages.failed(STORE, reason, { err_code: reason });
      }
      throw problem;
    }
  };

  const at = (ms: number) => new Date(ms);

  // json, not jsonb, all the way: each record keeps its text, key order included, so a render is byte-identical.
  // The columns come as arrays of their own, not read from the records: `->>` decodes every string of a record
  // and fails on a lone surrogate escape (`\ud800`), which JSON allows and a request can carry into the results.
  const insertMany = (evaluations: readonly StoredEvaluation[]) =>
    pool.query(
      `INSERT INTO ${T.evaluations} (evaluation_id, principal_hash, record, created_at, expires_at)
       SELECT k.id, k.principal, r.record, to_timestamp(k.created / 1000), to_timestamp(k.expires / 1000)
       FROM json_array_elements($1::json) WITH ORDINALITY AS r(record, n)
       JOIN unnest($2::text[], $3::text[], $4::double precision[], $5::double precision[])
            WITH ORDINALITY AS k(id, principal, created, expires, n) USING (n)`,
      [
        // Serialized here: pg would turn a JavaScript array into a PostgreSQL array literal.
        JSON.stringify(evaluations),
        evaluations.map((evaluation) => evaluation.evaluation_id),
        evaluations.map((evaluation) => evaluation.principal_hash),
        evaluations.map((evaluation) => evaluation.created_at),
        evaluations.map((evaluation) => evaluation.expires_at),
      ],
    );

  /** Deletes expired rows in steps; rows another session holds (a purge elsewhere) are left to it. */
  const purgeTable = async (table: string, key: string, now: Date): Promise<number> => {
    const chunk = options.purgeChunkRows ?? PURGE_CHUNK_ROWS;
    let removed = 0;
    for (;;) {
      const { rowCount } = await pool.query(
        `DELETE FROM ${table} WHERE ${key} = ANY(ARRAY(
           SELECT ${key} FROM ${table} WHERE expires_at <= $1 LIMIT ${chunk} FOR UPDATE SKIP LOCKED))`,
        [now],
      );
      removed += rowCount ?? 0;
      if ((rowCount ?? 0) < chunk) return removed;
    }
  };

  const begin = async (
    claim: Parameters<EvaluationStore['beginIdempotent']>[0],
  ): Promise<IdempotencyOutcome> => {
    const now = at(clock.now());
    // Take the key when it is free, expired, or held by a request whose lease ran out.
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await pool.query(
        `INSERT INTO ${T.idempotency} AS r (scope, request_hash, owner, lease_until, response, expires_at)
         VALUES ($1, $2, $3, $4, NULL, $5)
         ON CONFLICT (scope) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until,
               response = NULL, expires_at = EXCLUDED.expires_at
           WHERE r.expires_at <= $6 OR (r.response IS NULL AND r.lease_until <= $6)
         RETURNING owner`,
        [claim.scope, claim.requestHash, claim.owner, at(claim.leaseUntil), at(claim.expiresAt), now],
      );
      if (taken.rowCount === 1) return { kind: 'started' };
      const { rows } = await pool.query<{ request_hash: string; response: StoredResponse | null }>(
        `SELECT request_hash, response FROM ${T.idempotency} WHERE scope = $1`,
        [claim.scope],
      );
      const row = rows[0];
      // Purged between the two statements: try to take it again.
      if (!row) continue;
      if (row.request_hash !== claim.requestHash) return { kind: 'conflict' };
      return row.response ? { kind: 'replay', response: row.response } : { kind: 'in_progress' };
    }
    return { kind: 'in_progress' };
  };

  return {
    kind: 'postgresql',
    async prepare() {
      if (migrated) return true;
      try {
        // As long as reaching the database and one operation may take: the verifier then starts, not ready yet.
        await awaitMigration(options.connectTimeoutMs + options.operationTimeoutMs);
        return true;
      } catch {
        return false;
      }
    },
    async isReady() {
      try {
        // Names both tables, so a table dropped or its grant revoked after start shows here, not only as 503s; and
        // a session that starts read-only (a demoted primary, a standby) could keep nothing.
        const { rows } = await migratedRun(() =>
          pool.query<{ read_only: string }>(
            `SELECT (SELECT 1 FROM ${T.evaluations} LIMIT 0) AS e, (SELECT 1 FROM ${T.idempotency} LIMIT 0) AS i,
                    current_setting('transaction_read_only') AS read_only`,
          ),
        );
        return rows[0]?.read_only !== 'on';
      } catch {
        return false;
      }
    },
    checkAvailable() {
      if (!migrated && !migrating && within(lastFailureAt, MIGRATION_RETRY_MS))
        throw unavailable(lastFailure);
      if (migratingLong) throw unavailable(new MigrationRunningError());
      if (within(outageAt, OUTAGE_HOLD_MS)) throw unavailable(outage);
    },
    put: (evaluation) => run(() => insertMany([evaluation]).then(() => undefined)),
    putMany: (evaluations) =>
      run(async () => {
        if (evaluations.length > 0) await insertMany(evaluations);
      }),
    get: (evaluationId, principalHash) =>
      run(async () => {
        const { rows } = await pool.query<{ record: StoredEvaluation }>(
          `SELECT record FROM ${T.evaluations}
           WHERE evaluation_id = $1 AND principal_hash = $2 AND expires_at > $3`,
          [evaluationId, principalHash, at(clock.now())],
        );
        return rows[0]?.record;
      }),
    beginIdempotent: (claim) => run(() => begin(claim)),
    completeIdempotent: (scope, owner, response, expiresAt) =>
      run(async () => {
        await pool.query(
          // The owner token stays: the request that completed the key may still withdraw it (abandonIdempotent)
          // when this statement's answer is lost.
          `UPDATE ${T.idempotency} SET response = $3::jsonb, lease_until = NULL, expires_at = $4
           WHERE scope = $1 AND owner = $2`,
          [scope, owner, JSON.stringify(response), at(expiresAt)],
        );
      }),
    abandonIdempotent: (scope, owner) =>
      run(async () => {
        await pool.query(`DELETE FROM ${T.idempotency} WHERE scope = $1 AND owner = $2`, [scope, owner]);
      }),
    purgeExpired: () =>
      run(async () => {
        const now = at(clock.now());
        return (
          (await purgeTable(T.evaluations, 'evaluation_id', now)) +
          (await purgeTable(T.idempotency, 'scope', now))
        );
      }),
    close() {
      // Once, every caller waiting for the same end: the pool refuses a second one.
      ended ??= (async () => {
        // Set first: what runs in the background stops now, not once the pool has ended.
        closed = true;
        closing.abort();
        await migrating?.catch(() => {});
        await pool.end();
      })();
      return ended;
    },
    isClosed: () => closed,
  };
}
