// A snapshot read that stops part way (a type mismatch found by the table builder, a reload abandoned) must leave
// nothing behind: the client's statement timer of the COPY held a stopped relay's process open for up to
// `query_timeout` and then fired at a closed connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openPostgresSnapshot } from '../../src/relay/sources/postgres/read-postgres-snapshot.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { loadPostgresRelayConfig } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

/** 20,000 rows (more than two COPY batches); `n` is 0 in the last one. */
const TABLE = 'abandoned_reads';

function datasets(source: { table?: string; query?: string }): string {
  return `  - id: registry
    title: Registry
    tables:
      - id: counts
        ${postgresSource(source, 'query_timeout: 1h')}
        primary_key: id
        schema:
          fields:
            - { name: id, type: string, nullable: false }
            - { name: n, type: integer }
    entities:
      - { name: counts, table: counts, ${ACCESS} }`;
}

/** Timers set while `run` runs and not cleared or fired when it is done (cleared then, so none holds the test). */
async function timersLeftBy(run: () => Promise<void>): Promise<number> {
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  const pending = new Set<unknown>();
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const timer = set(
      (...inner: unknown[]) => {
        pending.delete(timer);
        callback(...inner);
      },
      ms,
      ...args,
    );
    pending.add(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((timer: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(timer);
    clear(timer);
  }) as typeof clearTimeout;
  try {
    await run();
  } finally {
    globalThis.setTimeout = set;
    globalThis.clearTimeout = clear;
  }
  const left = pending.size;
  for (const timer of pending) clear(timer as Parameters<typeof clearTimeout>[0]);
  return left;
}

describe('a PostgreSQL snapshot read stopped part way', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await db.query(`CREATE TABLE ${TABLE} (id text PRIMARY KEY, n integer NOT NULL)`);
    await db.query(
      `INSERT INTO ${TABLE} SELECT lpad(i::text, 6, '0'), 20000 - i FROM generate_series(0, 20000) AS i`,
    );
  });
  after(() => db.close());

  const tableOf = (source: { table?: string; query?: string }) => {
    const loaded = loadPostgresRelayConfig(datasets(source), db.url);
    const table = loaded.config.datasets[0]?.tables[0];
    assert.ok(table);
    return table;
  };

  it('leaves no statement timer running when the server fails the COPY part way', async () => {
    const table = tableOf({ query: `SELECT id, 100000 / n AS n FROM ${TABLE}` });
    let failure: unknown;
    const left = await timersLeftBy(async () => {
      const rows = await openPostgresSnapshot(table, db.url);
      try {
        for await (const _batch of rows.columnBatches) {
          // Read until the server's error arrives.
        }
      } catch (error) {
        failure = error;
      }
    });
    assert.equal((failure as { code?: string } | undefined)?.code, 'ingest.query_failed');
    assert.equal(left, 0);
  });

  it('leaves no statement timer running when its reader stops before the end', async () => {
    const table = tableOf({ table: TABLE });
    let batches = 0;
    const left = await timersLeftBy(async () => {
      const rows = await openPostgresSnapshot(table, db.url);
      for await (const _batch of rows.columnBatches) {
        batches++;
        break;
      }
    });
    assert.equal(batches, 1);
    assert.equal(left, 0);
  });
});
