// Shared by the live PostgreSQL failure, parity and probe tests: a database with a writing function to catch
// writes, and configs serving a table live (and as a snapshot beside it).
import assert from 'node:assert/strict';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import type { PostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

/** A fresh test database with a `writes` table and `sneaky_write()`, a function that writes to it when called. */
export async function openLiveTestDatabase(): Promise<TestDatabase> {
  const db = await openTestDatabase();
  await db.query('CREATE TABLE writes (at timestamptz DEFAULT now())');
  await db.query(`CREATE FUNCTION sneaky_write() RETURNS boolean LANGUAGE plpgsql AS $body$
    BEGIN INSERT INTO writes DEFAULT VALUES; RETURN true; END $body$`);
  return db;
}

/** `table` served live as entity `items`; `filters` (`{ field: f, ops: [eq] }, ...`) allowed when given. */
export const liveDataset = (table: string, fields: string, extra = '', filters = '') => `  - id: registry
    title: Registry
    tables:
      - id: items
        ${postgresSource({ table }, extra)}
        materialization: live
        primary_key: id
        schema: { fields: [${fields}] }
    entities:
      - { name: items, table: items,${filters === '' ? '' : ` api: { allowed_filters: [${filters}] },`} ${ACCESS} }`;
export const ITEMS = '/v1/datasets/registry/entities/items/records';
/**
 * A table served twice: live as entity `table`, as a snapshot as entity `copy`, each allowing every operator on
 * the `filtered` fields. By default an `(id text-like, label text)` table filtered on `id`.
 */
export const liveAndSnapshot = (
  table: string,
  copy: string,
  fields = '{ name: id, type: string }, { name: label, type: string }',
  filtered = ['id'],
) => {
  const tableYaml = (id: string, live: boolean) => `
      - id: ${id}
        ${postgresSource({ table })}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [${fields}] }`;
  const filters = filtered.map((field) => `{ field: ${field}, ops: [eq, in, gte, lte, between] }`).join(', ');
  const entity = (name: string) => `
      - name: ${name}
        table: ${name}
        ${ACCESS}
        api: { allowed_filters: [${filters}] }`;
  return `  - id: registry
    title: Registry
    tables:${tableYaml(table, true)}${tableYaml(copy, false)}
    entities:${entity(table)}${entity(copy)}`;
};
export const ID_AND_LABEL = '{ name: id, type: integer }, { name: label, type: string }';
export const recordsOf = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
/** Each query selects the rows `ids` from entity `live`, byte for byte as entity `snapshot` answers it. */
export async function sameAnswers(
  relay: PostgresRelay,
  live: string,
  snapshot: string,
  cases: readonly (readonly [string, number[]])[],
) {
  for (const [query, ids] of cases) {
    const answer = await relay.get(`${recordsOf(live)}?${query}`);
    assert.equal(answer.statusCode, 200, `${query}: ${answer.body}`);
    assert.deepEqual(
      answer.json().data.map((row: { id: number }) => row.id),
      ids,
      query,
    );
    assert.equal(answer.body, (await relay.get(`${recordsOf(snapshot)}?${query}`)).body, query);
  }
}
