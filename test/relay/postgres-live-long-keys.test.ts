// Walking a live table whose text keys are as long as its unique index holds: keys of characters JSON escapes
// (control characters, quotes, backslashes) and long keys the index stores compressed. Each page's cursor and
// next link must stay within what the relay accepts, so the walk reaches the end with every row once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { liveAndSnapshot, openLiveTestDatabase, recordsOf } from './postgres-live-fixture.ts';

const FIELDS = '{ name: id, type: string }, { name: label, type: string }';

/** `length` characters drawn from `alphabet` by a fixed pseudo-random sequence (the same keys on every run). */
function scrambled(alphabet: string, length: number, seed: number): string {
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += alphabet[state % alphabet.length];
  }
  return text;
}

const CONTROLS = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
const KEYS = [
  'plain',
  '\u0001'.repeat(2000),
  scrambled(`${CONTROLS}"\\`, 2600, 7),
  scrambled(`${CONTROLS}"\\abcdefghijklmnopqrstuvwxyz0123456789`, 2600, 11),
  // Stored compressed by the index: far longer than any URL.
  'x'.repeat(100_000),
  'y'.repeat(20_000) + scrambled('abc', 40, 3),
];

describe('a live text key as long as its unique index holds', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE long_keys (id text COLLATE "C" PRIMARY KEY, label text)');
    for (const [index, key] of KEYS.entries()) {
      await db.query('INSERT INTO long_keys VALUES ($1, $2)', [key, `row ${index}`]);
    }
    relay = await startPostgresRelay(liveAndSnapshot('long_keys', 'long_key_copies', FIELDS), db.url);
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  async function walk(follow: 'link' | 'cursor'): Promise<string[]> {
    const labels: string[] = [];
    const first = `${recordsOf('long_keys')}?limit=1&fields=id,label`;
    let next: string | undefined = first;
    for (let pages = 0; next !== undefined; pages++) {
      assert.ok(pages <= KEYS.length, 'the walk ends');
      const response = await relay.get(next);
      assert.equal(response.statusCode, 200, `page ${pages + 1}: ${response.body.slice(0, 300)}`);
      const body = response.json();
      labels.push(...body.data.map((row: { label: string }) => row.label));
      const cursor: string | undefined = body.pagination.next_cursor;
      const link = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
      if (cursor === undefined) next = undefined;
      else next = follow === 'link' ? link : `${first}&cursor=${encodeURIComponent(cursor)}`;
    }
    return labels;
  }

  it('pages through every row once, in the column order, by link and by cursor', async () => {
    const expected = (await db.query('SELECT label FROM long_keys ORDER BY id')).rows.map(
      (row) => row.label as string,
    );
    assert.equal(expected.length, KEYS.length);
    assert.deepEqual(await walk('link'), expected);
    assert.deepEqual(await walk('cursor'), expected);
  });
});
