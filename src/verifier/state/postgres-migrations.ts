// The PostgreSQL state schema as numbered migrations, applied at start under an advisory lock so that several
// verifier processes starting together migrate once. Applied migrations are never edited: add a new one.
import pg from 'pg';

export const STATE_SCHEMA = 'ambit_verifier';

/** Held for the migration transaction; any key works as long as every verifier uses the same one. */
export const MIGRATION_LOCK_KEY = 0x616d6274; // "ambt"

/**
 * How long one migration statement may run. Not `operation_timeout`: a migration that rewrites a table of many
 * evaluations takes seconds per hundred thousand rows, and cut off and rolled back at every attempt it would
 * never complete. Still finite, so that a lost connection does not hold the migration forever.
 */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 30 * 60_000;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'evaluations and idempotency records',
    sql: `
CREATE TABLE ${STATE_SCHEMA}.evaluations (
  evaluation_id text PRIMARY KEY,
  principal_hash text NOT NULL,
  record jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX evaluations_expires_at ON ${STATE_SCHEMA}.evaluations (expires_at);
CREATE TABLE ${STATE_SCHEMA}.idempotency_records (
  scope text PRIMARY KEY,
  request_hash text NOT NULL,
  owner text,
  lease_until timestamptz,
  response jsonb,
  expires_at timestamptz NOT NULL
);
CREATE INDEX idempotency_records_expires_at ON ${STATE_SCHEMA}.idempotency_records (expires_at);
`,
  },
  {
    version: 2,
    name: 'evaluations kept as written',
    // jsonb reorders object keys, so a render was not byte for byte the original answer; json keeps the text.
    // Rows stored before keep jsonb's order (it cannot be recovered); they expire within the retention.
    sql: `
ALTER TABLE ${STATE_SCHEMA}.evaluations ALTER COLUMN record TYPE json USING record::json;
`,
  },
];

/** The newest schema version this verifier knows. */
export const NEWEST_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** The database holds migrations of a later version: this one would misread its tables, so it refuses them. */
class StateSchemaTooNewError extends Error {
  readonly code = 'schema_too_new';
  constructor(found: number) {
    super(
      `the state schema is at version ${found}, newer than this verifier knows (${NEWEST_VERSION}): ` +
        'run the verifier version that migrated it, or a later one',
    );
  }
}

/**
 * Server encodings in which any text stores as it was sent. Another one (LATIN1, WIN1252...) refuses the characters
 * it lacks: evaluations whose results hold one (a name in Cyrillic) would fail to store, after their reads.
 */
const HOLDS_ANY_TEXT: ReadonlySet<string> = new Set(['UTF8', 'SQL_ASCII']);

/** The database's encoding cannot hold every character: refused before anything is created in it. */
class StateDatabaseEncodingError extends Error {
  readonly code = 'database_encoding';
  constructor(found: string) {
    super(
      `the state database's encoding is ${found}, which cannot hold every character: ` +
        "use a database created with ENCODING 'UTF8'",
    );
  }
}

/**
 * Applies the migrations not applied yet, all in one transaction that first takes a transaction-level advisory
 * lock: a second process starting at the same time waits, then finds everything applied. Returns the versions it
 * applied (empty when up to date). A table lock is waited for `lockTimeoutMs` at most: the instances still
 * running queue behind a lock request, so the migration fails (and is tried again) rather than stall them longer
 * than an ordinary operation may take.
 */
export async function migrateStateSchema(
  pool: pg.Pool,
  lockTimeoutMs: number,
  signal?: AbortSignal,
): Promise<number[]> {
  const client = await pool.connect();
  if (signal?.aborted) {
    client.release();
    throw new Error('the state store was closed');
  }
  // Cancelled from another session: the statement running fails and the transaction is rolled back.
  const { processID } = client as pg.PoolClient & { processID?: number };
  const cancel = () => {
    if (processID !== undefined) cancelBackend(pool, processID);
  };
  signal?.addEventListener('abort', cancel);
  // The pool's `query_timeout` would cut each statement at `operation_timeout` on the client side too.
  const query = <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    const config: pg.QueryConfig & { query_timeout: number } = {
      text,
      values,
      query_timeout: MIGRATION_STATEMENT_TIMEOUT_MS,
    };
    return client.query<Row>(config);
  };
  let broken = false;
  // A checked-out client reports a dropped connection as an 'error' event besides failing the query in flight;
  // unheard, that event would end the process.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await query('BEGIN');
    try {
      await query(`SET LOCAL statement_timeout = ${MIGRATION_STATEMENT_TIMEOUT_MS}`);
      await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
      // Created only when missing: PostgreSQL checks the CREATE privilege even for `IF NOT EXISTS`, and a role with
      // read and write on an installed schema has none.
      const { rows: found } = await query<{ has_schema: boolean; has_table: boolean; encoding: string }>(
        `SELECT to_regnamespace($1) IS NOT NULL AS has_schema, to_regclass($2) IS NOT NULL AS has_table,
                current_setting('server_encoding') AS encoding`,
        [STATE_SCHEMA, `${STATE_SCHEMA}.schema_migrations`],
      );
      const encoding = found[0]?.encoding ?? '';
      if (!HOLDS_ANY_TEXT.has(encoding)) throw new StateDatabaseEncodingError(encoding);
      if (!found[0]?.has_schema) await query(`CREATE SCHEMA IF NOT EXISTS ${STATE_SCHEMA}`);
      if (!found[0]?.has_table) {
        await query(
          `CREATE TABLE IF NOT EXISTS ${STATE_SCHEMA}.schema_migrations (
             version integer PRIMARY KEY,
             name text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
           )`,
        );
      }
      const { rows } = await query<{ version: number }>(
        `SELECT version FROM ${STATE_SCHEMA}.schema_migrations`,
      );
      const applied = new Set(rows.map((row) => row.version));
      const newest = Math.max(0, ...applied);
      if (newest > NEWEST_VERSION) throw new StateSchemaTooNewError(newest);
      const done: number[] = [];
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await query(migration.sql);
        await query(`INSERT INTO ${STATE_SCHEMA}.schema_migrations (version, name) VALUES ($1, $2)`, [
          migration.version,
          migration.name,
        ]);
        done.push(migration.version);
      }
      await query('COMMIT');
      return done;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    // A client that failed mid-migration is discarded rather than handed back to the pool.
    signal?.removeEventListener('abort', cancel);
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/**
 * Cancels the statement a backend runs, from a session of its own: not one of the pool's, which may have none to
 * spare (`max_connections: 1`, its one connection being the migration's), and would queue the cancel behind it.
 */
function cancelBackend(pool: pg.Pool, processID: number): void {
  const canceller = new pg.Client(pool.options);
  canceller.on('error', () => {});
  canceller
    .connect()
    .then(() => canceller.query('SELECT pg_cancel_backend($1)', [processID]))
    .catch(() => {})
    .finally(() => canceller.end().catch(() => {}));
}
