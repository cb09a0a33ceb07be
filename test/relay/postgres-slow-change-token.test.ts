// A change_token_sql that waits (on a lock a migration holds, say) delays only its own table: its refresh round ends
// at the source's query_timeout with a warning and reloads nothing, and other tables' reloads never queue behind it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { capturedLog } from '../helpers/captured-log.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { eventually, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { dataset } from './postgres-snapshot-fixture.ts';

const SCHEMA = 'schema: { fields: [{ name: id, type: integer }, { name: value, type: integer }] }';

/** `items` polled through a token read from `changes` (with `queryTimeout`), `others` reloaded by hand only. */
function datasets(queryTimeout: string): string {
  return dataset(
    `      - id: items
        ${postgresSource({ table: 'items' }, `change_token_sql: 'SELECT max(n) FROM changes', query_timeout: ${queryTimeout}`)}
        refresh: { mode: mtime, interval: 1h }
        primary_key: id
        ${SCHEMA}
      - id: others
        ${postgresSource({ table: 'others' })}
        primary_key: id
        ${SCHEMA}`,
    `      - { name: items, table: items, ${ACCESS} }
      - { name: others, table: others, ${ACCESS} }`,
  );
}

/** Holds an ACCESS EXCLUSIVE lock on `changes` until `release`, as a migration in an open transaction does. */
async function lockChanges(db: TestDatabase): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: db.url });
  client.on('error', () => {});
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE changes IN ACCESS EXCLUSIVE MODE');
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await client.query('COMMIT').catch(() => {});
      await client.end().catch(() => {});
    },
  };
}

/** True once a statement of the relay waits for a lock in the database. */
async function relayWaitsForLock(db: TestDatabase): Promise<boolean> {
  const waiting = await db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'ambit-relay' AND wait_event_type = 'Lock'`,
  );
  return waiting.rows[0]?.n > 0;
}

describe('PostgreSQL change token that waits', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE items (id integer PRIMARY KEY, value integer)');
    await db.query('CREATE TABLE others (id integer PRIMARY KEY, value integer)');
    await db.query('CREATE TABLE changes (n integer)');
    await db.query('INSERT INTO items VALUES (1, 10)');
    await db.query('INSERT INTO others VALUES (1, 20)');
    await db.query('INSERT INTO changes VALUES (1)');
  });
  after(() => db.close());

  it('an admin reload of another table does not wait behind a table whose change token waits', async () => {
    // Long enough that the token is still waiting when the other reload is asked for and answered.
    const relay = await startPostgresRelay(datasets('1m'), db.url, { admin: true });
    const lock = await lockChanges(db);
    try {
      let itemsSettled = false;
      const items = relay.admin('POST', '/admin/v1/datasets/registry/tables/items/reload').finally(() => {
        itemsSettled = true;
      });
      await eventually(() => relayWaitsForLock(db), 'the change token of items to wait for the lock');
      await db.query('UPDATE others SET value = 21 WHERE id = 1');
      const others = await relay.admin('POST', '/admin/v1/datasets/registry/tables/others/reload');
      assert.equal(others.statusCode, 200, others.body);
      assert.equal(itemsSettled, false, 'the reload of items still waits for its change token');
      assert.equal((await relay.get('/v1/datasets/registry/entities/others/records/1')).json().value, 21);
      await lock.release();
      assert.equal((await items).statusCode, 200);
    } finally {
      await lock.release();
      await relay.close();
    }
  });

  it('a refresh round whose change token times out reloads nothing and logs a warning', async () => {
    const log = capturedLog('info');
    const relay = await startPostgresRelay(datasets('300ms'), db.url, { admin: true, logger: log.logger });
    const lock = await lockChanges(db);
    try {
      await db.query('UPDATE items SET value = 11 WHERE id = 1');
      assert.equal(await relay.relay.refresh.runTable('registry', 'items'), undefined);
      const warning = log.records().find((record) => record.level === 40 && record.table_id === 'items');
      assert.equal(warning?.err_code, 'ingest.query_timeout', JSON.stringify(log.records()));
      // The previous data is still served: the round read nothing of the table.
      assert.equal((await relay.get('/v1/datasets/registry/entities/items/records/1')).json().value, 10);
      const metrics = (await relay.admin('GET', '/metrics')).body;
      assert.doesNotMatch(metrics, /^ambit_relay_reloads_total\{[^}]*trigger="mtime"[^}]*\} [1-9]/m);
      // Once the lock is gone, the next round reads the token again and loads the change it names.
      await lock.release();
      await db.query('INSERT INTO changes VALUES (2)');
      const outcome = await relay.relay.refresh.runTable('registry', 'items');
      assert.equal(outcome?.ok, true);
      assert.equal((await relay.get('/v1/datasets/registry/entities/items/records/1')).json().value, 11);
    } finally {
      await lock.release();
      await relay.close();
    }
  });
});
