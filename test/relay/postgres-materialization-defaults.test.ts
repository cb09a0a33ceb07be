// A dataset's `defaults.materialization` decides how each of its tables is served when the table says nothing:
// a row added to the database after start shows through a live table at once, never through a snapshot.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

describe('defaults.materialization of a dataset', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  const table = (id: string, own: string) => `
      - id: ${id}
        ${postgresSource({ table: 'items' })}${own}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: label, type: string }] }`;
  const entity = (name: string) => `
      - { name: ${name}, table: ${name}, ${ACCESS} }`;
  const ids = async (name: string) =>
    (await relay.get(`/v1/datasets/registry/entities/${name}/records?limit=10`))
      .json()
      .data.map((row: { id: number }) => row.id);

  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE items (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO items VALUES (1, 'one')");
    relay = await startPostgresRelay(
      `  - id: registry
    title: Registry
    defaults: { materialization: live }
    tables:${table('inherits', '')}${table('own_snapshot', '\n        materialization: snapshot')}
    entities:${entity('inherits')}${entity('own_snapshot')}`,
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  it('serves a table that sets none as the dataset says, and one that sets its own as it says', async () => {
    assert.deepEqual(await ids('inherits'), [1]);
    assert.deepEqual(await ids('own_snapshot'), [1]);
    await db.query("INSERT INTO items VALUES (2, 'two')");
    assert.deepEqual(await ids('inherits'), [1, 2], 'the inheriting table is read live');
    assert.deepEqual(await ids('own_snapshot'), [1], 'the table with its own setting is a snapshot');
  });
});
