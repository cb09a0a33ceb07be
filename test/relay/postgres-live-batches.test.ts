// Live reads asked for together share one transaction on a connection (one guard, one Sync): many concurrent reads
// of different shapes, some of which the database refuses, each get the answer they would get alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { ID_AND_LABEL, openLiveTestDatabase, recordsOf } from './postgres-live-fixture.ts';

/** Entity `live` reads `view` live; entity `copy` holds `table` as a snapshot; both filter on id and label. */
function liveViewAndCopy(view: string, table: string): string {
  const filters = '[{ field: id, ops: [eq, in, gte, lte] }, { field: label, ops: [eq] }]';
  const tableYaml = (id: string, source: string, live: boolean) => `
      - id: ${id}
        ${postgresSource({ table: source })}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [${ID_AND_LABEL}] }`;
  const entity = (name: string) => `
      - { name: ${name}, table: ${name}, ${ACCESS}, api: { allowed_filters: ${filters} } }`;
  return `  - id: registry
    title: Registry
    tables:${tableYaml('live', view, true)}${tableYaml('copy', table, false)}
    entities:${entity('live')}${entity('copy')}`;
}

describe('live PostgreSQL reads asked for together', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE batched (id integer PRIMARY KEY, label text NOT NULL)');
    await db.query("INSERT INTO batched SELECT n, 'label-' || (n % 7) FROM generate_series(1, 60) AS n");
    // Reading row 13 through the view raises division_by_zero (22012) while the read runs.
    await db.query(`CREATE VIEW batched_view AS
      SELECT id, CASE WHEN id = 13 THEN (1 / (id - 13))::text ELSE label END AS label FROM batched`);
    relay = await startPostgresRelay(liveViewAndCopy('batched_view', 'batched'), db.url);
  });
  after(async () => {
    await relay?.close();
    await db.close();
  });

  it('each answers as it would alone, also when the database refuses a read beside it', async () => {
    // The database fails the read of row 13: the reads batched after it never ran and must be sent again, not failed.
    const refused = 'id=13';
    const shapes = [
      (n: number) => `id=${n === 13 ? 14 : n}`,
      (n: number) => `label=label-${n % 7}&id.gte=14&limit=3`,
      (n: number) => `id.gte=${Math.max(n, 14)}&limit=2&fields=id`,
      (n: number) => `id.in=${n + 13},${n + 14},${n + 15}`,
      () => refused,
    ];
    const queries = Array.from({ length: 150 }, (_, index) =>
      (shapes[index % shapes.length] as (n: number) => string)((index % 55) + 1),
    );
    const expected = new Map<string, { data: unknown; more: boolean }>();
    for (const query of new Set(queries)) {
      if (query === refused) continue;
      const copy = await relay.get(`${recordsOf('copy')}?${query}`);
      assert.equal(copy.statusCode, 200, `${query}: ${copy.body}`);
      expected.set(query, { data: copy.json().data, more: copy.json().pagination.has_more });
    }
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(queries.map((query) => relay.get(`${recordsOf('live')}?${query}`)));
      answers.forEach((answer, index) => {
        const query = queries[index] as string;
        if (query === refused) {
          assert.equal(answer.statusCode, 502, answer.body);
          assert.equal(answer.json().code, 'datasource.query_failed');
          return;
        }
        assert.equal(answer.statusCode, 200, `${query}: ${answer.body}`);
        // The same rows as the snapshot of the same table (cursors differ: a live one holds the last key served).
        const { data, pagination } = answer.json();
        assert.deepEqual({ data, more: pagination.has_more }, expected.get(query), query);
      });
    }
    const writes = await db.query('SELECT count(*)::int AS n FROM writes');
    assert.equal(writes.rows[0]?.n, 0);
  });
});
