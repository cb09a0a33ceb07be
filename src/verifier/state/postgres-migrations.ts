// The PostgreSQL state schema as numbered migrations, applied at start under an advisory lock so that several
// verifier processes starting together migrate once. Applied migrations are never edited: add a new one.
import type pg from 'pg';

export const STATE_SCHEMA = 'ambit_verifier';

/** Held for the migration transaction; any key works as long as every verifier uses the same one. */
const MIGRATION_LOCK_KEY = 0x616d6274; // "ambt"

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
 * Applies the migrations not applied yet, all in one transaction that first takes a transaction-level advisory
 * lock: a second process starting at the same time waits, then finds everything applied. Returns the versions it
 * applied (empty when up to date).
 */
export async function migrateStateSchema(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out client reports a dropped connection as an 'error' event besides failing the query in flight;
  // unheard, that event would end the process.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      // Created only when missing: PostgreSQL checks the CREATE privilege even for `IF NOT EXISTS`, and a role with
      // read and write on an installed schema has none.
      const { rows: found } = await client.query<{ has_schema: boolean; has_table: boolean }>(
        `SELECT to_regnamespace($1) IS NOT NULL AS has_schema, to_regclass($2) IS NOT NULL AS has_table`,
        [STATE_SCHEMA, `${STATE_SCHEMA}.schema_migrations`],
      );
      if (!found[0]?.has_schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${STATE_SCHEMA}`);
      if (!found[0]?.has_table) {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${STATE_SCHEMA}.schema_migrations (
             version integer PRIMARY KEY,
             name text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
           )`,
        );
      }
      const { rows } = await client.query<{ version: number }>(
        `SELECT version FROM ${STATE_SCHEMA}.schema_migrations`,
      );
      const applied = new Set(rows.map((row) => row.version));
      const newest = Math.max(0, ...applied);
      if (newest > NEWEST_VERSION) throw new StateSchemaTooNewError(newest);
      const done: number[] = [];
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${STATE_SCHEMA}.schema_migrations (version, name) VALUES ($1, $2)`, [
          migration.version,
          migration.name,
        ]);
        done.push(migration.version);
      }
      await client.query('COMMIT');
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
    client.removeListener('error', onError);
    client.release(broken);
  }
}
