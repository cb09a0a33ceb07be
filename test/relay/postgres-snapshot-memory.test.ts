// A PostgreSQL snapshot too large for the relay's heap fails its load with ingest.memory_limit; the process goes
// on (it would otherwise end on V8's fatal "heap out of memory", taking every table it serves with it). Each load
// runs in a process of its own with a small heap.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';

const HEAP_MIB = 64;

/** Loads table `name` (`id`, `payload`, `n` declared, others ignored) in a child process; its outcome. */
async function loadInSmallHeap(
  url: string,
  name: string,
): Promise<{ code?: string; rows?: number; byteSize?: number }> {
  const module = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const script = `
    const { loadRelayConfigText } = await import(${module('../../src/relay/config/load-relay-config.ts')});
    const { createPostgresSources } = await import(${module('../../src/relay/sources/postgres/postgres-sources.ts')});
    const { loadTable } = await import(${module('../../src/relay/store/load-generation.ts')});
    const { silentLogger } = await import(${module('../../src/platform/log.ts')});
    const { postgresRelayConfig, URL_ENV } = await import(${module('../helpers/postgres-relay.ts')});
    const datasets = \`  - id: registry
    title: Registry
    tables:
      - id: t
        source: { type: postgres, connection_env: \${URL_ENV}, table: { name: ${name} }, query_timeout: 2m }
        primary_key: id
        schema:
          strict: false
          fields:
            - { name: id, type: string, nullable: false }
            - { name: payload, type: string }
            - { name: n, type: integer }
    entities:
      - name: t
        table: t
        access: { metadata_scope: "registry:metadata", read_scope: "registry:rows" }\`;
    const env = {
      READER_HASH: 'sha256:' + '0'.repeat(64),
      AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
      [URL_ENV]: ${JSON.stringify(url)},
    };
    const loaded = loadRelayConfigText(postgresRelayConfig(datasets, '/dev/null'), env, '/');
    const postgres = createPostgresSources(loaded.config, loaded.secrets.sourceUrls, { logger: silentLogger(), now: () => 0 });
    const table = loaded.config.datasets[0].tables[0];
    let outcome;
    try {
      const snapshot = await loadTable(loaded.config, table, { baseDir: '/', clock: { now: () => 0 }, postgres });
      outcome = { rows: snapshot.rowCount, byteSize: snapshot.byteSize };
    } catch (error) {
      outcome = { code: error.code ?? String(error) };
    }
    await postgres.close();
    process.stdout.write(JSON.stringify(outcome));`;
  // Not spawnSync: an embedded PGlite answers from this process's event loop.
  const child = await promisify(execFile)(
    process.execPath,
    [`--max-old-space-size=${HEAP_MIB}`, '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { signal?: string; code?: number; stderr?: string }) => {
    // A fatal "heap out of memory" aborts the process (SIGABRT), with V8's report on stderr.
    assert.fail(`the load ended the process (${error.signal ?? error.code}): ${error.stderr?.slice(0, 800)}`);
  });
  return JSON.parse(child.stdout);
}

describe('a PostgreSQL snapshot larger than the heap', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
  });
  after(() => db?.close());

  it('of wide rows (100 KiB each, 100 MiB in all) fails with ingest.memory_limit, the process goes on', async (t) => {
    if (db.kind === 'pglite')
      return t.skip('PGlite holds its data in the test process, which has no such room');
    await db.query(`CREATE TABLE wide_rows (id text PRIMARY KEY, payload text, n integer);
      ALTER TABLE wide_rows ALTER COLUMN payload SET STORAGE EXTERNAL;
      INSERT INTO wide_rows SELECT 'r' || lpad(i::text, 5, '0'), repeat(md5(i::text), 3200), i
        FROM generate_series(1, 1000) i`);
    assert.deepEqual(await loadInSmallHeap(db.url, 'wide_rows'), { code: 'ingest.memory_limit' });
  });

  it('in one cell (120 MB of text) fails with ingest.memory_limit before the cell is read', async (t) => {
    if (db.kind === 'pglite')
      return t.skip('PGlite holds its data in the test process, which has no such room');
    await db.query(`CREATE TABLE huge_cell (id text PRIMARY KEY, payload text, n integer);
      ALTER TABLE huge_cell ALTER COLUMN payload SET STORAGE EXTERNAL;
      INSERT INTO huge_cell VALUES ('a', 'small', 1), ('b', repeat('abcdefghij', 12000000), 2)`);
    assert.deepEqual(await loadInSmallHeap(db.url, 'huge_cell'), { code: 'ingest.memory_limit' });
  });

  it('reads only the declared columns of a table with a thousand more', async () => {
    const extra = Array.from({ length: 1000 }, (_, i) => `c${i} integer DEFAULT 12345678`).join(', ');
    await db.query(`CREATE TABLE many_columns (id text PRIMARY KEY, payload text, n integer, ${extra});
      INSERT INTO many_columns (id, payload, n) SELECT 'r' || lpad(i::text, 5, '0'), 'p', i
        FROM generate_series(1, 2000) i`);
    // Each row is 'rNNNNN\tp\tN\n' (about 16 bytes) as read: the other 9 KB of the row never leave the database.
    const outcome = await loadInSmallHeap(db.url, 'many_columns');
    assert.equal(outcome.rows, 2000, JSON.stringify(outcome));
    assert.ok((outcome.byteSize ?? 0) < 2000 * 20, JSON.stringify(outcome));
  });
});
