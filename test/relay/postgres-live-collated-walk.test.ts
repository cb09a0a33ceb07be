// Walking a live table keyed by text under a linguistic collation, whose order is neither code-point order nor
// JavaScript's: each page continues exactly after the last key it served, in the column's order, also while rows
// are inserted and deleted between pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { liveAndSnapshot, openLiveTestDatabase, recordsOf } from './postgres-live-fixture.ts';

// Mixed case, accents, digits against letters, trailing spaces, punctuation: ICU orders them `_x, -y, 1, 10, 9, a,
// A, a , a  , æ, b, B, e, E, é, ...`, which no code-point or UTF-16 sort gives. Some keys are equal to others for ICU
// (a zero-width space or soft hyphen is ignored, `e` + U+0301 is `é`): the database breaks such ties by their bytes.
const KEYS = [
  'a',
  'A',
  'b',
  'B',
  'é',
  'e',
  'E',
  'f',
  '1',
  '10',
  '9',
  'a ',
  'a  ',
  'Z',
  'z',
  'ß',
  'ss',
  'æ',
  '_x',
  'a\u200b',
  'a\u00ad',
  '\u00ad',
  'e\u0301',
];
const FIELDS = '{ name: id, type: string }, { name: label, type: string }';

describe('a live text key under an ICU collation', () => {
  let db: TestDatabase;
  let relay: PostgresRelay | undefined;
  before(async () => {
    db = await openLiveTestDatabase();
    if (db.kind === 'pglite') return;
    await db.query('CREATE TABLE words (id text COLLATE "und-x-icu" PRIMARY KEY, label text)');
    for (const [index, key] of KEYS.entries()) {
      await db.query('INSERT INTO words VALUES ($1, $2)', [key, index % 3 === 0 ? 'odd' : 'even']);
    }
    relay = await startPostgresRelay(
      liveAndSnapshot('words', 'word_copies', FIELDS, ['id', 'label']),
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  /** The keys the database orders first, as the column's collation orders them. */
  const databaseOrder = async (where = 'true') =>
    (await db.query(`SELECT id FROM words WHERE ${where} ORDER BY id`)).rows.map((row) => row.id as string);

  /** Follows the pages of `query` by their `Link` header or their `next_cursor`, which must agree. */
  async function walk(live: PostgresRelay, query: string, follow: 'link' | 'cursor'): Promise<string[]> {
    const ids: string[] = [];
    let next: string | undefined = `${recordsOf('words')}?${query}`;
    for (let pages = 0; next !== undefined; pages++) {
      assert.ok(pages < 100, 'the walk ends');
      const response = await live.get(next);
      assert.equal(response.statusCode, 200, `${next}: ${response.body}`);
      const body = response.json();
      ids.push(...body.data.map((row: { id: string }) => row.id));
      const cursor: string | undefined = body.pagination.next_cursor;
      const link = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
      assert.equal(link && new URL(link, 'http://relay.invalid').searchParams.get('cursor'), cursor);
      if (cursor === undefined) next = undefined;
      else if (follow === 'link') next = link;
      else next = `${recordsOf('words')}?${query}&cursor=${encodeURIComponent(cursor)}`;
    }
    return ids;
  }

  it('pages in the column order, each matching row once, with or without filters', async (t) => {
    if (relay === undefined) return t.skip('embedded PGlite has no ICU collations');
    for (const [query, where] of [
      ['', 'true'],
      ['label=odd', "label = 'odd'"],
      ['label.in=odd,even&id.in=a,A,%C3%A9,E,10,9,_x', "id IN ('a', 'A', 'é', 'E', '10', '9', '_x')"],
    ] as const) {
      const expected = await databaseOrder(where);
      assert.notDeepEqual(expected, [...expected].sort(), 'the collation is not code-point order');
      for (const limit of [1, 2, 5]) {
        for (const follow of ['link', 'cursor'] as const) {
          const seen = await walk(relay, `limit=${limit}${query === '' ? '' : `&${query}`}`, follow);
          assert.deepEqual(seen, expected, `${query} limit=${limit} by ${follow}`);
        }
      }
      // The same rows as the snapshot of the table selects (which orders them by code point).
      const copies = await relay.get(
        `${recordsOf('word_copies')}?limit=100${query === '' ? '' : `&${query}`}`,
      );
      const copied = copies.json().data.map((row: { id: string }) => row.id);
      assert.deepEqual([...copied].sort(), [...expected].sort(), query);
    }
    // A key reads its own row, never one the collation holds equal to it, as in the snapshot.
    for (const key of KEYS) {
      const id = encodeURIComponent(key);
      const record = await relay.get(`${recordsOf('words')}/${id}`);
      assert.equal(record.json().id, key, JSON.stringify(key));
      assert.equal(record.body, (await relay.get(`${recordsOf('word_copies')}/${id}`)).body);
      const filtered: { id: string }[] = (await relay.get(`${recordsOf('words')}?id=${id}`)).json().data;
      assert.deepEqual(
        filtered.map((row) => row.id),
        [key],
        JSON.stringify(key),
      );
    }
  });

  it('continues after the last key served while rows are inserted and deleted between pages', async (t) => {
    if (relay === undefined) return t.skip('embedded PGlite has no ICU collations');
    const before = await databaseOrder();
    const first = (await relay.get(`${recordsOf('words')}?limit=6`)).json();
    assert.deepEqual(
      first.data.map((row: { id: string }) => row.id),
      before.slice(0, 6),
    );
    // Deleted ahead of the position (not served), inserted behind it (not served) and ahead of it (served).
    const gone = before.slice(7, 9);
    await db.query('DELETE FROM words WHERE id = ANY($1)', [gone]);
    await db.query(`INSERT INTO words VALUES ('A0', 'new'), ('Ab', 'new'), ('ÉA', 'new'), ('0', 'new')`);
    try {
      const rest: string[] = [];
      let cursor: string | undefined = first.pagination.next_cursor;
      while (cursor !== undefined) {
        const body = (
          await relay.get(`${recordsOf('words')}?limit=2&cursor=${encodeURIComponent(cursor)}`)
        ).json();
        rest.push(...body.data.map((row: { id: string }) => row.id));
        cursor = body.pagination.next_cursor;
      }
      const after = await databaseOrder();
      const last = before[5] as string;
      assert.deepEqual(rest, after.slice(after.indexOf(last) + 1));
      for (const key of before.slice(6)) {
        if (!gone.includes(key)) assert.ok(rest.includes(key), `${JSON.stringify(key)} existed throughout`);
      }
      assert.equal(
        new Set([...first.data.map((row: { id: string }) => row.id), ...rest]).size,
        6 + rest.length,
      );
    } finally {
      await db.query(`DELETE FROM words WHERE label = 'new'`);
      for (const key of gone) await db.query('INSERT INTO words VALUES ($1, $2)', [key, 'odd']);
    }
  });
});
