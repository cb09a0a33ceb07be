// A configured `query` is served as a snapshot only; the same SQL as a view can be served live. Both must answer
// alike: a WITH query with its own ORDER BY and LIMIT (the relay reads it as a subquery and orders by key itself)
// and aliases that shadow the base table's columns, filtered, projected and walked page by page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { openLiveTestDatabase, recordsOf } from './postgres-live-fixture.ts';

// `label` and `n` are aliases over other columns of `base`; the LIMIT keeps 10 of 16 rows, chosen by `n`.
const SQL = `WITH picked AS (SELECT id, upper(note) AS label, n * 2 AS n, x FROM base WHERE id <> '')
SELECT id, label, n, x FROM picked ORDER BY n DESC NULLS LAST, id LIMIT 10 -- most first`;
const FIELDS =
  '{ name: id, type: string, nullable: false }, { name: label, type: string }, { name: n, type: integer }, { name: x, type: number }';
const KEYS = ['a', 'A', 'b', 'é', 'e', 'a_b', 'a-b', 'a b', '10', '9', 'Z', '\u{1f600}', '', ' ', 'ab', 'z'];

describe('a snapshot of a configured query and a live view of the same SQL', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query(
      'CREATE TABLE base (id text COLLATE "C" PRIMARY KEY, note text COLLATE "C", label text, n integer, x numeric)',
    );
    for (const [i, key] of KEYS.entries()) {
      await db.query('INSERT INTO base VALUES ($1, $2, $3, $4, $5)', [
        key,
        i % 3 === 0 ? null : `note ${i} \u{1f600}`,
        'shadowed',
        i % 4 === 0 ? null : i,
        i / 7,
      ]);
    }
    await db.query(`CREATE VIEW picked AS ${SQL}`);
    const filters = ['id', 'label', 'n', 'x'].map((f) => `{ field: ${f}, ops: [eq, in, gte, lte, between] }`);
    const table = (id: string, what: { table?: string; query?: string }, live: boolean) => `
      - id: ${id}
        ${postgresSource(what)}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [${FIELDS}] }`;
    const entity = (id: string) => `
      - { name: ${id}, table: ${id}, ${ACCESS}, api: { max_limit: 100, allowed_filters: [${filters.join(', ')}] } }`;
    relay = await startPostgresRelay(
      `  - id: registry
    title: Registry
    tables:${table('from_query', { query: SQL }, false)}${table('from_view', { table: 'picked' }, true)}
    entities:${entity('from_query')}${entity('from_view')}`,
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  /** Each page's records and has_more, following next cursors. */
  async function pages(entity: string, query: string): Promise<unknown[]> {
    const seen: unknown[] = [];
    let next = `${recordsOf(entity)}?${query}`;
    for (let page = 0; page < 20 && next !== ''; page++) {
      const response = await relay.get(next);
      assert.equal(response.statusCode, 200, `${entity} ${query}: ${response.body}`);
      const body = response.json();
      seen.push([body.data, body.pagination.has_more]);
      next = body.pagination.has_more
        ? `${recordsOf(entity)}?${query}&cursor=${encodeURIComponent(body.pagination.next_cursor)}`
        : '';
    }
    return seen;
  }

  it('serves the rows the query keeps, with its aliases, in code-point order of the key', async () => {
    const [[data]] = (await pages('from_query', 'limit=100')) as [[{ id: string; label: string }[]]];
    const expected = (await db.query(SQL)).rows.map((row) => row.id as string);
    assert.equal(data.length, 10);
    assert.deepEqual(
      data.map((row) => row.id),
      [...expected].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
    assert.ok(data.every((row) => row.label === null || row.label.startsWith('NOTE ')));
  });

  for (const query of [
    'limit=100',
    'limit=1',
    'limit=3&fields=label',
    'limit=2&n.gte=12',
    'limit=2&label.gte=NOTE%201&fields=id,n',
    `limit=2&id.between=a,${encodeURIComponent('\u{1f600}')}`,
    'limit=4&x.lte=1.5',
    'limit=2&n.in=2,4,6,20,22,24,26,28,30',
    'limit=3&label.in=NOTE%201%20%F0%9F%98%80,NOTE%2014%20%F0%9F%98%80,shadowed',
  ]) {
    it(`answers ${decodeURIComponent(query)} alike`, async () => {
      const snapshot = await pages('from_query', query);
      assert.ok(((snapshot[0] as [unknown[]])[0] ?? []).length > 0, 'the query selects rows');
      assert.deepEqual(await pages('from_view', query), snapshot);
    });
  }
});
