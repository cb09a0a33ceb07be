// The optional PostgreSQL part of `ambit demo`: when DATABASE_URL is set, schema ambit_demo is (re)filled with
// synthetic birth registrations and demo/relay.postgres-dataset.yaml joins the demo config, readable by the
// caseworker (rows) and the catalogue viewer (metadata).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { isMap, isSeq, parse, parseDocument } from 'yaml';
import { connectionUrlProblem, driverUrl } from '../platform/postgres/connection-url.ts';

export const DEMO_POSTGRES_DATASET = 'vital_events';
export const BIRTH_ROWS = 300;
/** SQLSTATE lock_not_available: what lock_timeout raises. */
const LOCK_NOT_AVAILABLE = '55P03';
/** How long seeding waits for the server to accept a connection. */
const CONNECT_TIMEOUT_MS = 5000;

/** Grants on the demo dataset, by persona id. */
const PERSONA_SCOPES: Record<string, readonly string[]> = {
  catalog_viewer: [`${DEMO_POSTGRES_DATASET}:metadata`],
  caseworker: [`${DEMO_POSTGRES_DATASET}:metadata`, `${DEMO_POSTGRES_DATASET}:rows`],
};

/**
 * Seeds the optional PostgreSQL dataset when DATABASE_URL is set; true when the demo should serve it. A URL the
 * relay would refuse (a server not on this machine without TLS) is not written to, and neither it nor a database
 * that cannot be reached stops the demo: it then runs on its files alone.
 */
export async function prepareDemoPostgres(
  url: string | undefined,
  err: (line: string) => void,
  seed: (url: string) => Promise<void> = seedDemoPostgres,
): Promise<boolean> {
  if (url === undefined || url === '') return false;
  // The relay's own rule, checked before anything is written: the relay would otherwise refuse the demo config.
  const refused = connectionUrlProblem(url, 'DATABASE_URL');
  if (refused !== undefined) {
    err(`DATABASE_URL is set but the relay refuses it: ${refused}; starting without schema ambit_demo.`);
    return false;
  }
  try {
    await seed(url);
    return true;
  } catch (error) {
    err(
      `DATABASE_URL is set but the demo could not prepare schema ambit_demo (${seedFailure(error)}); starting without it.`,
    );
    return false;
  }
}

/**
 * Why seeding failed, without the URL (it may hold a password): the SQLSTATE with the server's own message (a
 * refused password, an unknown role or database), or where the connection failed (host and port, never the
 * user's credentials): a bare ECONNREFUSED, ENOTFOUND or "timeout expired" does not say that the server was not
 * found.
 */
function seedFailure(error: unknown): string {
  const { code, severity, address, port, syscall, hostname } = (error ?? {}) as {
    code?: unknown;
    severity?: unknown;
    address?: unknown;
    port?: unknown;
    syscall?: unknown;
    hostname?: unknown;
  };
  if (code === LOCK_NOT_AVAILABLE && error instanceof Error)
    return `${code}: ${error.message}; another session holds ambit_demo.birth_registrations (an open transaction that read it?)`;
  if (typeof code === 'string' && typeof severity === 'string' && error instanceof Error)
    return `${code}: ${error.message}`;
  if (code === 'ECONNREFUSED' && typeof address === 'string') {
    const where =
      typeof port === 'number' ? `${address.includes(':') ? `[${address}]` : address}:${port}` : address;
    return `nothing accepts connections at ${where}: ECONNREFUSED`;
  }
  // ENOTFOUND (no such name) or EAI_AGAIN (the resolver did not answer): the host, which the bare code omits.
  if (typeof code === 'string' && syscall === 'getaddrinfo' && typeof hostname === 'string')
    return `the address of host ${hostname} could not be looked up: ${code}`;
  if (typeof code === 'string') return code;
  // The driver's words once connectionTimeoutMillis has passed.
  if (error instanceof Error && error.message === 'timeout expired')
    return `the server did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Recreates ambit_demo.birth_registrations with the same 300 rows on every run, computed from the row number (so
 * every server and time zone gets identical data). This is the demo's only write; the relay reads.
 */
export async function seedDemoPostgres(url: string): Promise<void> {
  // Dropping the table waits for every session that touched it: an open transaction left in psql would hold the
  // demo silently, and a statement still queued when the demo stops runs on the server after it has gone (the
  // transaction below undoes it). Each wait is bounded, and a server that stops answering is given up on, so the
  // demo starts without it.
  const client = new pg.Client({
    connectionString: driverUrl(url),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    lock_timeout: 5000,
    statement_timeout: 30_000,
    query_timeout: 35_000,
  });
  await client.connect();
  // One transaction: a start stopped while the DROP waits for its lock leaves that statement queued on the server,
  // which would otherwise run it after the demo has gone and leave no table; rolled back, the table stays whole.
  // Other sessions also never see the table missing or half filled.
  try {
    await client.query('BEGIN');
    await client.query('CREATE SCHEMA IF NOT EXISTS ambit_demo');
    await client.query('DROP TABLE IF EXISTS ambit_demo.birth_registrations');
    await client.query(`CREATE TABLE ambit_demo.birth_registrations (
      registration_id text PRIMARY KEY,
      district text NOT NULL,
      sex text NOT NULL,
      birth_date date NOT NULL,
      registered_at timestamptz NOT NULL,
      birth_weight_kg numeric(3, 2),
      late_registration boolean NOT NULL
    )`);
    await client.query(
      `INSERT INTO ambit_demo.birth_registrations
       SELECT 'br-' || (20000 + i),
              (ARRAY['lakeside', 'highmoor', 'redfield', 'stonebridge', 'willowbank', 'dunmere'])[1 + (i * 7) % 6],
              -- Not i % 2: the district above follows i % 6, so each district would hold one sex only.
              CASE WHEN (i / 6) % 2 = 0 THEN 'female' ELSE 'male' END,
              date '2025-01-01' + (i * 37) % 365,
              ((date '2025-01-01' + (i * 37) % 365 + (i * 11) % 60)::timestamp
                 + make_interval(hours => 8 + i % 9, mins => (i * 13) % 60)) AT TIME ZONE 'UTC',
              CASE WHEN i % 17 = 0 THEN NULL ELSE 2.2 + ((i * 29) % 220) / 100.0 END,
              (i * 11) % 60 > 42
         FROM generate_series(1, $1::int) AS i`,
      [BIRTH_ROWS],
    );
    await client.query('COMMIT');
  } finally {
    // Without COMMIT, the server rolls back when the connection ends.
    await client.end();
  }
}

/** The demo config text with the PostgreSQL dataset appended and its scopes granted to the personas. */
export function withPostgresDataset(relayYaml: string, datasetYamlPath: string): string {
  const doc = parseDocument(relayYaml);
  const datasets = doc.get('datasets');
  if (!isSeq(datasets)) throw new TypeError('the demo config has no datasets list');
  datasets.add(doc.createNode(parse(readFileSync(datasetYamlPath, 'utf8'))));
  const keys = doc.getIn(['auth', 'api_keys']);
  if (!isSeq(keys)) throw new TypeError('the demo config has no api_keys list');
  for (const key of keys.items) {
    if (!isMap(key)) continue;
    const extra = PERSONA_SCOPES[String(key.get('id'))];
    const scopes = key.get('scopes');
    if (extra && isSeq(scopes)) for (const scope of extra) scopes.add(scope);
  }
  return doc.toString();
}
