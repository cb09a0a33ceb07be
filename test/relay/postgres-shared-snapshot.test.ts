// A reload of every table reads the snapshot tables of one database at one moment of it: two tables changed in one
// transaction while the reload runs are both read before the change (or both after), never one of each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/platform/log.ts';
import type { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import {
  createPostgresSources,
  type PostgresSources,
} from '../../src/relay/sources/postgres/postgres-sources.ts';
import { openPostgresSnapshot } from '../../src/relay/sources/postgres/read-postgres-snapshot.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { loadPostgresRelayConfig } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

const table = (id: string) => `
      - id: ${id}
        ${postgresSource({ table: id })}
        primary_key: id
        schema: { fields: [{ name: id, type: string, nullable: false }, { name: balance, type: integer }] }`;

const DATASETS = `  - id: registry
    title: Registry
    tables:${table('accounts_a')}${table('accounts_b')}
    entities:
      - { name: accounts_a, table: accounts_a, ${ACCESS} }
      - { name: accounts_b, table: accounts_b, ${ACCESS} }`;

describe('snapshot tables of one database in a reload of every table', () => {
  let db: TestDatabase;
  let sources: PostgresSources;
  let tables: ReturnType<typeof loadRelayConfigText>['config']['datasets'][number]['tables'];
  before(async () => {
    db = await openTestDatabase();
    for (const name of ['accounts_a', 'accounts_b']) {
      await db.query(`CREATE TABLE ${name} (id text PRIMARY KEY, balance integer)`);
      await db.query(`INSERT INTO ${name} VALUES ('x', 100)`);
    }
    const loaded = loadPostgresRelayConfig(DATASETS, db.url);
    tables = loaded.config.datasets[0]?.tables ?? [];
    sources = createPostgresSources(loaded.config, loaded.secrets.sourceUrls, {
      logger: silentLogger(),
      now: Date.now,
    });
  });
  after(async () => {
    await sources?.close();
    await db?.close();
  });

  /** The balance each table holds for `x`, read as a reload reads it. */
  const balances = async (): Promise<number[]> => {
    const read: number[] = [];
    for (const config of tables) {
      const rows = await sources.openSnapshot(config);
      for await (const batch of rows.columnBatches) read.push(Number(batch.columns[1]?.[0]));
    }
    return read;
  };
  const transfer = (amount: number) =>
    db.query(
      `BEGIN; UPDATE accounts_a SET balance = balance - ${amount}; UPDATE accounts_b SET balance = balance + ${amount}; COMMIT`,
    );

  it('reads both tables at the moment the reload began, a transfer committed meanwhile left for the next', async () => {
    const shared = await sources.shareSnapshots();
    try {
      // Committed after the reload began and before its tables were read: neither read sees it. Embedded PGlite
      // serves every client in one session, where no snapshot is exported: each table is read as it is then.
      await transfer(30);
      assert.deepEqual(await balances(), db.kind === 'pglite' ? [70, 130] : [100, 100]);
    } finally {
      await shared.end();
    }
    // The next reload reads the database as it is now.
    assert.deepEqual(await balances(), [70, 130]);
  });

  it('reads a table at its own moment when the snapshot it was given cannot be imported', async () => {
    const config = tables[0];
    assert.ok(config);
    const refused: string[] = [];
    const rows = await openPostgresSnapshot(config, db.url, '00000003-0000001B-1', (reason) =>
      refused.push(reason),
    );
    const read: number[] = [];
    for await (const batch of rows.columnBatches) read.push(Number(batch.columns[1]?.[0]));
    assert.equal(read.length, 1);
    // Said, so an operator learns the tables were not read at one moment, by its SQLSTATE (22023 from PostgreSQL,
    // 42704 from embedded PGlite).
    assert.equal(refused.length, 1);
    assert.match(refused[0] as string, /^SQLSTATE (22023|42704)/);
  });
});
