// The bench's PostgreSQL data: database `ambit_bench_postgres` with `facilities`, 1,000,000 rows × 7 columns
// (the shape of the Parquet bench table), built by SQL from the row number so every run reads the same bytes.
// The server is DATABASE_URL, else the local one on 127.0.0.1:5432. A database already holding the table is kept.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const FACILITY_ROWS = 1_000_000;
export const BENCH_DATABASE = 'ambit_bench_postgres';
const LOCAL_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Creates (once) and returns the URL of the bench database. */
export async function preparePostgresData(
  serverUrl = process.env.DATABASE_URL ?? LOCAL_SERVER_URL,
): Promise<string> {
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DATABASE}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `the PostgreSQL bench needs a server: set DATABASE_URL or run one on 127.0.0.1:5432 (${(error as Error).message})`,
    );
  }
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${BENCH_DATABASE}`);
    // The table is read from memory: with the default cost of a random page (4, for spinning disks) the planner
    // walks the primary key and filters about two hundred rows per read rather than use the index made for the
    // read below. 1.1 is the usual setting for data in memory or on SSD (docs/postgres.md, Performance).
    await admin.query(`ALTER DATABASE ${BENCH_DATABASE} SET random_page_cost = 1.1`);
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const table = await db.query("SELECT to_regclass('public.facilities') IS NOT NULL AS present");
    if (table.rows[0]?.present) {
      const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM facilities');
      if (count.rows[0]?.n === FACILITY_ROWS) return url.toString();
    }
    console.log(
      `creating ${FACILITY_ROWS.toLocaleString('en-US')} bench rows in ${BENCH_DATABASE}.facilities`,
    );
    await db.query('DROP TABLE IF EXISTS facilities');
    await db.query(`CREATE TABLE facilities (
      facility_id text PRIMARY KEY,
      district text NOT NULL,
      facility_type text NOT NULL,
      beds integer NOT NULL,
      opened_on date NOT NULL,
      latitude double precision NOT NULL,
      longitude double precision NOT NULL
    )`);
    await db.query(`INSERT INTO facilities
      SELECT 'F' || lpad(i::text, 7, '0'),
             'district-' || lpad((i % 20)::text, 2, '0'),
             (ARRAY['clinic', 'hospital', 'pharmacy', 'laboratory', 'dispensary', 'health_post'])[1 + (i * 7) % 6],
             (i * 37) % 500,
             date '1990-01-01' + (i % 12000),
             -30 + (i % 60000) / 1000.0,
             10 + ((i * 13) % 50000) / 1000.0
        FROM generate_series(1, ${FACILITY_ROWS}) AS i`);
    // The live read filters on district and pages by facility_id: one index serves both.
    await db.query('CREATE INDEX facilities_district ON facilities (district, facility_id)');
    await db.query('VACUUM ANALYZE facilities');
    return url.toString();
  } finally {
    await db.end();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  console.log(await preparePostgresData());
}
