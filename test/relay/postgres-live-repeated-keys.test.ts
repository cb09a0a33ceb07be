// A view served live whose key repeats (a join that gives one row per match): a snapshot of it fails to load
// (ingest.duplicate_primary_key), and pages cut by key would skip the repeats that fall after a page's last row or
// show one id twice. Such a page answers datasource.row_invalid instead, whatever its size and projection, and so
// does a record read of a repeated key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

const STRING_KEY = '{ name: id, type: string }, { name: label, type: string }';
const KEY_FILTER = '{ field: id, ops: [gte] }';

/** The ids a walk of `query` page by page serves, or the first error it meets (`502 datasource.row_invalid`). */
async function walk(relay: PostgresRelay, query: string): Promise<string[]> {
  const seen: string[] = [];
  let next = `${ITEMS}?${query}`;
  for (let page = 0; page < 20 && next !== ''; page++) {
    const response = await relay.get(next);
    if (response.statusCode !== 200) return [...seen, `${response.statusCode} ${response.json().code}`];
    const body = response.json();
    seen.push(...body.data.map((row: { id?: unknown; label: string }) => String(row.id ?? row.label)));
    next = body.pagination.has_more
      ? `${ITEMS}?${query}&cursor=${encodeURIComponent(body.pagination.next_cursor)}`
      : '';
  }
  return seen;
}

describe('a live view whose key repeats', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE people (id text PRIMARY KEY, name text)');
    await db.query('CREATE TABLE tags (person text, tag text)');
    await db.query(`INSERT INTO people VALUES ('a', 'A'), ('b', 'B'), ('c', 'C')`);
    await db.query(`INSERT INTO tags VALUES ('a', 't1'), ('b', 't2'), ('b', 't3'), ('c', 't4')`);
    await db.query(
      'CREATE VIEW tagged AS SELECT p.id, t.tag AS label FROM people p JOIN tags t ON t.person = p.id',
    );
  });
  after(() => db.close());

  it('is refused by a snapshot, and answers row_invalid live where a page would skip or repeat it', async () => {
    const refused = await startupFailure(
      db.url,
      liveDataset('tagged', STRING_KEY).replace('materialization: live', 'materialization: snapshot'),
    );
    assert.equal(refused.code, 'ingest.duplicate_primary_key');
    const relay = await startPostgresRelay(liveDataset('tagged', STRING_KEY, '', KEY_FILTER), db.url);
    try {
      const failed = '502 datasource.row_invalid';
      // One row a page: the page of `b` would continue after `b`, past its second row.
      assert.deepEqual(await walk(relay, 'limit=1'), ['a', failed]);
      assert.deepEqual(await walk(relay, 'limit=1&fields=label'), ['t1', failed]);
      // A page ending on `b`, whose repeat is the row read to learn whether there is more.
      assert.deepEqual(await walk(relay, 'limit=2'), [failed]);
      // Both rows on one page: the same id twice.
      assert.deepEqual(await walk(relay, 'limit=10'), [failed]);
      // Pages that reach no repeated key are served.
      assert.deepEqual(await walk(relay, 'limit=1&id.gte=c'), ['c']);
      const response = await relay.get(`${ITEMS}?limit=2`);
      assert.match(response.json().detail, /`id`/);
      // The record route too: `b` names two records, neither of which is the record.
      const record = await relay.get(`${ITEMS}/b`);
      assert.equal(record.statusCode, 502, record.body);
      assert.equal(record.json().code, 'datasource.row_invalid');
      assert.deepEqual((await relay.get(`${ITEMS}/a?fields=label`)).json(), { label: 't1' });
    } finally {
      await relay.close();
    }
  });

  it('numeric keys that the database holds equal, whatever their scale, count as one key', async () => {
    await db.query(`CREATE VIEW amounts AS SELECT * FROM (VALUES (1.0::numeric, 'x'), (1.00::numeric, 'y'),
      (2::numeric, 'z'), ('-0.0'::numeric, 'w')) AS v(id, label)`);
    await db.query(`CREATE VIEW doubles AS SELECT * FROM (VALUES ('-0'::float8, 'x'), ('0'::float8, 'y'),
      (1::float8, 'z')) AS v(id, label)`);
    for (const [view, above] of [
      ['amounts', ['2']],
      ['doubles', []],
    ] as const) {
      const relay = await startPostgresRelay(
        liveDataset(view, '{ name: id, type: number }, { name: label, type: string }', '', KEY_FILTER),
        db.url,
      );
      try {
        assert.deepEqual(await walk(relay, 'limit=10'), ['502 datasource.row_invalid'], view);
        assert.deepEqual(await walk(relay, 'limit=1&id.gte=1.5'), above, view);
      } finally {
        await relay.close();
      }
    }
  });

  it('keys that differ in the database but show as one key are refused as a snapshot refuses them', async () => {
    // Each table: two keys the database holds apart that a record shows alike (the double a numeric or a bigint
    // served as number reads as, the millisecond of a timestamp), then a key of its own.
    const tables = [
      ['close_amounts', 'numeric', 'number', ['0.1', '0.10000000000000000001', '0.2'], '0.1', '0.15'],
      [
        'close_counts',
        'bigint',
        'number',
        ['9007199254740992', '9007199254740993', '9007199254741000'],
        '9007199254740992',
        '9007199254740995',
      ],
      [
        'close_times',
        'timestamptz',
        'timestamp',
        ['2024-01-01 00:00:00.123456+00', '2024-01-01 00:00:00.123789+00', '2024-01-01 00:00:01+00'],
        '2024-01-01T00:00:00.123Z',
        '2024-01-01T00:00:00.5Z',
      ],
    ] as const;
    for (const [name, column, type, keys, shared, above] of tables) {
      await db.query(`CREATE TABLE ${name} (id ${column} PRIMARY KEY, label text)`);
      await db.query(`INSERT INTO ${name} VALUES ($1, 'x'), ($2, 'y'), ($3, 'z')`, [...keys]);
      const fields = `{ name: id, type: ${type} }, { name: label, type: string }`;
      const snapshot = liveDataset(name, fields).replace(
        'materialization: live',
        'materialization: snapshot',
      );
      assert.equal((await startupFailure(db.url, snapshot)).code, 'ingest.duplicate_primary_key', name);
      const relay = await startPostgresRelay(liveDataset(name, fields, '', KEY_FILTER), db.url);
      try {
        const failed = '502 datasource.row_invalid';
        // Never two records with one id, whatever the page size or projection: the walk stops at the pair.
        assert.deepEqual(await walk(relay, 'limit=1&fields=label'), [failed], name);
        assert.deepEqual(await walk(relay, 'limit=10'), [failed], name);
        // A read that does not reach the pair is served.
        assert.deepEqual(await walk(relay, `limit=1&fields=label&id.gte=${above}`), ['z'], name);
        // The id both show names no one record.
        const record = await relay.get(`${ITEMS}/${encodeURIComponent(shared)}`);
        assert.equal(record.statusCode, 502, `${name}: ${record.body}`);
        assert.equal(record.json().code, 'datasource.row_invalid', name);
      } finally {
        await relay.close();
      }
    }
  });
});
