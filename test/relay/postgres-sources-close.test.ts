// Closing the PostgreSQL sources (the last step of a shutdown, once the drain is over) while a reload's snapshot
// reads and a live table's probe still wait in the database, for a lock another session holds: they are cancelled
// and their connections closed, rather than holding the process, and their backends, until `query_timeout` ends them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { silentLogger } from '../../src/platform/log.ts';
import { createPostgresSources } from '../../src/relay/sources/postgres/postgres-sources.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { loadPostgresRelayConfig } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

const table = (id: string, name = id, live = false) => `
      - id: ${id}
        ${postgresSource({ table: name }, 'query_timeout: 1h')}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [{ name: id, type: string, nullable: false }] }`;

const DATASETS = `  - id: registry
    title: Registry
    tables:${table('accounts_a')}${table('accounts_b')}${table('accounts_live', 'accounts_a', true)}
    entities:
      - { name: accounts_a, table: accounts_a, ${ACCESS} }
      - { name: accounts_b, table: accounts_b, ${ACCESS} }
      - { name: accounts_live, table: accounts_live, ${ACCESS} }`;

/** Polls `check` until it holds; the test's own time-out makes a broken build fail rather than hang. */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('closing the PostgreSQL sources during a reload', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    for (const name of ['accounts_a', 'accounts_b']) {
      await db.query(`CREATE TABLE ${name} (id text PRIMARY KEY)`);
      await db.query(`INSERT INTO ${name} VALUES ('x')`);
    }
  });
  after(() => db?.close());

  const backends = async (): Promise<number> => {
    const found = await db.query(
      "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ambit-relay'",
    );
    return found.rowCount ?? 0;
  };

  it('cancels the snapshot reads and the probe waiting for a lock, and ends the shared moment', {
    timeout: 30_000,
  }, async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    const loaded = loadPostgresRelayConfig(DATASETS, db.url);
    const tables = loaded.config.datasets[0]?.tables ?? [];
    const sources = createPostgresSources(loaded.config, loaded.secrets.sourceUrls, {
      logger: silentLogger(),
      now: Date.now,
    });
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE accounts_a, accounts_b IN ACCESS EXCLUSIVE MODE');
      await sources.shareSnapshots();
      const [a, b, live] = tables as [
        (typeof tables)[number],
        (typeof tables)[number],
        (typeof tables)[number],
      ];
      const reads = [a, b].map(async (config) => {
        const rows = await sources.openSnapshot(config);
        for await (const _ of rows.columnBatches);
      });
      reads.push(sources.probeLive(live));
      for (const read of reads) read.catch(() => {});
      await waitUntil(async () => {
        const waiting = await db.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ambit-relay' AND wait_event_type = 'Lock'",
        );
        return waiting.rowCount === 3;
      });

      await sources.close();
      for (const read of reads) await assert.rejects(read);
      await waitUntil(async () => (await backends()) === 0);
    } finally {
      await locker.end();
    }
  });
});
