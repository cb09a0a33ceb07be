// A reload of every table reads the snapshot tables of one database at one exported moment. A table that a
// migration rewrites (ALTER COLUMN ... TYPE, TRUNCATE) or drops and creates again, committed after that moment,
// reads as empty under it (PostgreSQL's MVCC caveat): the reload must serve the table's rows, never an empty table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { eventually, type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

const FIELDS = `
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: qty, type: integer }] }`;

const DATASETS = `  - id: registry
    title: Registry
    tables:
      - id: items
        ${postgresSource({ table: 'items' })}${FIELDS}
      - id: items_view
        ${postgresSource({ table: 'items_view' })}${FIELDS}
      - id: items_query
        ${postgresSource({ query: 'SELECT id, qty FROM items' })}${FIELDS}
    entities:
      - { name: items, table: items, ${ACCESS} }
      - { name: items_view, table: items_view, ${ACCESS} }
      - { name: items_query, table: items_query, ${ACCESS} }`;

const ENTITIES = ['items', 'items_view', 'items_query'];
const path = (entity: string) => `/v1/datasets/registry/entities/${entity}/records`;

describe('a reload of every table while a migration rewrites or recreates a table', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE items (id integer PRIMARY KEY, qty integer)');
    await db.query('INSERT INTO items SELECT g, g * 10 FROM generate_series(1, 5) g');
    await db.query('CREATE VIEW items_view AS SELECT id, qty FROM items');
    relay = await startPostgresRelay(DATASETS, db.url, { admin: true });
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  const quantities = async (entity: string): Promise<number[]> => {
    const response = await relay.get(path(entity));
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: { qty: number }[] }).data.map((row) => row.qty);
  };

  /**
   * Runs `migration` in a transaction of its own, asks for a reload of every table while it holds its locks, and
   * commits it once each of the reload's reads waits for them (after the reload's moment was taken); returns the
   * reload's answer.
   */
  async function reloadDuring(migration: string): Promise<{ statusCode: number; body: string }> {
    const session = new pg.Client({ connectionString: db.url });
    await session.connect();
    try {
      await session.query(`BEGIN; ${migration}`);
      const reload = relay.admin('POST', '/admin/v1/reload');
      if (db.kind !== 'pglite') {
        await eventually(async () => {
          const waiting = await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'SELECT * FROM%'`,
          );
          return Number(waiting.rows[0]?.n) === ENTITIES.length;
        }, 'every read of the reload waits for the migration');
      }
      await session.query('COMMIT');
      return await reload;
    } finally {
      await session.end();
    }
  }

  it('serves the rows of a table whose column type a migration changed, with the same ETags', async () => {
    const tags = await Promise.all(
      ENTITIES.map(async (entity) => (await relay.get(path(entity))).headers.etag),
    );
    const reload = await reloadDuring(`DROP VIEW items_view; ALTER TABLE items ALTER COLUMN qty TYPE bigint;
      CREATE VIEW items_view AS SELECT id, qty FROM items`);
    assert.equal(reload.statusCode, 200, reload.body);
    for (const [index, entity] of ENTITIES.entries()) {
      assert.deepEqual(await quantities(entity), [10, 20, 30, 40, 50], entity);
      // The values did not change: neither do the ETags.
      assert.equal((await relay.get(path(entity))).headers.etag, tags[index], entity);
    }
  });

  it('serves the new rows of a table dropped and created again', async () => {
    const reload = await reloadDuring(`DROP VIEW items_view; DROP TABLE items;
      CREATE TABLE items (id integer PRIMARY KEY, qty integer);
      INSERT INTO items SELECT g, g * 100 FROM generate_series(1, 3) g;
      CREATE VIEW items_view AS SELECT id, qty FROM items`);
    assert.equal(reload.statusCode, 200, reload.body);
    for (const entity of ENTITIES) assert.deepEqual(await quantities(entity), [100, 200, 300], entity);
  });

  it('serves the rows a truncating load left in the table', async () => {
    const reload = await reloadDuring('TRUNCATE items; INSERT INTO items VALUES (7, 70)');
    assert.equal(reload.statusCode, 200, reload.body);
    for (const entity of ENTITIES) assert.deepEqual(await quantities(entity), [70], entity);
  });
});
