// A real PostgreSQL for tests, never skipped. In order of preference:
//   1. DATABASE_URL (CI or a developer's own server);
//   2. the server on 127.0.0.1:5432 (trust auth, database `test`) when it answers;
//   3. embedded PGlite served over the wire protocol by pglite-socket.
// AMBIT_TEST_POSTGRES=pglite forces the third, to exercise it on a machine that has a server.
// Each call to openTestDatabase() returns a database of its own (a fresh database on a real server, a fresh PGlite
// instance otherwise), so test files running in parallel never see each other's tables.
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import pg from 'pg';

export type TestDatabaseKind = 'database_url' | 'local_server' | 'pglite';

export interface TestDatabase {
  /** postgres:// URL of the fresh database, usable by `pg` and by the services under test. */
  readonly url: string;
  readonly kind: TestDatabaseKind;
  /** Runs SQL as the owner of the database (setup and assertions). */
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
  ): Promise<pg.QueryResult<Row>>;
  /** Drops the database (or stops PGlite). Idempotent. */
  close(): Promise<void>;
}

const LOCAL_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

let serverUrlProbe: Promise<{ url: string; kind: TestDatabaseKind } | null> | undefined;

/** Which real server (if any) to create test databases on; probed once per process. */
function findServer(): Promise<{ url: string; kind: TestDatabaseKind } | null> {
  serverUrlProbe ??= (async () => {
    const fromEnv = process.env.DATABASE_URL;
    if (fromEnv) return { url: fromEnv, kind: 'database_url' as const };
    const client = new pg.Client({ connectionString: LOCAL_SERVER_URL, connectionTimeoutMillis: 1500 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { url: LOCAL_SERVER_URL, kind: 'local_server' as const };
    } catch {
      return null;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return serverUrlProbe;
}

export async function openTestDatabase(options: { forcePglite?: boolean } = {}): Promise<TestDatabase> {
  if (options.forcePglite || process.env.AMBIT_TEST_POSTGRES === 'pglite') return openOnPglite();
  const server = await findServer();
  return server ? openOnServer(server.url, server.kind) : openOnPglite();
}

async function openOnServer(adminUrl: string, kind: TestDatabaseKind): Promise<TestDatabase> {
  const name = `ambit_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // `pool.end()` resolves once its clients have sent their goodbye, not once the server has taken it: the forced
  // drop below may still end such a session, and the ending client reports that as an 'error' event nobody awaits.
  // A query's own failure still rejects its promise.
  pool.on('connect', (client) => client.on('error', () => {}));
  // An idle client's error is re-emitted by the pool itself, which would otherwise make it an uncaught exception.
  pool.on('error', () => {});
  let closed = false;
  return {
    url: url.toString(),
    kind,
    query: (sql, params) => pool.query(sql, params as unknown[]),
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

async function openOnPglite(): Promise<TestDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  let closed = false;
  return {
    url,
    kind: 'pglite',
    query: (sql, params) => pool.query(sql, params as unknown[]),
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}

/**
 * Opens fresh databases for one test file, each closed when the file's tests are done: call it at the top level
 * of the file and `await fresh()` in each test that needs a database of its own.
 */
export function freshDatabases(): () => Promise<TestDatabase> {
  const opened: TestDatabase[] = [];
  after(async () => {
    await Promise.all(opened.map((database) => database.close()));
  });
  return async () => {
    const database = await openTestDatabase();
    opened.push(database);
    return database;
  };
}
